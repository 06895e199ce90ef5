"""Every command, fed empty, failed and half-written evidence, says what is wrong in one line naming the file (and
line), exits 1 or 2 as docs/cli.md documents, prints no traceback and writes nothing; and a trial that could not
run (an arm whose start command exits 127, requests that all fail) is a failure said loudly, never a result.

The failed trials are collected for real, from `evidence-kit sim` engines started by the plans' own start
commands; the half-written ones are cut from a trial that ran.
"""

from __future__ import annotations

import contextlib
import io
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

import evidence_kit
from evidence_kit.cli import COMMANDS, main
from evidence_kit.errors import BadInput
from tests.collect.conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow

WORKLOAD = {"concurrency": [1], "repetitions": 2, "requests_per_run": 2, "max_tokens": 16, "warmup_requests": 0}
NOT_FOUND = {"start": "exec no-such-engine --port {port}"}  # /bin/sh: exec: no-such-engine: not found, status 127
PLANS: dict[str, dict[str, Any]] = {
    "ran": {},
    "all-failed": {
        "arms": {
            "original": sim_arm("original", extra="--fault http-500=1"),
            "layout": sim_arm("layout-candidate", extra="--fault http-500=1", label="Layout"),
        },
        "gates": [],
    },
    "no-start": {"arms": {"original": {**sim_arm("original"), **NOT_FOUND}, "layout": {**sim_arm("layout-candidate", label="Layout"), **NOT_FOUND}}},
    "partial": {"arms": {"original": sim_arm("original"), "layout": {**sim_arm("layout-candidate", label="Layout"), **NOT_FOUND}}},
}
DECISION = 'id = "2026-01-01-{name}"\ndate = "2026-01-01"\ntitle = "Decision {name}"\ntrials = ["t-small"]\n'
JOURNALS = "t-small/journals"


@dataclass
class Ran:
    code: int
    out: str
    err: str


def _run(*args: str | Path) -> Ran:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])  # an uncaught exception (a traceback) fails the test here
    return Ran(code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module")
def collected(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Ran]]:
    """Each plan of PLANS collected by `evidence-kit collect` into a decision folder: (folder, what collect said)."""
    root = tmp_path_factory.mktemp("collected")
    out: dict[str, tuple[Path, Ran]] = {}
    for name, fields in PLANS.items():
        folder = root / name
        folder.mkdir()
        (folder / "decision.toml").write_text(DECISION.format(name=name))
        plan = write_plan(root / f"{name}.toml", workload=WORKLOAD, **fields)
        out[name] = (folder, _run("collect", plan, "--out", folder / "t-small", "-q"))
    return out


def _copy(collected: dict[str, tuple[Path, Ran]], name: str, to: Path) -> Path:
    shutil.copytree(collected[name][0], to)
    return to


def _bad_evidence(collected: dict[str, tuple[Path, Ran]], root: Path) -> dict[str, tuple[Path, str]]:
    """Each case: (the folder a command is given, the location its message must name)."""
    cases: dict[str, tuple[Path, str]] = {}
    (root / "empty").mkdir()
    cases["empty folder"] = (root / "empty", "empty")
    d = _copy(collected, "ran", root / "trial-only")
    for part in ("journals", "telemetry", "logs"):
        shutil.rmtree(d / "t-small" / part)
    cases["trial.json only"] = (d, f"{JOURNALS}/01-original-before.jsonl")
    d = _copy(collected, "ran", root / "header-only")
    for journal in (d / JOURNALS).iterdir():
        journal.write_bytes(journal.read_bytes().splitlines(keepends=True)[0])
    cases["journals with a header only"] = (d, f"{JOURNALS}/01-original-before.jsonl:1")
    cases["every request failed"] = (_copy(collected, "all-failed", root / "all-failed"), f"{JOURNALS}/01-original-before.jsonl")
    cases["no arm could start"] = (_copy(collected, "no-start", root / "no-start"), f"{JOURNALS}/01-original-before.jsonl")
    d = _copy(collected, "ran", root / "cut")
    journal = d / JOURNALS / "02-layout-candidate.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    journal.write_bytes(b"".join(lines[:6]) + lines[6][: len(lines[6]) // 2])
    cases["a journal cut mid-line"] = (d, f"{JOURNALS}/02-layout-candidate.jsonl:7")
    d = _copy(collected, "ran", root / "not-utf8")
    journal = d / JOURNALS / "01-original-before.jsonl"
    lines = journal.read_bytes().splitlines(keepends=True)
    lines[3] = lines[3].rstrip(b"}\n") + b',"note":"caf\xe9"}\n'
    journal.write_bytes(b"".join(lines))
    cases["a journal line that is not UTF-8"] = (d, f"{JOURNALS}/01-original-before.jsonl:4")
    d = _copy(collected, "ran", root / "toml-not-utf8")
    (d / "decision.toml").write_bytes(DECISION.format(name="x").replace("Decision", "D\xe9cision").encode("latin-1"))
    cases["a decision.toml that is not UTF-8"] = (d, "decision.toml:3")
    d = root / "missing-trials"
    d.mkdir()
    shutil.copy(collected["ran"][0] / "decision.toml", d)
    cases["a decision folder whose trials are missing"] = (d, "decision.toml")
    return cases


