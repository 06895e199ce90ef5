"""Which publication this is: its sequence, the decisions it holds, and, given ``--since``, that it follows the one
the auditor saw last (never older, forked or shortened).

``--since STATE`` takes the state file a previous ``verify --save-state`` wrote
(:data:`STATE_SCHEMA`: the publication's digest and sequence, its decisions and
its signer) or a bare publication digest (``sha256:`` and 64 hex digits, the
sha256 of a ``manifest.dsse.json``). The site's signed history
(:mod:`evidence_kit.attest.history`) must then hold that publication at its
sequence: a site at the same or a lower sequence is older (or a fork, if it is
not the same publication); one whose chain names another digest there is a fork;
one that lacks a decision the auditor saw is shortened.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..analyze import Analysis
from ..attest.history import History, parse_history, publication_digest
from ..attest.manifest import ENVELOPE_NAME
from ..canonical import canonical_json
from ..errors import BadInput
from ..fsutil import atomic_write, read_bounded
from .verification import CheckResult, Context, Problem

__all__ = ["STATE_SCHEMA", "Since", "load_since", "check_history", "decisions_verified", "state_bytes"]

STATE_SCHEMA = "evidence-kit/verify-state/v1"
MAX_STATE_BYTES = 16 << 20  # the most a state file may hold (its decision ids): a device or a huge file is refused
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")


@dataclass(frozen=True)
class Since:
    """What the auditor saw last: a publication's digest, and, from a state file, its sequence, decisions, signer."""

    digest: str
    sequence: int | None = None
    decisions: tuple[str, ...] = ()
    key_id: str | None = None
    given: str = ""

    @property
    def shown(self) -> str:
        return f"publication {self.sequence} ({self.digest[:19]}…)" if self.sequence else f"publication {self.digest[:19]}…"


@dataclass
class Publication:
    """What the history check found: this publication's digest and history (``None``: it records none)."""

    digest: str
    history: History | None
    decisions: list[dict[str, str]] = field(default_factory=list)


def load_since(text: str) -> Since:
    """``--since``: a publication digest, or a state file ``verify --save-state`` wrote; bad input raises."""
    if _DIGEST.fullmatch(text.lower()):
        return Since(digest=text.lower(), given=text)
    path = Path(text)
    try:
        data = read_bounded(path, MAX_STATE_BYTES)
    except OSError as err:
        raise BadInput(f"--since: cannot read the state file ({err.strerror}); give a state file or sha256:<64 hex digits>", path) from None
    if data is None:
        raise BadInput(f"--since: larger than {MAX_STATE_BYTES >> 20} MiB: not a state file", path)
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        raise BadInput("--since: not a state file (not JSON)", path) from None
    return _state(doc, path)


def _state(doc: object, path: Path) -> Since:
    """A state file's document, checked field by field."""
    if not isinstance(doc, dict) or doc.get("schema") != STATE_SCHEMA:
        raise BadInput(f"--since: not a state file (no schema {STATE_SCHEMA!r})", path)
    digest, sequence, decisions, key_id = doc.get("publication"), doc.get("sequence"), doc.get("decisions"), doc.get("key_id")
    if not (isinstance(digest, str) and _DIGEST.fullmatch(digest)) or not isinstance(sequence, int) or isinstance(sequence, bool) or sequence < 1:
        raise BadInput("--since: the state file has no publication digest and sequence", path)
    if not isinstance(decisions, list) or not all(isinstance(d, str) for d in decisions) or not (key_id is None or isinstance(key_id, str)):
        raise BadInput("--since: the state file's decisions or key id are malformed", path)
    return Since(digest=digest, sequence=sequence, decisions=tuple(decisions), key_id=key_id, given=str(path))


def decisions_verified(analyses: dict[str, Analysis]) -> list[dict[str, str]]:
    """Each decision the figures check recomputed: id, date and outcome, by id."""
    out = {
        a.decision.id: {"id": a.decision.id, "date": a.decision.date or "", "outcome": a.decision.outcome} for a in analyses.values() if a.decision.id
    }
    return [out[k] for k in sorted(out)]


