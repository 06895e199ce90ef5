"""Assemble imported result files into the raw evidence of one A/B/A trial, inside a decision folder.

Each phase's files are its repetitions, in the order given; each file's groups (concurrency levels, in
the file's order) are that repetition's runs. Every file must hold the same concurrency levels in the
same order. A group's ``input_nominal`` is the median prompt tokens the files record for it, over every
file (so every arm's group has the same key). The recorded (input, concurrency) pairs are the trial's
groups, never their product: a sweep whose levels differ in prompt size writes them as the workload's
``cells``, so no group that never ran is planned (and then counted as not completed); ``requests_per_run`` is the most timed requests any
imported run holds. The journals are written by the collector's own :class:`JournalWriter`, so each
record is validated against the contract as it is queued, and the folder is written whole or not at all.
"""

from __future__ import annotations

import re
import shutil
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tomli_w

from ..canonical import canonical_json
from ..collect.journal_writer import JournalWriter
from ..errors import BadInput
from ..fsutil import atomic_write
from ..model import DecisionRule, DeclaredRule, Trial
from ..read import load_decision
from .source import ImportedFile, ImportedGroup, ImportedRequest

__all__ = ["assemble", "TOOL_NAMES", "DEFAULT_RULE"]

TOOL_NAMES = {"vllm-bench-serve": "vllm bench serve", "guidellm": "GuideLLM", "aiperf": "AIPerf", "inference-perf": "inference-perf"}
# The reference decision's rule, 10 % lower pooled median end-to-end latency against both controls, any group, judged
# as a new trial's rule is (statistics 4: the whole interval beyond the threshold, Holm over the groups).
DEFAULT_RULE = DeclaredRule(metric="e2e_s", statistic="median", min_improvement=0.10, against="both-controls", promote_if="any-group")
ARMS = (("before", "original", "control"), ("candidate", "candidate", "candidate"), ("restored", "original", "control"))


def _check_shape(phases: dict[str, list[ImportedFile]], concurrency: int | None) -> list[int]:
    """The concurrency levels every file holds, in order; a located :class:`BadInput` otherwise."""
    every = [f for files in phases.values() for f in files]
    _check_distinct(every)
    counts = {phase: len(files) for phase, files in phases.items()}
    if len(set(counts.values())) != 1:
        raise BadInput("each phase needs the same number of files, one per repetition: " + ", ".join(f"{n} {phase}" for phase, n in counts.items()))
    first = every[0]
    for f in every:
        if f.tool != first.tool:
            raise BadInput(
                f"is {_a(TOOL_NAMES[f.tool])} file, but {first.path} is {_a(TOOL_NAMES[first.tool])} "
                "file: one trial compares one client's measurements",
                f.path,
            )
        if len(f.groups) != len(first.groups):
            raise BadInput(
                f"holds {len(f.groups)} group(s), but {first.path} holds {len(first.groups)}: every file "
                "of a trial runs the same levels in the same order",
                f.path,
            )
    _settle_concurrency(every, concurrency)
    levels = [g.concurrency for g in first.groups]
    if len(set(levels)) != len(levels):
        raise BadInput(f"holds two groups at concurrency {levels}: evidence-kit compares one group per concurrency level", first.path)
    for f in every:
        mine = [g.concurrency for g in f.groups]
        if mine != levels:
            raise BadInput(
                f"holds concurrency levels {mine}, but {first.path} holds {levels}: every file of a trial runs the same levels in the same order",
                f.path,
            )
    return levels


def _check_distinct(every: list[ImportedFile]) -> None:
    """No file read twice: the same bytes for two repetitions or phases would count their requests twice."""
    seen: dict[str, Path] = {}
    for src in (src for f in every for src in f.sources()):
        if src.sha256 in seen:
            raise BadInput(
                f"has the same bytes as {seen[src.sha256]}: each arm and repetition is its own "
                "measurement, and a file counted twice would count its requests twice",
                src.path,
            )
        seen[src.sha256] = src.path


def _settle_concurrency(every: list[ImportedFile], concurrency: int | None) -> None:
    """Give the groups of files that do not record their concurrency (``observed``: the most requests they
    had in flight at once) one level: ``concurrency`` where given (no file may exceed it), else the most any
    file of the trial had in flight, never more than was declared or seen. Levels combined from one-level
    runs (AIPerf at several concurrencies) keep each run's own."""
    first = every[0]
    observed = all(g.observed for f in every for g in f.groups)
    if not observed:
        if concurrency is not None:
            raise BadInput(
                f"records its concurrency ({first.groups[0].where}): --concurrency is only for files that "
                "do not (AIPerf records, inference-perf reports)",
                first.path,
            )
        return
    if any(len(f.groups) > 1 for f in every):
        if concurrency is not None:
            raise BadInput(f"holds {len(first.groups)} concurrency levels: --concurrency names one level", first.path)
        return
    _one_level(every, concurrency)


