"""The journal contract, as the auditor checks it: the reader's checks plus cross-record ones.

:class:`~evidence_kit.read.JournalReader` already enforces, line by line, the
schema, the header/footer order, run counts and footer counts. Here the loaded
arms are cross-checked for what a line-by-line reader cannot see: warmup kept
apart from timed runs, and every run made of the requests it claims.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from ..model.evidence import ArmEvidence, DecisionEvidence, TrialEvidence
from ..model.journal import Request
from ..read import load_any

__all__ = ["Evidence", "discover_evidence", "arm_problems", "evidence_problems", "load_evidence"]

Evidence = DecisionEvidence | TrialEvidence


def discover_evidence(root: Path, files: list[str]) -> list[str]:
    """Folders (relative, '' for the root) holding a decision, or a trial no decision here names.

    ``files`` are the folder's regular files as relative paths. A trial bundle
    inside a decision folder is verified as part of that decision.
    """
    def parent(path: str) -> str:
        return path.rsplit("/", 1)[0] if "/" in path else ""

    decisions = {parent(f) for f in files if f.rsplit("/", 1)[-1] == "decision.toml"}
    trials = {parent(f) for f in files if f.rsplit("/", 1)[-1] == "trial.json"}
    units = decisions | {t for t in trials if not (t and parent(t) in decisions)}
    return sorted(set(units))


def arm_problems(arm: ArmEvidence, requests_per_run: int) -> list[str]:
    """What is wrong with one arm's runs and warmup, one sentence each."""
    problems: list[str] = []
    runs = {run.run: run for run in arm.runs}
    timed_by_run: dict[str, list[Request]] = defaultdict(list)
    warmup_runs: set[str] = set()
    for request in arm.requests:
        if request.warmup:
            warmup_runs.add(request.run)
        else:
            timed_by_run[request.run].append(request)
    for name in sorted(warmup_runs & set(runs)):
        problems.append(f"warmup requests share run {name!r} with timed requests (warmup must stay separate)")
    for name, requests in sorted(timed_by_run.items()):
        run = runs.get(name)
        if run is None:
            problems.append(f"{len(requests)} timed request(s) of run {name!r} have no run record")
            continue
        cells = {(r.repetition, r.input_nominal, r.concurrency, r.rate) for r in requests}
        if cells != {(run.repetition, run.input_nominal, run.concurrency, run.rate)}:
            problems.append(
                f"run {name!r} is recorded as repetition {run.repetition}, group ({run.input_nominal}, "
                f"{run.load}) but holds requests of {sorted((c[0], c[1], c[2] or c[3]) for c in cells)}"
            )
        indices = [r.index for r in requests]
        if len(set(indices)) != len(indices):
            problems.append(f"run {name!r} repeats a request index")
        turns = [(r.conversation, r.turn) for r in requests if r.turn is not None]
        if len(set(turns)) != len(turns):
            problems.append(f"run {name!r} repeats a turn of a conversation")
        if len(requests) > requests_per_run:
            problems.append(f"run {name!r} holds {len(requests)} timed requests; the plan allows {requests_per_run}")
    seen: dict[tuple[int, int, int | float], str] = {}
    for run in arm.runs:
        cell = (run.repetition, run.input_nominal, run.load)
        if cell in seen:
            problems.append(f"runs {seen[cell]!r} and {run.run!r} both claim repetition {cell[0]} of group {cell[1:]}")
        seen[cell] = run.run
    return problems


def evidence_problems(evidence: Evidence) -> list[tuple[str, str]]:
    """``(journal path, problem)`` for every arm of every trial in ``evidence``."""
    trials = [evidence] if isinstance(evidence, TrialEvidence) else evidence.trials
    out: list[tuple[str, str]] = []
    for trial in trials:
        for arm in trial.arms:
            where = str(Path(trial.source) / arm.ref.journal)
            out += [(where, p) for p in arm_problems(arm, trial.trial.workload.timed_per_run)]
    return out


def load_evidence(root: Path, folder: str) -> Evidence:
    """Load one evidence unit (raises :class:`~evidence_kit.errors.BadInput` with file and line)."""
    return load_any(root / folder if folder else root)
