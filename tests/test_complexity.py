"""No function of the package is more complex than a reader can hold at once.

radon's cyclomatic complexity, at most 15 for every function and method. The functions
listed in ``LEGACY`` predate the rule: each may not grow, and its entry must go once it is
split (the test fails on a stale entry, so the list only shrinks).
"""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 15

LEGACY: dict[tuple[str, str], int] = {
    ("evidence_kit/analyze/client_health.py", "run_client"): 26,
    ("evidence_kit/analyze/decision.py", "analyze"): 16,
    ("evidence_kit/analyze/design.py", "design_result"): 22,
    ("evidence_kit/analyze/findings.py", "findings_for"): 43,
    ("evidence_kit/analyze/goodput.py", "group_load"): 18,
    ("evidence_kit/analyze/groups.py", "group_results"): 27,
    ("evidence_kit/analyze/groups.py", "turn_results"): 24,
    ("evidence_kit/analyze/power.py", "power_trial"): 18,
    ("evidence_kit/analyze/stats.py", "_adjusted_components"): 21,
    ("evidence_kit/analyze/studentised.py", "studentised_interval"): 22,
    ("evidence_kit/analyze/telemetry.py", "telemetry_summary"): 25,
    ("evidence_kit/analyze/timing.py", "_gap"): 22,
    ("evidence_kit/analyze/trial.py", "_arm_summary"): 17,
    ("evidence_kit/analyze/trial.py", "analyze_trial"): 49,
    ("evidence_kit/analyze/verdicts.py", "verdict_for"): 39,
    ("evidence_kit/attest/statement.py", "parse_statement"): 16,
    ("evidence_kit/collect/client.py", "_absorb"): 26,
    ("evidence_kit/collect/plan.py", "_line_in_table"): 16,
    ("evidence_kit/collect/process_starts.py", "ProcessHistory.describe"): 19,
    ("evidence_kit/commands/power.py", "_group_lines"): 16,
    ("evidence_kit/engine_sim/generation.py", "plan_output"): 16,
    ("evidence_kit/engine_sim/protocol.py", "_chosen_tool"): 16,
    ("evidence_kit/importers/guidellm.py", "_benchmark"): 18,
    ("evidence_kit/importers/trial.py", "assemble"): 17,
    ("evidence_kit/importers/vllm_bench.py", "read"): 29,
    ("evidence_kit/mkdocs_plugin.py", "EvidenceKitPlugin._no_secret_copied"): 21,
    ("evidence_kit/model/trial.py", "Trial._design"): 27,
    ("evidence_kit/model/trial.py", "Workload._unique"): 17,
    ("evidence_kit/present/wording.py", "finding_sentence"): 30,
    ("evidence_kit/read/journal.py", "JournalReader.__iter__"): 17,
    ("evidence_kit/read/load.py", "read_arm"): 27,
    ("evidence_kit/render/pages.py", "decision_files"): 16,
    ("evidence_kit/text_report.py", "_trial_text"): 17,
    ("evidence_kit/verify/checks.py", "check_completeness"): 19,
    ("evidence_kit/verify/compare.py", "json_mismatches"): 21,
    ("evidence_kit/verify/contract.py", "_turn_problems"): 31,
    ("evidence_kit/verify/contract.py", "arm_problems"): 20,
    ("evidence_kit/verify/page_text.py", "_Parser.handle_starttag"): 29,
}


def _complexities() -> dict[tuple[str, str], int]:
    found: dict[tuple[str, str], int] = {}
    for path in sorted((ROOT / "evidence_kit").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        for block in cc_visit(path.read_text(encoding="utf-8")):
            for item in [block, *getattr(block, "methods", [])]:
                owner = getattr(item, "classname", None)
                name = f"{owner}.{item.name}" if owner else item.name
                found[(rel, name)] = max(item.complexity, found.get((rel, name), 0))
    return found


def test_no_function_is_more_complex_than_the_limit() -> None:
    found = _complexities()
    over = {key: c for key, c in found.items() if c > LIMIT and c > LEGACY.get(key, LIMIT)}
    assert not over, "split these functions (radon complexity over %d, or over their legacy ceiling): %s" % (
        LIMIT,
        ", ".join(f"{f}:{n} = {c}" for (f, n), c in sorted(over.items())),
    )


def test_the_legacy_list_only_shrinks() -> None:
    found = _complexities()
    stale = [key for key in LEGACY if found.get(key, 0) <= LIMIT]
    assert not stale, "remove these entries from LEGACY (the function is gone or within the limit): %s" % (", ".join(f"{f}:{n}" for f, n in stale))