def _one_level(every: list[ImportedFile], concurrency: int | None) -> None:
    """Every observed group at ``concurrency`` (none may exceed it), else at the most any had in flight."""
    groups = [g for f in every for g in f.groups]
    most = max(g.concurrency for g in groups)
    if concurrency is not None and most > concurrency:
        over = next(f for f in every if any(g.concurrency == most for g in f.groups))
        raise BadInput(f"had {most} requests in flight at once, more than --concurrency {concurrency}", over.path)
    for g in groups:
        g.concurrency = concurrency or most


def _a(name: str) -> str:
    return ("an " if name[0].lower() in "aeiou" else "a ") + name


def _nominal(files: list[ImportedFile], index: int) -> int:
    prompt = [r.prompt_tokens for f in files for r in f.groups[index].requests if r.prompt_tokens is not None]
    if not prompt:
        raise BadInput(f"records no prompt tokens for {files[0].groups[index].where}: a group needs its input size", files[0].path)
    return max(1, round(statistics.median(prompt)))


def _trial(trial_id: str, title: str, rule: DecisionRule, groups: list[tuple[int, int]], reps: int, per_run: int, workload: dict[str, Any]) -> Trial:
    arms = [
        {
            "seq": seq,
            "arm": arm,
            "role": role,
            "phase": phase,
            "journal": f"journals/{seq:02d}-{arm}-{phase}.jsonl",
            "label": "Candidate" if role == "candidate" else "Original",
        }
        for seq, (phase, arm, role) in enumerate(ARMS, start=1)
    ]
    return Trial.model_validate(
        {
            "schema": "evidence-kit/trial/v1",
            "trial_id": trial_id,
            "title": title,
            "engine_kind": "openai-compatible",
            "decision_rule": rule.model_dump(),
            "arms": arms,
            "workload": {
                "input_nominal": sorted({i for i, _ in groups}),
                "concurrency": sorted({c for _, c in groups}),
                **({} if _is_product(groups) else {"cells": [list(g) for g in groups]}),
                "repetitions": reps,
                "requests_per_run": per_run,
                **workload,
            },
        }
    )


def _is_product(groups: list[tuple[int, int]]) -> bool:
    """Whether the recorded (input, concurrency) pairs are every pairing of their inputs and concurrencies,
    in plan order (inputs outer): only then may the workload leave out ``cells``."""
    inputs, levels = sorted({i for i, _ in groups}), sorted({c for _, c in groups})
    return groups == [(i, c) for i in inputs for c in levels]


def _journal(path: Path, trial: Trial, seq: int, files: list[ImportedFile], keys: list[tuple[int, int]]) -> None:
    ref = trial.arms[seq - 1]
    writer = JournalWriter(path)
    first = files[0]
    private = {"imported_files": [src.private for f in files for src in f.sources()]}
    writer.add(
        {
            "type": "header",
            "schema": "evidence-kit/journal/v1",
            "trial_id": trial.trial_id,
            "arm": ref.arm,
            "phase": ref.phase,
            "seq": seq,
            "started_at": first.started_at or "not recorded",
            **({"engine": engine} if (engine := next((src.engine for f in files for src in f.sources() if src.engine), None)) else {}),
            "imported": {
                "tool": first.tool,
                "format": first.format,
                "not_recorded": first.not_recorded,
                "files": [{"sha256": src.sha256, "version": src.version} for f in files for src in f.sources()],
            },
            "private": private,
        }
    )
    warm = [0]  # warmup requests of the whole arm, numbered in order
    for rep, f in enumerate(files, start=1):
        for index, ((nominal, concurrency), group) in enumerate(zip(keys, f.groups)):
            try:
                _run(writer, rep, nominal, concurrency, group, warm)
            except _Refused as err:  # a record the contract refuses (times out of order, ...): the file's fault
                named = f", {err.request.name}" if err.request.name else ""
                raise BadInput(f"{group.where}{named}: {err.message}", f.source_of(index).path, err.request.line) from None
    writer.footer(ended_at="not recorded")
    writer.commit()


class _Refused(Exception):
    """A request of an imported file that the journal contract refuses, with the request (where the file has it)."""

    def __init__(self, message: str, request: ImportedRequest):
        super().__init__(message)
        self.message, self.request = message, request


