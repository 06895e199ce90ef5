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
from ..model.failures import NOT_SENT, failure_code
from ..model.journal import Request
from ..read import load_any

__all__ = ["Evidence", "discover_evidence", "arm_problems", "conversation_problems", "evidence_problems", "load_evidence"]

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


# How far a turn's send may precede its previous turn's end in the journal: both are rounded to the microsecond.
_ROUNDING_S = 2e-6


def _turn_problems(name: str, conversation: int, turns: list[Request], planned: int) -> list[str]:
    """What contradicts one conversation's order (docs/contract.md): turns 1 .. ``planned`` each once, at the
    index and key the collector gives them; a failed turn's later turns not sent (no send time, no duration, no
    usage) and no turn "not sent" after an ok one; each turn sent after the previous one's answer ended."""
    where = f"run {name!r} conversation {conversation}"
    numbers = sorted(r.turn or 0 for r in turns)
    if numbers != list(range(1, len(numbers) + 1)) or len(numbers) != planned:
        return [f"{where} holds turns {numbers}, not each of 1..{planned} once"]
    out: list[str] = []
    ordered = sorted(turns, key=lambda r: r.turn or 0)
    failed: int | None = None  # the turn that ended the conversation
    for previous, r in zip([None, *ordered], ordered):
        turn = r.turn or 0
        at = f"{where} turn {turn}"
        if r.index != conversation * planned + turn - 1:
            out.append(f"{at} has index {r.index}; the collector gives it {conversation * planned + turn - 1}")
        key = f"{name}/{conversation}" + ("" if turn == 1 else f"/turn{turn}")
        if r.key is not None and r.key != key:
            out.append(f"{at} has key {r.key!r}; its prompt's key is {key!r}")
        unsent = r.error is not None and failure_code(r.error) == NOT_SENT  # a raw journal's reason, or a bundle's code
        if failed is not None:
            if not unsent or r.ok:
                out.append(f"{at} is journalled as sent, yet turn {failed} ended the conversation")
            elif (
                r.t_send_s is not None
                or r.e2e_s is not None
                or r.ttft_s is not None
                or r.http_status is not None
                or r.prompt_tokens is not None
                or r.completion_tokens
            ):
                out.append(f"{at} was not sent, yet has a send time, a duration, a status or tokens")
            continue
        if unsent:
            out.append(f"{at} is journalled as not sent, yet no earlier turn failed")
            failed = turn
            continue
        if not r.ok:
            failed = turn
        if previous is not None and previous.ok and None not in (r.t_send_s, previous.t_send_s, previous.e2e_s):
            ended = (previous.t_send_s or 0.0) + (previous.e2e_s or 0.0)
            if (r.t_send_s or 0.0) < ended - _ROUNDING_S:
                out.append(f"{at} was sent at {r.t_send_s:.6f} s, before turn {turn - 1}'s answer ended at {ended:.6f} s")
    return out


def conversation_problems(name: str, requests: list[Request], turns: int) -> list[str]:
    """What contradicts the conversations of one run of a multi-turn workload, one sentence each."""
    by_conversation: dict[int, list[Request]] = defaultdict(list)
    for r in requests:
        if r.conversation is not None:
            by_conversation[r.conversation].append(r)
    return [p for c, rs in sorted(by_conversation.items()) for p in _turn_problems(name, c, rs, turns)]


def arm_problems(arm: ArmEvidence, requests_per_run: int, turns: int | None = None) -> list[str]:
    """What is wrong with one arm's runs and warmup, one sentence each (``turns``: a multi-turn workload's, whose
    conversations are checked against their order)."""
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
        pairs = [(r.conversation, r.turn) for r in requests if r.turn is not None]
        if len(set(pairs)) != len(pairs):
            problems.append(f"run {name!r} repeats a turn of a conversation")
        elif turns is not None:
            problems += conversation_problems(name, requests, turns)
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
            out += [(where, p) for p in arm_problems(arm, trial.trial.workload.timed_per_run, trial.trial.workload.turns)]
    return out


def load_evidence(root: Path, folder: str) -> Evidence:
    """Load one evidence unit (raises :class:`~evidence_kit.errors.BadInput` with file and line)."""
    return load_any(root / folder if folder else root)
