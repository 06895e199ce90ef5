"""Several one-level runs of a phase at different concurrencies, combined into repetitions of a sweep.

AIPerf (like inference-perf and ``vllm bench serve``) runs one concurrency per invocation, so a sweep over
concurrency 1 and 4 is two runs, two files. Given as one phase's files, the runs at different levels are
the groups of one repetition, and the runs at one level its repetitions, in the order given: the k-th
run at each level together make repetition k. Every level needs the same number of runs.
"""

from __future__ import annotations

from ..errors import BadInput
from .source import ImportedFile

__all__ = ["combine_levels"]


def combine_levels(files: list[ImportedFile], phase: str) -> list[ImportedFile]:
    """``files`` as the phase's repetitions: as they are, unless each holds one level and they hold more
    than one level between them; then one combined file per repetition, its groups ordered by concurrency."""
    if len(files) < 2 or any(len(f.groups) != 1 for f in files):
        return files
    by_level: dict[int, list[ImportedFile]] = {}
    for f in files:
        by_level.setdefault(f.groups[0].concurrency, []).append(f)
    if len(by_level) == 1:
        return files
    levels = sorted(by_level)
    counts = {c: len(by_level[c]) for c in levels}
    if len(set(counts.values())) != 1:
        said = ", ".join(f"{n} at concurrency {c}" for c, n in counts.items())
        raise BadInput(
            f"the {phase} files run {said}: a sweep's repetition runs every level once, so every level needs the same number of files",
            by_level[levels[0]][0].path,
        )
    for level in levels[1:]:
        if {f.tool for f in by_level[level]} != {f.tool for f in by_level[levels[0]]}:
            return files  # mixed clients: the shape check names them
    return [_repetition([by_level[c][rep] for c in levels]) for rep in range(counts[levels[0]])]


def _repetition(parts: list[ImportedFile]) -> ImportedFile:
    """One repetition made of one-level files, in order of concurrency."""
    first = parts[0]
    return ImportedFile(
        path=first.path,
        sha256=first.sha256,
        tool=first.tool,
        version=first.version,
        format=first.format,
        not_recorded=list(dict.fromkeys(item for p in parts for item in p.not_recorded)),
        groups=[p.groups[0] for p in parts],
        private=first.private,
        started_at=min((p.started_at for p in parts if p.started_at), default=None),
        engine=first.engine,
        parts=parts,
    )