def _run(writer: JournalWriter, rep: int, nominal: int, concurrency: int, group: ImportedGroup, warm: list[int]) -> None:
    run = f"r{rep}-{nominal}-c{concurrency}"
    starts = [r.start_s for r in group.requests if r.start_s is not None]
    origin = min(starts) if starts else 0.0
    timed = ok = 0
    for r in group.requests:
        base = {
            "type": "request",
            "input_nominal": nominal,
            "concurrency": concurrency,
            "warmup": r.warmup,
            "ok": r.ok,
            "error": r.error,
            "prompt_tokens": r.prompt_tokens,
            "completion_tokens": r.completion_tokens,
            "e2e_s": r.e2e_s,
            "ttft_s": r.ttft_s,
            "ttft_content_s": r.ttft_content_s,
            "finish_reason": None,
        }
        if r.warmup:
            base.update(run="warmup", repetition=0, index=warm[0])
            warm[0] += 1
        else:
            base.update(run=run, repetition=rep, index=timed)
            timed += 1
            ok += int(r.ok)
        if r.start_s is not None:
            base["t_send_s"] = round(r.start_s - origin, 6)
        if r.itl_us is not None:
            base["itl_us"] = r.itl_us
        try:
            writer.add(base)
        except BadInput as err:
            raise _Refused(err.message, r) from None
    writer.add(
        {
            "type": "run",
            "run": run,
            "repetition": rep,
            "input_nominal": nominal,
            "concurrency": concurrency,
            "requests": timed,
            "ok": ok,
            "reconciled": None,
            "counters": None,
        }
    )


def assemble(
    phases: dict[str, list[ImportedFile]],
    out: Path,
    *,
    rule: DecisionRule,
    trial_id: str,
    title: str,
    decision_id: str,
    date: str,
    workload: dict[str, Any],
    concurrency: int | None = None,
) -> Path:
    """Write ``out`` (a decision folder holding one trial, ``trial_id``) from the imported files; nothing is
    left behind when anything is refused. Returns the trial folder."""
    levels = _check_shape(phases, concurrency)
    every = [f for files in phases.values() for f in files]
    keys = [(_nominal(every, i), c) for i, c in enumerate(levels)]
    if len(set(keys)) != len(keys):
        raise BadInput(f"two groups share input and concurrency {keys}", every[0].path)
    per_run = max(sum(not r.warmup for r in g.requests) for f in every for g in f.groups)
    if per_run == 0:
        raise BadInput("holds no timed requests", every[0].path)
    trial = _trial(trial_id, title, rule, keys, len(phases["before"]), per_run, workload)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise BadInput("output folder exists and is not empty", out)
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        folder = work / trial_id
        atomic_write(
            folder / "trial.json", canonical_json(trial.model_dump(mode="json", by_alias=True, exclude_none=True), sort_keys=False, ascii_only=True)
        )
        for seq, (phase, _, _) in enumerate(ARMS, start=1):
            _journal(folder / trial.arms[seq - 1].journal, trial, seq, phases[phase], keys)
        names = ", ".join(sorted({TOOL_NAMES[f.tool] for f in every}))
        decision = {
            "id": decision_id,
            "date": date,
            "title": title,
            "trials": [trial_id],
            "setup": {"measurement_path": f"Imported from {names} result files (evidence-kit import); the client's own timings, as it recorded them"},
        }
        atomic_write(work / "decision.toml", tomli_w.dumps(decision).encode())
        try:
            load_decision(work)  # what analyze and build will read must read back
        except BadInput as err:
            raise _located(err, folder, trial, phases) from None
        if out.exists():
            out.rmdir()
        work.rename(out)
    finally:
        if work.exists():
            shutil.rmtree(work)
    return out / trial_id


def _located(err: BadInput, folder: Path, trial: Trial, phases: dict[str, list[ImportedFile]]) -> BadInput:
    """A refusal of the journals written, read back, as one of the result file they came from (the journal is
    temporary): the phase's file of the run's repetition, where the message names one."""
    for ref in trial.arms:
        if err.path == str(folder / ref.journal):
            files = phases[ref.phase]
            rep = re.search(r"'r([0-9]+)-", err.message)
            index = int(rep.group(1)) - 1 if rep else 0 if len(files) == 1 else None
            if index is not None and 0 <= index < len(files):
                return BadInput(err.message, files[index].path)
            return BadInput(f"{err.message} (one of {', '.join(str(f.path) for f in files)})")
    return err


def phase_files(before: Sequence[ImportedFile], candidate: Sequence[ImportedFile], restored: Sequence[ImportedFile]) -> dict[str, list[ImportedFile]]:
    return {"before": list(before), "candidate": list(candidate), "restored": list(restored)}