CASES = [
    "empty folder",
    "trial.json only",
    "journals with a header only",
    "every request failed",
    "no arm could start",
    "a journal cut mid-line",
    "a journal line that is not UTF-8",
    "a decision.toml that is not UTF-8",
    "a decision folder whose trials are missing",
]
# Found by verify's contract check, which fails (exit 1) and lists each violation at its file and line.
CONTRACT_VIOLATIONS = {
    "trial.json only",
    "journals with a header only",
    "a journal cut mid-line",
    "a journal line that is not UTF-8",
    "a decision.toml that is not UTF-8",
    "a decision folder whose trials are missing",
}


@pytest.fixture(scope="module")
def bad(collected: dict[str, tuple[Path, Ran]], tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    return _bad_evidence(collected, tmp_path_factory.mktemp("bad"))


def _one_line(ran: Ran, where: str) -> None:
    assert ran.err.count("\n") == 1 and ran.err.startswith("evidence-kit: "), ran.err
    assert where in ran.err, (where, ran.err)


def _first_journal(path: Path) -> Path:
    journals = sorted((path / JOURNALS).glob("*.jsonl")) if (path / JOURNALS).is_dir() else []
    return journals[0] if journals else path


def _invocations(path: Path, out: Path, plan: Path) -> dict[str, list[str | Path]]:
    """How each command is given the evidence (a command given none is fed bad files below)."""
    journal = _first_journal(path)
    return {
        "analyze": ["analyze", path],
        "power": ["power", path],
        "export": ["export", path, "--out", out],
        "redact": ["redact", path, "--out", out],
        "build": ["build", path, "--out", out],
        "verify": ["verify", path],
        "scan": ["scan", path],
        "serve": ["serve", path, "--port", "0"],
        "import": ["import", "--before", journal, "--candidate", journal, "--restored", journal, "--out", out],
        "collect": ["collect", plan, "--out", path],
        "demo": ["demo", "--out", path],
    }


@pytest.mark.parametrize("case", CASES)
def test_every_command_fed_bad_evidence_says_so_in_one_line_and_writes_nothing(case: str, bad: dict[str, tuple[Path, str]], tmp_path: Path) -> None:
    path, where = bad[case]
    plan = write_plan(tmp_path / "plan.toml", workload=WORKLOAD)
    codes = {}
    for command, args in _invocations(path, tmp_path / "out", plan).items():
        if case == "empty folder" and command in ("collect", "demo"):
            continue  # an empty folder is where these two write: they would run, as asked
        ran = _run(*args)
        codes[command] = ran.code
        assert "Traceback" not in ran.err + ran.out, (command, ran.err)
        assert not (tmp_path / "out").exists(), f"{command} wrote {tmp_path / 'out'}"
        if command == "scan":
            # A leak scan judges what it reads, not the evidence: raw evidence holds private values (exit 1).
            assert ran.code in (0, 1), (command, ran.err)
        elif command == "verify" and case in CONTRACT_VIOLATIONS:
            assert ran.code == 1 and "FAIL contract" in ran.out and where in ran.out, ran.out
        elif command in ("analyze", "power", "export", "redact", "build", "verify"):
            assert ran.code == 2, (command, ran.out, ran.err)
            _one_line(ran, where)
        else:
            # serve, import, collect and demo name what they were given: the folder, or the journal as a result file.
            assert ran.code == 2, (command, ran.out, ran.err)
            _one_line(ran, str(_first_journal(path) if command == "import" else path))
    assert set(codes) | {"collect", "demo"} >= set(COMMANDS) - {"keygen", "schema", "sim"}


@pytest.mark.parametrize("damage", ["empty", "not UTF-8", "cut mid-line"])
def test_the_commands_that_read_a_file_not_evidence_refuse_a_bad_one_in_one_line(damage: str, tmp_path: Path) -> None:
    # collect reads a plan, sim a profile; keygen and schema write into a folder, refused when it is a file.
    plan = write_plan(tmp_path / "plan.toml", workload=WORKLOAD).read_bytes()
    profile = (Path(__file__).resolve().parent.parent / "evidence_kit/engine_sim/profiles/original.toml").read_bytes()
    for command, text in (("collect", plan), ("sim", profile)):
        bad = tmp_path / f"{command}.toml"
        bad.write_bytes({"empty": b"", "not UTF-8": text[:40] + b"\xff" + text[40:], "cut mid-line": text[: text.index(b"\n", 200) - 5]}[damage])
        ran = _run(command, bad, "--out", tmp_path / "raw") if command == "collect" else _run(command, "--profile", bad)
        assert ran.code == 2 and "Traceback" not in ran.err, ran.err
        assert ran.err.startswith(f"evidence-kit: {bad}") and all(line.startswith(f"evidence-kit: {bad}") for line in ran.err.splitlines()), ran.err
    for command in ("keygen", "schema"):
        ran = _run(command, "--out", tmp_path / "plan.toml")
        assert ran.code == 2 and ran.err.count("\n") == 1 and "plan.toml" in ran.err, ran.err


def test_a_trial_whose_arms_could_not_start_fails_collect_naming_each_arm_and_its_engine_log(collected) -> None:
    folder, ran = collected["no-start"]
    assert ran.code == 1
    for seq, arm, phase in ((1, "original", "before"), (2, "layout", "candidate"), (3, "original", "restored")):
        assert f"{seq:02d} {arm} ({phase}): FAILED" in ran.out
        assert f"  {phase} arm: check ready failed: start command exited with status 127 before ready" in ran.out
        log = folder / "t-small" / "logs" / f"{seq:02d}-{arm}-{phase}.log"
        assert f"  its engine's log, last lines ({log}):" in ran.out
    assert ran.out.count("no-such-engine: not found") == 3  # each log's last line, as /bin/sh wrote it
    assert "Next (docs/cli.md)" not in ran.out and "evidence-kit redact" not in ran.out
    assert "collection FAILED" in ran.out.splitlines()[-1]


def test_a_trial_whose_every_request_failed_fails_collect_and_is_refused_by_analyze(collected) -> None:
    folder, ran = collected["all-failed"]
    assert ran.code == 1 and "Next (docs/cli.md)" not in ran.out
    assert ran.out.count("none of its 4 timed requests completed") == 3
    analyzed = _run("analyze", folder)
    assert analyzed.code == 2 and analyzed.out == ""
    assert "no timed request completed in any arm of trial 't-small'" in analyzed.err
    assert "all 4 of its timed requests failed (the first: " in analyzed.err
    # The library refuses it too, with the command's own line: evidence_kit.open is what analyze reads with.
    with pytest.raises(BadInput) as refused:
        evidence_kit.open(folder)
    assert analyzed.err == f"evidence-kit: {refused.value}\n"


def test_a_trial_whose_candidate_could_not_start_is_published_as_incomplete_not_as_dashes(collected, tmp_path: Path) -> None:
    folder, ran = collected["partial"]
    assert ran.code == 1 and "02 layout (candidate): FAILED" in ran.out and "01 original (before): ok" in ran.out
    assert "no-such-engine: not found" in ran.out and "Next (docs/cli.md)" not in ran.out
    incomplete = "The trial is incomplete: the candidate arm completed none of its 4 planned timed requests, so no group has a comparison."
    analyzed = _run("analyze", folder)
    assert analyzed.code == 0 and incomplete in analyzed.out
    findings = analyzed.out[analyzed.out.index("Group verdicts:") :].splitlines()
    assert findings[1] == f"- {incomplete} The candidate cannot be promoted."  # the first finding the page lists
    assert _run("redact", folder, "--out", tmp_path / "redacted").code == 0
    built = _run("build", tmp_path / "redacted", "--out", tmp_path / "site")
    assert built.code == 0, built.err
    page = (tmp_path / "site" / "site" / "decisions" / "2026-01-01-partial" / "index.md").read_text()
    assert incomplete in page
    # Said in a warning box at the top of the trial's results, not only as a finding line further down.
    results = page[page.index(": results\n") :]
    assert results.split("\n\n")[1] == f'!!! danger "Incomplete trial"\n    {incomplete} The candidate cannot be promoted.'
    assert "the trial is incomplete" in page.split("\n\n")[2]  # and in the outcome, the page's first box
    verified = _run("verify", tmp_path / "site", "--allow-unpinned")
    assert verified.code == 0, verified.out
