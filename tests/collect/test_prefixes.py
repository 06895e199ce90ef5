"""Shared-prefix workloads: the prompts, the plan's checks, and a trial whose prefix cache reconciles."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.collect import collect_trial, load_plan
from evidence_kit.collect.client import Outcome, _absorb
from evidence_kit.collect.metrics import reconcile
from evidence_kit.collect.prompts import Calibration, PromptBook
from evidence_kit.collect.runs import client_sums
from evidence_kit.engine_sim import configure_profile, start_simulator
from evidence_kit.errors import BadInput
from evidence_kit.read import load_trial
from evidence_kit.text_report import render_text

from .conftest import sim_arm, write_plan

CALIBRATION = Calibration(method="tokenize", overhead_tokens=20, tokens_per_word=1.0)
KEYS = [f"r{rep}-640-c2/{i}" for rep in (1, 2, 3) for i in range(8)]


def book(seed: int = 7, prefixes: int = 4) -> PromptBook:
    return PromptBook("Summarise.", seed, CALIBRATION, prefix_tokens=384, prefixes=prefixes)


def test_prefix_assignment_is_the_same_in_every_arm_and_moves_with_the_seed() -> None:
    # Two prompt books of one trial (two arms, two collector processes) assign and write alike.
    first, second = book(), book()
    assert [first.prefix_of(k) for k in KEYS] == [second.prefix_of(k) for k in KEYS]
    assert [first.messages(k, 640, first.prefix_of(k)) for k in KEYS] == [second.messages(k, 640, second.prefix_of(k)) for k in KEYS]
    assert {first.prefix_of(k) for k in KEYS} == {0, 1, 2, 3}  # every prefix is used
    # Another seed is another assignment (and other prefix texts), the same for each of its arms too.
    other = book(seed=8)
    assert [other.prefix_of(k) for k in KEYS] != [first.prefix_of(k) for k in KEYS]
    assert other.prefix_text(0) != first.prefix_text(0)
    assert [book(seed=8).prefix_of(k) for k in KEYS] == [other.prefix_of(k) for k in KEYS]


def test_prompts_of_one_prefix_share_exactly_it_and_are_sized_as_unique_ones() -> None:
    b = book()
    one, two, unique = (b.messages(k, 640, p)[0]["content"] for k, p in (("a/0", 1), ("a/1", 1), ("a/0", None)))
    shared = "Summarise.\n\n" + b.prefix_text(1) + " "
    assert one.startswith(shared) and two.startswith(shared) and one != two
    assert not unique.startswith(shared) and not b.messages("a/0", 640, 2)[0]["content"].startswith(shared)
    words = [len(m.split()) for m in (one, two, unique)]
    assert words[0] == words[1] == words[2]  # the same nominal size, prefix or not
    assert len(b.prefix_text(1).split()) == 384 - 20  # the prefix is its tokens less the template's


def test_cached_tokens_are_read_from_the_usage_and_absent_stays_absent() -> None:
    reported, silent = Outcome(t_send=0.0), Outcome(t_send=0.0)
    _absorb(reported, {"usage": {"prompt_tokens": 640, "completion_tokens": 3, "prompt_tokens_details": {"cached_tokens": 368}}}, 0.0)
    _absorb(silent, {"usage": {"prompt_tokens": 640, "completion_tokens": 3, "prompt_tokens_details": None}}, 0.0)
    assert reported.record()["cached_tokens"] == 368
    assert "cached_tokens" not in silent.record()  # not 0: the engine said nothing


def test_the_prefix_cache_reconciles_only_when_every_request_reported() -> None:
    records = [{"ok": True, "prompt_tokens": 640, "completion_tokens": 3, "cached_tokens": c} for c in (368, 0)]
    sums = client_sums(records)
    assert sums["prefix_cache_hits"] == 368 and sums["prefix_cache_queries"] == 1280
    before = {"requests": 0, "prompt_tokens": 0, "generation_tokens": 0, "prefix_cache_hits": 0, "prefix_cache_queries": 0}
    after = {"requests": 2, "prompt_tokens": 1280, "generation_tokens": 6, "prefix_cache_hits": 368, "prefix_cache_queries": 1280}
    assert reconcile(before, after, sums)[0] is True
    verdict, _, problems = reconcile(before, {**after, "prefix_cache_hits": 352}, sums)
    assert verdict is False and problems == ["prefix_cache_hits: engine +352, client 368"]
    # One request without the detail: the hits are not compared (absent is not 0), the rest still are.
    silent = client_sums([records[0], {k: v for k, v in records[1].items() if k != "cached_tokens"}])
    assert "prefix_cache_hits" not in silent
    assert reconcile(before, {**after, "prefix_cache_hits": 352}, silent)[0] is True
    # An engine that caches nothing looks nothing up: queries that did not move are not a mismatch.
    assert reconcile(before, {**after, "prefix_cache_queries": 0}, sums)[0] is True


@pytest.mark.parametrize(
    ("workload", "key", "said"),
    [
        ({"prefix_tokens": 384}, "[workload]", "prefix_tokens is set without prefixes"),
        ({"prefixes": 4}, "prefixes", "prefixes is set without prefix_tokens"),
        ({"prime_prefixes": False}, "prime_prefixes", "prime_prefixes is set without prefix_tokens"),
        ({"prefix_tokens": 1024, "prefixes": 4}, "prefix_tokens", "is not below any input_nominal"),
        ({"prefix_tokens": 384, "prefixes": 4}, "[workload]", "is not below input_nominal 256"),
        ({"prefix_tokens": 384, "prefixes": 4, "prefix_inputs": [512]}, "prefix_inputs", "not in input_nominal"),
        ({"prefix_tokens": 384, "prefixes": 4, "prefix_inputs": [256]}, "prefix_inputs", "not above prefix_tokens"),
        ({"prefix_tokens": 384, "prefixes": 0}, "prefixes", "greater than 0"),
    ],
)
def test_inconsistent_prefix_plans_exit_2_with_file_and_line(tmp_path: Path, run_cli, workload: dict, key: str, said: str) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"input_nominal": [256, 640], **workload})
    lines = plan.read_text().splitlines()
    at = next(i for i, line in enumerate(lines, 1) if line.startswith(key if key.startswith("[") else key + " ="))
    with pytest.raises(BadInput) as caught:
        load_plan(plan)
    assert caught.value.line == at and said in caught.value.message
    result = run_cli("collect", plan, "--out", tmp_path / "raw")
    assert result.code == 2 and f"{plan}:{at}:" in result.err and result.err.strip().count("\n") == 0
    assert "Traceback" not in result.err and not (tmp_path / "raw").exists()


def test_a_prefix_plan_reaches_trial_json_and_a_plain_one_is_unchanged(tmp_path: Path) -> None:
    plan = load_plan(
        write_plan(tmp_path / "p.toml", workload={"input_nominal": [256, 640], "prefix_tokens": 384, "prefixes": 4, "prefix_inputs": [640]})
    )
    wl = plan.trial().workload
    assert (wl.prefix_tokens, wl.prefixes, wl.prefix_inputs, wl.prime_prefixes) == (384, 4, [640], True)
    assert wl.prefixed(640) and not wl.prefixed(256)
    plain = load_plan(write_plan(tmp_path / "q.toml")).trial().model_dump(exclude_none=True)["workload"]
    assert not {"prefix_tokens", "prefixes", "prefix_inputs", "prime_prefixes"} & set(plain)


def _requests(journal: Path) -> list[dict]:
    return [r for r in map(json.loads, journal.read_text().splitlines()) if r["type"] == "request"]


@pytest.mark.slow
def test_a_shared_prefix_trial_reconciles_its_cache_and_a_miscounting_engine_fails_loudly(tmp_path: Path) -> None:
    caching = "--prefix-caching"
    plan = write_plan(
        tmp_path / "plan.toml",
        arms={
            "original": sim_arm("original", extra=caching),
            "faulty": sim_arm("layout-candidate", extra=f"{caching} --fault wrong-cached=0.5"),
        },
        workload={
            "input_nominal": [256, 640],
            "concurrency": [2],
            "repetitions": 1,
            "requests_per_run": 4,
            "prefix_tokens": 384,
            "prefixes": 2,
            "prefix_inputs": [640],
        },
    )
    collect_trial(plan, tmp_path / "raw")
    evidence = load_trial(tmp_path / "raw")
    before, candidate, restored = evidence.arms
    journals = sorted((tmp_path / "raw" / "journals").glob("*.jsonl"))
    timed = [[(r["key"], r.get("prefix")) for r in _requests(j) if not r["warmup"]] for j in journals]
    assert timed[0] == timed[1] == timed[2]  # the same prompts, the same prefixes, in every arm
    assert {p for _, p in timed[0] if p is not None} == {0, 1} and ("r1-256-c2/0", None) in timed[0]
    primes = [r["key"] for r in _requests(journals[0]) if r["warmup"]]
    assert primes == ["warmup/0", "r1-640-c2/prime-0", "r1-640-c2/prime-1"]
    for arm in (before, restored):
        assert all(run.reconciled for run in arm.runs)
        shared = next(run for run in arm.runs if run.input_nominal == 640)
        hits = shared.counters["prefix_cache_hits"]
        assert hits[1] - hits[0] == sum(r.cached_tokens for r in arm.timed if r.input_nominal == 640) > 4 * 300
        queries = shared.counters["prefix_cache_queries"]
        assert queries[1] - queries[0] == sum(r.prompt_tokens for r in arm.timed if r.input_nominal == 640)
    for arm in evidence.arms:  # fresh engines: every hit is the instruction's or a prefix's
        check = next(c for c in arm.checks if c.name == "prefix-cache")
        assert check.ok and check.level == "warning" and "0 of 4 shared-prefix request(s)" in check.detail
    # The engine that reports cached tokens its counters never counted is caught, run by run, by name.
    wrong = [run for run in candidate.runs if run.reconciled is False]
    assert wrong and all(any(m.startswith("prefix_cache_hits: ") for m in run.mismatches) for run in wrong)
    analysis = analyze(evidence)
    trial = analysis.trials[0]
    shared_group = next(g for g in trial.groups if g.shared_prefix)
    assert shared_group.cache_hits and shared_group.cache_hits["before"].hit_rate_pct > 50
    unique = next(g for g in trial.groups if not g.shared_prefix)
    assert unique.cache_hits and unique.cache_hits["before"].hit_rate_pct < 10
    text = render_text(analysis)
    rows = [line for line in text.splitlines() if line.startswith(f"| {shared_group.label} ") and "| shared" in line]
    assert "Prefix-cache hit rate" in text and len(rows) == 1


@pytest.mark.slow
def test_later_arms_on_an_engine_that_kept_the_prompts_are_flagged(tmp_path: Path) -> None:
    # One engine serves every arm and is never restarted: the candidate and restored arms send prompts it has
    # cached whole, hits no prefix explains, which would flatter them.
    server = start_simulator(configure_profile("original", prefix_caching=True), time_scale=50)
    try:
        arm = {"base_url": server.url, "model": "sim-org/sim-model-7b-simulated", "ready_url": server.url + "/health"}
        plan = write_plan(
            tmp_path / "plan.toml",
            arms={"original": arm, "same": arm},
            workload={"input_nominal": [640], "concurrency": [2], "repetitions": 1, "requests_per_run": 2, "prefix_tokens": 384, "prefixes": 2},
        )
        collect_trial(plan, tmp_path / "raw")
    finally:
        server.stop()
    checks = [next(c for c in arm.checks if c.name == "prefix-cache") for arm in load_trial(tmp_path / "raw").arms]
    assert checks[0].ok and "0 of 2 shared-prefix request(s)" in checks[0].detail
    for later in checks[1:]:
        assert not later.ok and later.level == "warning" and "2 of 2 shared-prefix request(s) hit the cache beyond their prefix" in later.detail
