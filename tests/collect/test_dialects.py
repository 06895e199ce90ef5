"""Engine dialects: each engine's names parse a scrape built from that engine's source, a trial
against the simulator speaking SGLang reconciles, and a dialect that is not the engine's says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.collect import collect_trial
from evidence_kit.collect.lifecycle import log_kv_slots
from evidence_kit.collect.metrics import kv_token_slots, parse_metrics, reconcile
from evidence_kit.engine_sim.profile import load_profile
from evidence_kit.model.dialects import DIALECTS, dialect_for
from evidence_kit.read import load_trial

from .conftest import sim_arm, write_plan

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str) -> str:
    return (FIXTURES / name).read_text()


def names(dialect: str) -> set[str]:
    d = DIALECTS[dialect]
    return {
        part
        for table in (d.counters, d.gauges)
        for found in table.values()
        for name in found
        for part in name.split("+")
        if not part.startswith("process_")
    }


@pytest.mark.parametrize("dialect, scrape", [("sglang", "sglang-metrics.txt"), ("llama.cpp", "llamacpp-metrics.txt")])
def test_every_name_of_a_dialect_is_in_its_engines_scrape(dialect: str, scrape: str) -> None:
    exposed = set(parse_metrics(fixture(scrape), DIALECTS[dialect]).values)
    assert names(dialect) <= exposed, names(dialect) - exposed


def test_sglang_scrape_reads_as_the_journals_words() -> None:
    scraped = parse_metrics(fixture("sglang-metrics.txt"), DIALECTS["sglang"])
    assert scraped.counters() == {
        "requests": 3,
        "prompt_tokens": 300,
        "generation_tokens": 60,
        "prefix_cache_hits": 30,
        "ttft_seconds_sum": 0.9,
        "ttft_seconds_count": 3,
        "e2e_seconds_sum": 4.5,
        "e2e_seconds_count": 3,
    }
    assert scraped.gauges() == {"running": 2, "waiting": 1, "kv_usage": 0.25}
    assert kv_token_slots(scraped) == 123456 and scraped.speaks()


def test_llamacpp_real_scrape_adds_cached_prompt_tokens_and_has_no_request_counter() -> None:
    scraped = parse_metrics(fixture("llamacpp-metrics.txt"), DIALECTS["llama.cpp"])
    counters = scraped.counters()
    # The real server's three requests (the fixture's header): their usage reported 1919 prompt tokens,
    # 1209 of them cached, and 60 generated; its counters split the prompt into 710 computed and 1209 reused.
    assert counters == {
        "prompt_tokens": 1919,
        "generation_tokens": 60,
        "prefix_cache_hits": 1209,
        "spec_decode_drafts": 0,
        "spec_decode_draft_tokens": 0,
        "spec_decode_accepted_tokens": 0,
    }
    assert scraped.gauges() == {"running": 0, "waiting": 0} and kv_token_slots(scraped) is None
    # No request counter: requests are not compared, so a run reconciles on the tokens alone.
    zero = {k: 0.0 for k in counters}
    verdict, record, problems = reconcile(zero, counters, {"requests": 3, "prompt_tokens": 1919, "generation_tokens": 60, "prefix_cache_hits": 1209})
    assert verdict is True and "requests" not in record and problems == []
    verdict, _, problems = reconcile(zero, counters, {"requests": 3, "prompt_tokens": 710, "generation_tokens": 60})
    assert verdict is False and problems == ["prompt_tokens: engine +1919, client 710"]


def test_llamacpp_counters_written_with_six_digits_are_not_counts() -> None:
    text = fixture("llamacpp-metrics.txt").replace("llamacpp:tokens_predicted_total 60", "llamacpp:tokens_predicted_total 1.23457e+06")
    counters = parse_metrics(text, DIALECTS["llama.cpp"]).counters()
    assert "generation_tokens" not in counters and counters["prompt_tokens"] == 1919
    # The same value in vLLM's dialect (exact floats) is a count.
    assert parse_metrics("vllm:generation_tokens_total 1234567.0\n").counters() == {"generation_tokens": 1234567}


def test_a_dialect_reads_only_its_own_names() -> None:
    sglang = fixture("sglang-metrics.txt")
    assert parse_metrics(sglang, DIALECTS["vllm"]).counters() == {}
    assert parse_metrics(sglang, DIALECTS["openai-compatible"]).counters() == {}
    assert not parse_metrics(sglang, DIALECTS["llama.cpp"]).speaks()


@pytest.mark.parametrize(
    "dialect, line, slots",
    [
        ("vllm", "INFO GPU KV cache size: 1,330,576 tokens", 1330576),
        ("sglang", "[2026-01-01] max_total_num_tokens=412345, chunked_prefill_size=8192, max_prefill_tokens=16384", 412345),
        # llama-server at its default verbosity: 2 slots of 2048 cells each; unified, the 4096 cells all slots share.
        ("llama.cpp", "0.00.031.835 I srv    load_model: initializing, n_slots = 2, n_ctx_slot = 2048, kv_unified = 'false'", 4096),
        ("llama.cpp", "0.00.016.997 I srv    load_model: initializing, n_slots = 2, n_ctx_slot = 4096, kv_unified = 'true'", 4096),
        # An older server's libllama line; the slots' own "n_ctx = 2048" lines after it are not the capacity.
        (
            "llama.cpp",
            "llama_context: n_ctx                 = 8192\nllama_context: n_ctx_seq             = 4096\n"
            "slot   load_model: id  0 | task -1 | new slot, n_ctx = 4096",
            8192,
        ),
    ],
)
def test_each_dialect_reads_its_capacity_line(tmp_path: Path, dialect: str, line: str, slots: int) -> None:
    log = tmp_path / "engine.log"
    log.write_text(f"something else\n{line}\n")
    assert log_kv_slots(log, DIALECTS[dialect]) == slots
    others = [d for d in ("vllm", "sglang", "llama.cpp") if d != dialect]
    assert all(log_kv_slots(log, DIALECTS[d]) is None for d in others)


def test_engine_kind_selects_the_dialect() -> None:
    assert dialect_for("sglang").name == "sglang" and dialect_for("llama.cpp").name == "llama.cpp"
    assert dialect_for("simulated").name == "vllm" and dialect_for("simulated", "sglang").name == "sglang"
    assert dialect_for("openai-compatible").counters == {}


@pytest.mark.slow
def test_an_sglang_dialect_trial_reconciles_against_the_simulator_speaking_sglang(tmp_path: Path) -> None:
    arms = {
        "original": sim_arm("original", extra="--dialect sglang"),
        "layout": sim_arm("layout-candidate", extra="--dialect sglang", label="Layout"),
    }
    plan = write_plan(tmp_path / "plan.toml", arms=arms, dialect="sglang")
    result = collect_trial(plan, tmp_path / "raw")
    evidence = load_trial(tmp_path / "raw")
    assert result.ok and evidence.trial.dialect == "sglang"
    for arm in evidence.arms:
        assert arm.runs and all(run.reconciled is True for run in arm.runs)
        assert all({"requests", "prompt_tokens", "generation_tokens"} <= set(run.counters or {}) for run in arm.runs)
        # The capacity is SGLang's max_total_num_tokens: the profile's pool.
        assert arm.header.engine.kv_token_slots == load_profile(arm.ref.arm if arm.ref.arm != "layout" else "layout-candidate").token_slots
        kind = next(c for c in arm.checks if c.name == "engine-kind")
        assert kind.ok
    samples = (tmp_path / "raw" / "telemetry").glob("*.jsonl")
    assert any('"running"' in path.read_text() and '"kv_usage"' in path.read_text() for path in samples)


@pytest.mark.slow
def test_a_dialect_the_engine_does_not_speak_is_not_reconcilable_and_said(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml", dialect="sglang", workload={"concurrency": [1], "repetitions": 1})
    collect_trial(plan, tmp_path / "raw")
    for arm in load_trial(tmp_path / "raw").arms:
        assert arm.runs and all(run.reconciled is None for run in arm.runs)
        kind = next(c for c in arm.checks if c.name == "engine-kind")
        assert not kind.ok and kind.level == "warning" and "no sglang: series" in kind.detail


@pytest.mark.parametrize(
    "top, said",
    [
        ({"engine_kind": "tgi"}, "engine_kind"),
        ({"engine_kind": "vllm", "dialect": "sglang"}, 'dialect is for engine_kind "simulated"'),
        ({"dialect": "trt"}, "dialect"),
    ],
)
def test_an_unknown_engine_kind_or_a_misplaced_dialect_is_one_located_line(tmp_path: Path, run_cli, top, said) -> None:
    plan = write_plan(tmp_path / "plan.toml", **top)
    key = "dialect" if "dialect" in top else "engine_kind"
    line = next(i for i, text in enumerate(plan.read_text().splitlines(), 1) if text.startswith(key))
    result = run_cli("collect", plan, "--out", tmp_path / "raw", "-q")
    assert result.code == 2 and result.err.strip().count("\n") == 0 and "Traceback" not in result.err
    assert f"{plan}:{line}:" in result.err and said in result.err


@pytest.mark.slow
def test_a_llamacpp_dialect_trial_reconciles_its_tokens_and_leaves_requests_unreconcilable(tmp_path: Path) -> None:
    arms = {
        "original": sim_arm("original", extra="--dialect llama.cpp"),
        "layout": sim_arm("layout-candidate", extra="--dialect llama.cpp", label="Layout"),
    }
    plan = write_plan(tmp_path / "plan.toml", arms=arms, dialect="llama.cpp", workload={"concurrency": [1], "repetitions": 1})
    assert collect_trial(plan, tmp_path / "raw").ok
    for arm in load_trial(tmp_path / "raw").arms:
        assert arm.runs and all(run.reconciled is True for run in arm.runs)
        assert all(set(run.counters or {}) >= {"prompt_tokens", "generation_tokens"} and "requests" not in (run.counters or {}) for run in arm.runs)
        # No capacity in llama.cpp's /metrics: the server's "n_slots = S, n_ctx_slot = C" log line gives it.
        assert arm.header.engine.kv_token_slots == load_profile("original" if arm.ref.arm == "original" else "layout-candidate").token_slots
