"""Every problem in evidence becomes one line naming file and line, exit 2, no traceback."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

JOURNAL = "journals/02-layout-candidate-candidate.jsonl"


def _lines(bundle: Path) -> list[str]:
    return (bundle / JOURNAL).read_text().splitlines(keepends=True)


def _write(bundle: Path, lines: list[str]) -> None:
    (bundle / JOURNAL).write_text("".join(lines))


def _first(lines: list[str], kind: str) -> int:
    return next(i for i, line in enumerate(lines) if json.loads(line)["type"] == kind)


def _edit(lines: list[str], index: int, **changes) -> None:
    record = json.loads(lines[index])
    for key, value in changes.items():
        if value is ...:
            del record[key]
        else:
            record[key] = value
    lines[index] = json.dumps(record) + "\n"


def _torn(lines):
    lines[-1] = lines[-1][: len(lines[-1]) // 2]
    return len(lines), "torn last line (no newline at end; the writer was interrupted?): not valid JSON"


def _bad_json(lines):
    i = _first(lines, "request")
    lines[i] = lines[i].replace('"ok":', '"ok" ', 1)
    return i + 1, "not valid JSON"


def _unknown_type(lines):
    i = _first(lines, "run")
    _edit(lines, i, type="batch")
    return i + 1, "unknown record type 'batch'"


def _wrong_type(lines):
    i = _first(lines, "request") + 3
    _edit(lines, i, e2e_s="4.958")
    return i + 1, "field 'e2e_s': Input should be a valid number (got str)"


def _missing_field(lines):
    i = _first(lines, "request") + 5
    _edit(lines, i, input_nominal=...)
    return i + 1, "missing required field 'input_nominal'"


def _no_load(lines):
    # Neither a concurrency (closed loop) nor a rate (open loop): the request belongs to no group.
    i = _first(lines, "request") + 5
    _edit(lines, i, concurrency=...)
    return i + 1, "a request or run has exactly one of concurrency (closed loop) and rate (open loop)"


def _rate_in_closed_loop(lines):
    # A request at a rate in a trial whose workload is at a concurrency: it belongs to no group of the trial.
    i = _first(lines, "request") + 5
    _edit(lines, i, concurrency=..., rate=4.0)
    return i + 1, "a request record at a rate in a trial whose workload is at a concurrency"


def _both_loads(lines):
    i = _first(lines, "request") + 5
    _edit(lines, i, rate=2.0)
    return i + 1, "a request or run has exactly one of concurrency (closed loop) and rate (open loop)"


def _footer_counts(lines):
    _edit(lines, len(lines) - 1, timed_requests=47)
    return len(lines), "footer counts 50 requests / 47 timed, but the journal holds 50 / 48"


def _run_counts(lines):
    i = _first(lines, "run")
    _edit(lines, i, ok=3)
    return i + 1, "run 'r1-8192-c1' counts 4 requests / 3 ok, but the journal holds 4 / 4 for it"


def _header_not_first(lines):
    lines[0], lines[1] = lines[1], lines[0]
    return 1, "first line must be the header, found a 'gate' record"


def _after_footer(lines):
    lines.append(lines[_first(lines, "gate")])
    return len(lines), "record after the footer"


def _no_footer(lines):
    del lines[-1]
    return len(lines), "journal has no footer"


def _failed_without_reason(lines):
    i = _first(lines, "request") + 4
    _edit(lines, i, ok=False)
    return i + 1, "a failed request (ok false) says why in error"


def _nan(lines):
    i = _first(lines, "request") + 4
    lines[i] = lines[i].replace('"e2e_s":', '"e2e_s": NaN, "x":', 1)
    return i + 1, "field 'e2e_s': Input should be a finite number"


def _empty_line(lines):
    lines.insert(3, "\n")
    return 4, "empty line in journal"


def _not_an_object(lines):
    lines[4] = "[1, 2, 3]\n"
    return 5, "a journal line must be a JSON object"


def _wrong_group(lines):
    i = _first(lines, "request") + 2
    _edit(lines, i, concurrency=64)
    return i + 1, "group (8192, 64) is not in the trial's workload"


def _first_token_after_the_end(lines):
    i = _first(lines, "request") + 3
    end = json.loads(lines[i])["e2e_s"]
    _edit(lines, i, ttft_s=end + 0.25, ttft_content_s=None)
    return i + 1, (f"ttft_s {end + 0.25!r} is greater than e2e_s {end!r}: the first token cannot come after the end of the request")


def _content_before_the_first_token(lines):
    i = _first(lines, "request") + 3
    first = json.loads(lines[i])["ttft_s"]
    _edit(lines, i, ttft_content_s=first / 2)
    return i + 1, (f"ttft_s {first!r} is greater than ttft_content_s {first / 2!r}: the first token cannot come after the first visible content")


def _content_after_the_end(lines):
    i = _first(lines, "request") + 3
    end = json.loads(lines[i])["e2e_s"]
    _edit(lines, i, ttft_content_s=end * 2)
    return i + 1, (f"ttft_content_s {end * 2!r} is greater than e2e_s {end!r}: the first visible content cannot come after the end of the request")


def _gaps_past_the_end(lines):
    i = _first(lines, "request") + 3
    record = json.loads(lines[i])
    span = round((record["e2e_s"] - record["ttft_s"]) * 1e6)
    gaps = [span // 4] * 4 + [1000]  # a forged stream: its token gaps outlast it by a millisecond
    _edit(lines, i, itl_us=gaps, last_token_s=None)
    return i + 1, (
        f"itl_us sums to {sum(gaps)} us, more than the {span} us from ttft_s to e2e_s: the gaps between token events cannot outlast the stream"
    )


CASES = {
    "torn last line": _torn,
    "bad JSON": _bad_json,
    "unknown type": _unknown_type,
    "wrong field type": _wrong_type,
    "missing required field": _missing_field,
    "request without a load": _no_load,
    "request with a concurrency and a rate": _both_loads,
    "request at a rate in a closed-loop trial": _rate_in_closed_loop,
    "inconsistent footer counts": _footer_counts,
    "inconsistent run counts": _run_counts,
    "header not first": _header_not_first,
    "record after footer": _after_footer,
    "no footer": _no_footer,
    "failed request without reason": _failed_without_reason,
    "NaN": _nan,
    "empty line": _empty_line,
    "not an object": _not_an_object,
    "group outside the workload": _wrong_group,
    "first token after the end": _first_token_after_the_end,
    "visible content before the first token": _content_before_the_first_token,
    "visible content after the end": _content_after_the_end,
    "token gaps past the end": _gaps_past_the_end,
}


@pytest.mark.parametrize("case", list(CASES))
def test_journal_error_names_file_and_line(case: str, reference_decision: Path, run_cli) -> None:
    bundle = reference_decision / "cache-layout"
    lines = _lines(bundle)
    line_no, message = CASES[case](lines)
    _write(bundle, lines)
    result = run_cli("analyze", reference_decision)
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    assert result.err.startswith(f"evidence-kit: {bundle / JOURNAL}:{line_no}: {message}"), result.err


def test_trial_json_error_points_at_the_field(reference_decision: Path, run_cli) -> None:
    path = reference_decision / "dflash" / "trial.json"
    text = path.read_text().replace('"repetitions": 3', '"repetitions": 0')
    path.write_text(text)
    line = text.splitlines().index('    "repetitions": 0,') + 1
    result = run_cli("analyze", reference_decision)
    assert result.code == 2
    assert result.err == f"evidence-kit: {path}:{line}: field 'workload.repetitions': Input should be greater than 0\n"


def test_every_problem_of_a_trial_json_is_named_at_once_each_at_its_field(reference_decision: Path, run_cli) -> None:
    path = reference_decision / "dflash" / "trial.json"
    text = path.read_text().replace('"repetitions": 3', '"repetitions": 0').replace('"requests_per_run": 4', '"requests_per_run": "four"')
    path.write_text(text)
    lines = text.splitlines()
    repetitions, per_run = lines.index('    "repetitions": 0,') + 1, lines.index('    "requests_per_run": "four",') + 1
    result = run_cli("analyze", reference_decision)
    assert result.code == 2 and result.out == ""
    assert result.err.splitlines() == [
        f"evidence-kit: {path}:{repetitions}: field 'workload.repetitions': Input should be greater than 0",
        f"evidence-kit: {path}:{per_run}: field 'workload.requests_per_run': Input should be a valid integer (got str)",
    ]


def test_trial_json_rule_violation(reference_decision: Path, run_cli) -> None:
    path = reference_decision / "dflash" / "trial.json"
    trial = json.loads(path.read_text())
    trial["arms"][2]["arm"] = "something-else"
    path.write_text(json.dumps(trial))
    result = run_cli("analyze", reference_decision / "dflash")
    assert result.code == 2
    assert "the restored arm must be the same arm as the before arm" in result.err


def test_header_must_match_trial(reference_decision: Path, run_cli) -> None:
    bundle = reference_decision / "cache-layout"
    lines = _lines(bundle)
    _edit(lines, 0, phase="restored")
    _write(bundle, lines)
    result = run_cli("analyze", bundle)
    assert result.err == f"evidence-kit: {bundle / JOURNAL}:1: header phase is 'restored', trial.json says 'candidate'\n"


def test_decision_toml_errors(reference_decision: Path, run_cli) -> None:
    path = reference_decision / "decision.toml"
    original = path.read_text()
    path.write_text(original.replace('date = "2026-11-01"', 'date = "1 November"'))
    result = run_cli("analyze", reference_decision)
    assert result.code == 2
    assert result.err.startswith(f"evidence-kit: {path}:2: field 'date': String should match pattern")
    path.write_text(original.replace("trials = [", 'trials = [ "missing",'))
    result = run_cli("analyze", reference_decision)
    assert result.err.startswith(f"evidence-kit: {path}: trial 'missing' is named but")
    path.write_text(original + "\nthis is = not toml =\n")
    result = run_cli("analyze", reference_decision)
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {path}:")
    assert "not valid TOML" in result.err


def test_bare_toml_date_is_accepted(reference_decision: Path, run_cli) -> None:
    path = reference_decision / "decision.toml"
    path.write_text(path.read_text().replace('date = "2026-11-01"', "date = 2026-11-01"))
    assert run_cli("analyze", reference_decision).code == 0


def test_missing_and_wrong_paths(tmp_path: Path, run_cli) -> None:
    result = run_cli("analyze", tmp_path / "nope")
    assert (result.code, result.err) == (2, f"evidence-kit: {tmp_path / 'nope'}: no such file or folder\n")
    result = run_cli("analyze", tmp_path)
    assert result.code == 2 and "neither a decision folder" in result.err


def test_missing_journal(reference_decision: Path, run_cli) -> None:
    bundle = reference_decision / "dflash"
    (bundle / "journals/03-original-restored.jsonl").unlink()
    result = run_cli("analyze", bundle)
    assert result.code == 2 and "journal of the restored arm is missing" in result.err


def test_console_script_exit_code_without_traceback(reference_decision: Path) -> None:
    """The installed entry point, in a real process: one line on stderr, exit 2."""
    bundle = reference_decision / "cache-layout"
    lines = _lines(bundle)
    _unknown_type(lines)
    _write(bundle, lines)
    proc = subprocess.run([sys.executable, "-m", "evidence_kit", "analyze", str(reference_decision)], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "unknown record type 'batch'" in proc.stderr


def test_times_equal_to_each_other_are_in_order(reference_decision: Path, run_cli) -> None:
    bundle = reference_decision / "cache-layout"
    lines = _lines(bundle)
    i = _first(lines, "request") + 3
    end = json.loads(lines[i])["e2e_s"]
    _edit(lines, i, ttft_s=end, ttft_content_s=end)  # one network read carried all of it
    _write(bundle, lines)
    assert run_cli("analyze", reference_decision).code == 0


def test_a_failed_request_without_an_end_compares_no_time_with_it() -> None:
    from evidence_kit.read import parse_record

    failed = {
        "type": "request",
        "run": "r1-8192-c1",
        "repetition": 1,
        "input_nominal": 8192,
        "concurrency": 1,
        "index": 0,
        "warmup": False,
        "ok": False,
        "error": "timeout after 600 s",
        "e2e_s": None,
        "ttft_s": 599.0,
        "ttft_content_s": None,
    }
    assert parse_record(json.dumps(failed).encode()).ttft_s == 599.0


def test_a_located_error_in_a_folder_named_with_a_newline_is_one_line(reference_decision: Path, run_cli) -> None:
    hostile = reference_decision.rename(reference_decision.with_name("ref\nerence\tfolder"))
    bundle = hostile / "cache-layout"
    lines = _lines(bundle)
    line_no, message = _run_counts(lines)
    _write(bundle, lines)
    result = run_cli("analyze", hostile)
    assert result.code == 2 and result.err.count("\n") == 1
    shown = str(bundle / JOURNAL).replace("\n", "\\n").replace("\t", "\\t")
    assert result.err == f"evidence-kit: {shown}:{line_no}: {message}\n"
