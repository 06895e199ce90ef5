"""The generated Markdown of the reference decision: the reference page's figures, golden bytes,
every figure traced to a journal hash, simulated numbers labelled on every page."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.read import load_decision

from .conftest import DECISION_ID

pytestmark = pytest.mark.slow  # the built_site fixture runs one real build (~5 s)

GOLDEN = Path(__file__).parent / "golden" / "reference-decision.md"


def _page(site: Path, name: str = "index.md") -> str:
    return (site / "site" / "decisions" / DECISION_ID / name).read_text()


def test_reference_figures_on_the_decision_page(built_site: Path) -> None:
    page = _page(built_site)
    # One result card per trial, each with the reference's figures; no cell joins the two trials.
    assert page.count("| Timed requests completed | 144/144 | 48 before, 48 candidate, 48 restored; no request failures |") == 2
    assert page.count("| Material latency wins | 0/4 workload groups |") == 2
    assert "| Layout candidate token slots | +38.60% |" in page
    assert "| DFlash2 K3 token slots | \u221240.63% |" in page
    assert page.count("| Original configuration restored | yes |") == 2
    # The outcome first: the reference's no-promotion, retain, and each trial's one reason.
    assert page.split("\n\n")[2].startswith('!!! failure "Retain the original configuration"\n')
    assert "(2 no-win, 1 regression); the rule promotes only when one group wins, so no promotion." in page
    assert "At ~25K/C4 the Layout candidate was 9.24% slower than the first control and 7.92% slower than the restored control." in page
    assert (
        "The ~6K/C4 result improved 14.55% against the restored control but only 1.96% against the first control. "
        "It therefore fails the predeclared requirement to improve against both."
    ) in page
    assert "| ~25K | 4 | 11.355 | 12.404 | 11.494 |" in page
    assert "| ~6K | 4 | 5.061 | 4.962 | 5.807 |" in page
    assert "6,065–6,068 (~6K) and 25,279–25,281 (~25K) actual input tokens" in page
    assert "The tables pool 12 request timings per entry" in page


def test_decision_page_matches_golden(built_site: Path) -> None:
    page = _page(built_site)
    if os.environ.get("UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(page)
    assert page == GOLDEN.read_text(), "decision page changed; rerun with UPDATE_GOLDEN=1 and review the diff"


def test_every_decision_page_says_simulated(built_site: Path) -> None:
    pages = sorted((built_site / "site" / "decisions" / DECISION_ID).rglob("*.md"))
    assert len(pages) == 6 + 3 * 2
    for page in pages:
        assert '!!! note "Simulated evidence"' in page.read_text(), page


def test_chart_data_names_the_journal_of_every_point(built_site: Path, reference_bundle: Path) -> None:
    analysis = analyze(load_decision(reference_bundle))
    for trial in analysis.trials:
        hashes = {a.phase: a.sha256 for a in trial.arms}
        folder = built_site / "site" / "decisions" / DECISION_ID / trial.trial_id
        rows = list(csv.DictReader((folder / "per-run.csv").open()))
        assert len(rows) == len(trial.runs) == 36
        for row, run in zip(rows, trial.runs):
            assert row["journal_sha256"] == hashes[run.phase]
            assert float(row["e2e_p50_s"]) == run.percentiles["e2e_s"]["p50"]
        doc = json.loads((folder / "per-run.json").read_text())
        assert {s["sha256"] for s in doc["sources"]} == set(hashes.values())
        # The copied journal in the site is the one the hash names.
        import hashlib

        for arm in trial.arms:
            copy = built_site / "site" / "decisions" / DECISION_ID / "evidence" / trial.trial_id / arm.journal
            assert hashlib.sha256(copy.read_bytes()).hexdigest() == arm.sha256


def test_published_analysis_is_what_analyze_prints(built_site: Path, run_cli) -> None:
    evidence = built_site / "public" / "decisions" / DECISION_ID / "evidence"
    result = run_cli("analyze", evidence, "--json")
    assert result.code == 0
    assert result.out == (built_site / "public" / "decisions" / DECISION_ID / "analysis.json").read_text()


def test_redaction_page_lists_withheld_classes(built_site: Path) -> None:
    page = _page(built_site, "redaction.md")
    assert "| journals/01-original-before.jsonl | model | 1 |" in page
    assert "cannot be rerun on the same named assets" in page
    assert "Withheld by redaction (classes withheld: endpoint, model)" in _page(built_site)


def test_recorded_telemetry_summary_reaches_the_pages(tmp_path: Path) -> None:
    from evidence_kit.analyze.telemetry import telemetry_summary
    from evidence_kit.model.telemetry import TelemetrySample
    from evidence_kit.publish import load_decisions
    from evidence_kit.render import docs_files

    from .conftest import redacted_reference

    def add_telemetry(raw: Path) -> None:
        for seq, journal in enumerate(sorted((raw / "dflash" / "journals").glob("*.jsonl")), start=1):
            cap = [4, 4, 3][seq - 1]
            samples = [
                {
                    "type": "sample",
                    "t_s": t,
                    "engine": {"running": min(t, cap), "waiting": 0, "kv_usage": 0.25 * seq},
                    "gpus": [
                        {"index": 0.0, "memory_free": 2143.0 + 10 * t, "power_draw": 280.5 + t},
                        {"index": 1.0, "memory_free": 4000.0, "power_draw": None},
                    ],
                    "process": None,
                    "cgroup": None,
                }
                for t in range(5)
            ]
            (raw / "dflash" / "telemetry").mkdir(exist_ok=True)
            (raw / "dflash" / "telemetry" / journal.name).write_text("".join(json.dumps(x) + "\n" for x in samples))
            lines = journal.read_text().splitlines()
            footer = json.loads(lines[-1])
            typed = [TelemetrySample.model_validate(x) for x in samples]
            footer["telemetry"] = telemetry_summary(typed).model_dump()  # as the collector writes it
            journal.write_text("\n".join(lines[:-1] + [json.dumps(footer)]) + "\n")

    bundle = redacted_reference(tmp_path, add_telemetry)
    files = docs_files(load_decisions([bundle]))
    page = files[f"site/decisions/{DECISION_ID}/index.md"].decode()
    assert "Sampled engine occupancy: at most 4 running requests before, 4 in the candidate and 3 restored" in page
    assert page.count("Sampled engine occupancy: not recorded") == 1  # the cache-layout trial has none
    hardware = files[f"site/decisions/{DECISION_ID}/hardware.md"].decode()
    assert "| min gpu free mib | 2,143 | 2,143 | 2,143 |" in hardware
    assert "| samples | 5 | 5 | 5 |" in hardware
    # The sampled series are charted (static SVG + interactive spec) with every sample in the table.
    assert "![Line charts of DFlash trial" in hardware and "(dflash/telemetry.svg)" in hardware
    assert files[f"site/decisions/{DECISION_ID}/dflash/telemetry.svg"].startswith(b"<svg")
    assert "| Original restored | 4 | KV cache usage | engine | 0.75 |" in hardware
    assert "| DFlash2 K3 | 3 | running requests | engine | 3 |" in hardware
    # Each GPU is its own line: every recorded value is in the table, an absent one ("[N/A]") is not.
    assert "| Original before | 2 | GPU power (W) | GPU 0 | 282.5 |" in hardware
    assert "| Original before | 4 | GPU memory free (MiB) | GPU 1 | 4000.0 |" in hardware
    assert "| GPU power (W) | GPU 1 |" not in hardware
    assert "memory, power and utilisation of 2 GPU(s), one line per GPU" in hardware
    spec = json.dumps([line for line in hardware.splitlines() if "data-vl-spec" in line])
    assert "device" in spec and "GPU 1" in spec
    assert f"site/decisions/{DECISION_ID}/cache-layout/telemetry.svg" not in files


def test_a_win_a_guardrail_blocks_on_the_decision_page(tmp_path: Path) -> None:
    """The guarded decision: the page says which guardrail blocks and by how much, a win inside the noise says
    so next to it, and the interval chart draws every verdict and the rule's lines from the analysis."""
    import html

    from evidence_kit.present import GUARDRAIL_TITLE
    from evidence_kit.publish import load_decisions
    from evidence_kit.render import docs_files

    from ..guarded import GUARDED_ID, write_guarded_decision

    decision = write_guarded_decision(tmp_path / "guarded")
    analysis = analyze(load_decision(decision))
    files = docs_files(load_decisions([decision]))
    folder = f"site/decisions/{GUARDED_ID}"
    page = files[f"{folder}/index.md"].decode()
    assert GUARDRAIL_TITLE in page
    assert (
        "| p90 time to first token must not regress by more than 10% | ~6K/C4 | 23.28% higher | 37.62% higher "
        "| 1.152–1.319 | 1.290–1.468 | BREACHED |"
    ) in page
    assert (
        "| median output tokens must not change by more than 5% | ~6K/C1 | 9.91% higher | 9.91% higher "
        "| 0.793–1.540 (n.s.) | 0.776–1.576 (n.s.) | BREACHED (within the noise: an interval includes no change; "
        "it still blocks) |"
    ) in page
    assert "Cannot promote: guardrails breached at ~6K/C1, ~6K/C4, ~25K/C1, ~25K/C4." in page
    # The first thing on the page says the wins and the guardrail that stopped them.
    assert page.split("\n\n")[2] == (
        '!!! failure "Retain the original configuration"\n'
        "    2/4 groups won but guardrails breached at ~6K/C1, ~6K/C4, ~25K/C1, ~25K/C4, so no promotion."
    )
    assert "Material latency wins: 2/4 workload groups. Trial outcome: no-promotion" in page
    assert (
        "| ~25K/C1 | 10.39% faster | 12.11% faster | 0.683–1.113 (n.s.) | 0.638–1.125 (n.s.) | 34.83% "
        "| win (point estimates only: an interval includes no change); guardrail breached |"
    ) in page
    assert "within the noise of this data." in page
    assert "| Group verdicts | 2 win, 0 no-win, 1 regression, 1 inconclusive |" in page
    trial = analysis.trials[0]
    spec = json.loads(html.unescape(page.split('data-vl-spec="', 1)[1].split('"', 1)[0]))
    datasets = list(spec["datasets"].values())
    lines = next(rows for rows in datasets if "line" in rows[0])
    assert [(row["ratio"], row["line"]) for row in lines] == [
        (trial.rule.threshold_low_ratio, "10% faster"),
        (1.0, "no change"),
        (trial.rule.threshold_high_ratio, "10% slower"),
    ]
    points = next(rows for rows in datasets if "verdict" in rows[0])
    assert [(row["group"], row["verdict"]) for row in points] == [(g.label, g.verdict.verdict) for g in trial.groups for _ in g.intervals]
    for name, data in files.items():
        if name.startswith(folder) and name.endswith(".md"):
            assert '!!! note "Simulated evidence"' in data.decode(), name