def _since_problems(ctx: Context, since: Since, current: Publication) -> list[str]:
    """Why this publication does not follow ``since``: older, forked, shortened or signed by another key."""
    history = current.history
    if history is None:
        return [f"the site records no history, so nothing shows it follows {since.shown}"]
    if since.digest == current.digest:
        return []
    if since.sequence is None:
        return [] if since.digest in history.chain else [f"{since.shown} is not in this publication's history: an older, forked or shortened site"]
    problems = []
    if history.sequence <= since.sequence:
        problems.append(f"older: this is publication {history.sequence}, and {since.shown} was seen (a rollback, or a fork)")
    elif (theirs := history.chain[since.sequence - 1]) != since.digest:
        problems.append(f"forked: publication {since.sequence} of this site's history is {theirs[:19]}…, not {since.digest[:19]}… as seen")
    missing = sorted(set(since.decisions) - {d["id"] for d in current.decisions})
    if ctx.unloaded:
        problems.append(f"not checked that every decision of {since.shown} is published here: evidence not loaded (see the contract check)")
    elif missing:
        problems.append(f"shortened: decision(s) {', '.join(missing)} of {since.shown} are not published here")
    if since.key_id and ctx.signer and since.key_id != ctx.signer:
        problems.append(f"signed by key id {ctx.signer[:16]}…, not {since.key_id[:16]}… that signed {since.shown}")
    return problems


def _named(current: Publication, unloaded: list[str]) -> str:
    decisions = "; ".join(f"{d['id']} ({d['date']}, {d['outcome']})" for d in current.decisions) or "none"
    if unloaded:
        decisions += f" ({len(unloaded)} evidence folder(s) not loaded, see the contract check: their decisions are not named)"
    history = current.history
    if history is None:
        where = "records no history (signed before evidence-kit recorded one)"
    elif history.replaces is None:
        where = "publication 1, the site's first"
    else:
        where = f"publication {history.sequence}, replacing {history.replaces[:19]}…"
    return f"{where}; decisions verified: {decisions}"


def check_history(ctx: Context) -> CheckResult:
    """Name the publication (sequence, decisions); with ``--since``, refuse one that does not follow it."""
    name = "history"
    since: Since | None = ctx.since
    if ctx.signed_payload is None or ctx.envelope_data is None or ctx.predicate is None:
        if since is not None:
            return CheckResult(
                name,
                "fail",
                "no signed history",
                [Problem(ctx.where(ENVELOPE_NAME), f"--since {since.shown}: the site is not signed, so it has no history")],
            )
        return CheckResult(name, "skip", "not signed: no history")
    try:
        history = parse_history(ctx.predicate)
    except ValueError as err:
        return CheckResult(name, "fail", "malformed history", [Problem(ctx.where(ENVELOPE_NAME), str(err))])
    current = ctx.publication = Publication(publication_digest(ctx.envelope_data), history, decisions_verified(ctx.analyses))
    named = _named(current, ctx.unloaded)
    if since is None:
        return CheckResult(name, "pass", named)
    problems = [Problem(ctx.where(ENVELOPE_NAME), what) for what in _since_problems(ctx, since, current)]
    if problems:
        return CheckResult(name, "fail", f"does not follow --since {since.shown}: {named}", problems)
    same = since.digest == current.digest
    return CheckResult(name, "pass", f"{'the same publication as' if same else 'follows'} --since {since.shown}: {named}")


def state_bytes(current: Any, signer: str | None) -> bytes:
    """The state file ``--save-state`` writes for a verified publication (read back by ``--since``)."""
    assert current.history is not None
    doc = {
        "schema": STATE_SCHEMA,
        "publication": current.digest,
        "sequence": current.history.sequence,
        "decisions": [d["id"] for d in current.decisions],
        "key_id": signer,
    }
    return canonical_json(doc)


def save_state(path: Path, current: Any, signer: str | None) -> None:
    """Write the state file atomically."""
    atomic_write(path, state_bytes(current, signer))
