"""Discovery: every private value of raw evidence, found before a byte is rewritten.

One fixed-point loop over the *original* texts, never over output:

1. **Seed** with what is private by declaration: the policy's values, then every
   value under a ``private`` object (harvested file by file, in path order).
2. **Examine** every text the rewrite will touch (file names, JSON string literals,
   lines) with a matcher built from what is known, collecting what each text
   teaches: a value a detector found (a host, an address, a labelled serial) and a
   known value that runs on into a longer one (``gpu-node-1`` inside ``gpu-node-17``).
3. **Repeat** with the grown set until a round teaches nothing new. Only texts
   that hold a spelling learnt in the last round can teach anything new, so later
   rounds re-examine just those; every other text's result stands, and so does
   the cache of results the rewrite reads.

The result is the set of values and the matcher built from it: the rewrite and the
scan only match against that set, they never learn. Rewriting therefore cannot
change what is known half-way, and a value can never get two pseudonyms.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import BadInput
from .harvest import harvest_file, reconcile
from .ledger import Ledger
from .matcher import Examined, Matcher, lowered
from .policy import Policy
from .spellings import Spellings, compile_spellings
from .variants import KnownValue
from .views import views
from .walkers import file_kind, file_texts

__all__ = ["Discovered", "discover", "discover_files", "known_values_from_raw"]

MAX_ROUNDS = 20  # each round must learn something; real evidence settles in two or three


@dataclass
class Discovered:
    """What discovery found: every known value in the order learnt, the final matcher, the rounds
    run, and what its reading of each JSONL file leaves for the rewrite and the scan."""

    values: list[KnownValue]
    matcher: Matcher
    rounds: int
    ledgers: dict[str, Ledger] = field(default_factory=dict)


def discover(
    seed: Iterable[KnownValue],
    texts: Callable[[bool], Iterator[list[str]]],
    *,
    harvested: list[KnownValue] | None = None,
    public: Iterable[str] = (),
    disabled: Iterable[str] = (),
    trust_pseudonyms: bool = False,
    declared: Iterable[KnownValue] = (),
) -> Discovered:
    """The fixed point: ``seed`` grown by what ``texts`` teach until they teach nothing new.

    ``texts(first)`` yields every text to examine, in batches (a line's literals; repeats
    are skipped); on the first round (``first`` true) it may check its input and append
    values it harvests as it reads to ``harvested``, which join the known set before the
    second round. Later rounds read the distinct texts of the first from memory, or call
    ``texts(False)`` again when there were too many to keep.
    """
    public, disabled, declared = list(public), list(disabled), list(declared)
    known: list[KnownValue] = []
    seen: set[KnownValue] = set()

    def extend(values: Iterable[KnownValue]) -> bool:
        """Add the values not known yet, in the order given; true when there was one."""
        fresh = [value for value in values if value not in seen and value.value.strip()]
        for value in fresh:
            if value not in seen:
                seen.add(value)
                known.append(value)
        return bool(fresh)

    extend(seed)
    cache: dict[str, Examined] = {}
    matcher = Matcher(known, public=public, disabled=disabled, trust_pseudonyms=trust_pseudonyms, declared=declared, cache=cache)
    learnt: set[KnownValue] = set()
    distinct = _Distinct()
    for text in distinct.of(texts(True)):
        learnt |= matcher.examine(text).learnt
    rounds = 1
    while extend(sorted(learnt.union(harvested or ()))):
        if rounds >= MAX_ROUNDS:
            raise BadInput(f"discovery did not settle in {MAX_ROUNDS} rounds (each learnt new values)")
        before = set(matcher.table)
        matcher = Matcher(known, public=public, disabled=disabled, trust_pseudonyms=trust_pseudonyms, declared=declared, cache=cache)
        probe = compile_spellings(set(matcher.table) - before)
        rounds += 1
        if probe is None:
            break  # the new values added no spelling (all public or already known): nothing can change
        for text in _mentioning(probe, distinct.kept if distinct.complete else _Distinct().of(texts(False))):
            cache.pop(text, None)  # its result may change with the new spellings
            learnt |= matcher.examine(text).learnt
    return Discovered(known, matcher, rounds)


def _mentioning(probe: Spellings, texts: Iterable[str], chunk: int = 20_000) -> Iterator[str]:
    """The texts in which ``probe`` matches, as written or in a decoded view.

    One search over many texts joined by NUL instead of one search each; a match that
    runs over a join flags every text it touches, so no match can hide behind another.
    """
    batch: list[str] = []
    for text in itertools.chain(texts, [None]):
        if text is not None:
            batch.append(text)
            if len(batch) < chunk:
                continue
        starts = list(itertools.accumulate((len(t) + 1 for t in batch[:-1]), initial=0))
        flagged: set[int] = set()
        for match in probe.finditer("\0".join(lowered(t) for t in batch)):
            first, last = bisect.bisect_right(starts, match.start()) - 1, bisect.bisect_right(starts, match.end() - 1) - 1
            flagged.update(range(first, last + 1))
        for index, item in enumerate(batch):
            if index in flagged or any(probe.search(lowered(view.text)) for view in views(item)):
                yield item
        batch = []


class _Distinct:
    """Each text once (journals repeat the same keys and values on every line), kept for later rounds."""

    LIMIT = 2_000_000

    def __init__(self) -> None:
        self.seen: set[str] = set()
        self.kept: list[str] = []
        self.complete = True  # every distinct text is in ``kept``

    def of(self, batches: Iterator[list[str]]) -> Iterator[str]:
        seen = self.seen
        for batch in batches:
            if seen.issuperset(batch):
                continue  # the common journal line: nothing new in it
            for text in batch:
                if text not in seen:
                    if len(seen) < self.LIMIT:
                        seen.add(text)
                        self.kept.append(text)
                    else:
                        self.complete = False
                    yield text


def discover_files(root: Path, files: list[tuple[str, str]], seed: Iterable[KnownValue], **options: object) -> Discovered:
    """Discovery over files of ``root``: ``(relative path, kind)`` pairs, names included.

    The seed is extended by each JSON file's and each JSONL header's ``private`` values
    (in the order of ``files``); the texts are the names' components and every text
    :func:`~.walkers.file_texts` lists.
    """
    harvested: list[KnownValue] = []
    ledgers = {rel: Ledger() for rel, kind in files if kind == "jsonl"}
    declared = list(seed)
    for rel, kind in sorted(files):
        declared += harvest_file(root / rel, kind)
    declared = reconcile(declared)  # one class per value, whichever file or key named it first

    def texts(first: bool) -> Iterator[list[str]]:
        for rel, _ in files:
            yield rel.split("/")
        for rel, kind in files:
            if kind != "binary":
                yield from file_texts(root / rel, kind, check=first, harvested=harvested if first else None, ledger=ledgers.get(rel))

    discovered = discover(declared, texts, harvested=harvested, **options)  # type: ignore[arg-type]
    discovered.ledgers = ledgers
    return discovered


def known_values_from_raw(raw: Path, policy: Policy | None = None) -> list[KnownValue]:
    """Every private value of a raw trial or decision folder: declared, harvested and discovered.

    For the site builder and ``scan --raw``: the values to hunt for in anything built
    from that evidence. Nothing is written.
    """
    raw = Path(raw)
    if not raw.is_dir():
        raise BadInput("not a folder", raw)
    policy = policy or Policy()
    files = [(p.relative_to(raw).as_posix(), file_kind(p)) for p in sorted(raw.rglob("*")) if p.is_file() and not p.is_symlink()]
    return discover_files(raw, files, policy.known_values(), public=policy.public, disabled=policy.disable, declared=policy.known_values()).values
