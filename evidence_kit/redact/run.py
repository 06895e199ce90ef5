"""``redact_bundle``: raw trial or decision folder in, publishable bundle out (or none).

The pipeline, in order: check the paths; take the inventory (refusing binary
files the policy does not drop); discover every private value of the raw
evidence (:mod:`.discover`: declared, harvested, then a fixed point over the
original texts); rewrite every file once into a temporary sibling of OUT (names
too) with that fixed set; write each trial's receipt and manifest; scan the
whole output; then rename it into place.

A crash or bad input removes the temporary folder: OUT is left as it was. A
leak found by the final scan still moves the output into place, so the operator
can look at it, but marked: no ``manifest.json`` (nothing downstream accepts a
bundle without one) and a ``NOT-PUBLISHABLE.txt`` listing class, file and line
of every finding (never a value).
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import tempfile
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME, build_manifest, listed_files, read_manifest, write_manifest
from ..canonical import canonical_json
from ..errors import BadInput
from ..fsutil import atomic_write
from ..model import RECEIPT_NAME, RECEIPT_SCHEMA, Receipt
from ..read import read_json_model
from ..version import __version__
from .discover import Discovered, discover_files
from .matcher import Matcher
from .policy import Policy, load_policy, policy_digest
from .pseudonyms import Pseudonyms
from .scanner import Finding, imported_hashes, scan_files, with_short_forms
from .walkers import check_name, file_kind, redact_file, redact_name

__all__ = ["RedactResult", "redact_bundle", "RECEIPT_NAME", "MARKER_NAME"]

MARKER_NAME = "NOT-PUBLISHABLE.txt"
_GENERATED = (MANIFEST_NAME, ENVELOPE_NAME, RECEIPT_NAME)
_ORDER = {"text": 0, "toml": 0, "json": 1, "jsonl": 2}  # the order counter pseudonyms are handed out in


@dataclass
class RedactResult:
    """What a redaction did: where, per-file counts per class, and the scan's findings."""

    out: Path
    bundles: list[str]  # the trial bundles, by their (redacted) folder names in OUT
    counts: dict[str, dict[str, int]]
    findings: list[Finding]
    key_id: str
    policy_digest: str
    dropped: list[str] = field(default_factory=list)

    @property
    def publishable(self) -> bool:
        return not self.findings


@dataclass
class _Source:
    rel: str
    kind: str
    bundle: str | None  # relative path of its trial bundle ("" for a trial at the root)
    out_rel: str = ""


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


def _redacted_before(raw: Path, bundles: list[str], receipts: dict[str, Path]) -> str | None:
    """The kind of pseudonyms (``counter`` or ``hmac-sha256``) of a RAW that is a bundle this tool
    wrote, else None. That takes every trial's receipt and a manifest matching its files, and for
    a decision folder its own receipt and a manifest matching everything below it (so a file added
    since, such as a new ``decision.toml`` or a log, is not trusted). Only then are values spelled
    like pseudonyms *of that kind* taken as earlier pseudonyms and left alone; a stray
    ``receipt.json`` in raw evidence earns no such trust, so a real host called ``host-7`` is still
    hunted."""
    folders = list(bundles)
    if bundles and bundles != [""]:
        if not (raw / RECEIPT_NAME).is_file():
            return None
        folders.append("")
    if not bundles:
        return None
    kinds = set()
    for bundle in folders:
        folder = raw / bundle
        receipt = receipts.get(bundle) if bundle in bundles else raw / RECEIPT_NAME
        if receipt is None or not (folder / MANIFEST_NAME).is_file():
            return None
        try:
            if read_manifest(folder / MANIFEST_NAME) != build_manifest(folder):
                return None
            kinds.add(json.loads(receipt.read_text(encoding="utf-8")).get("pseudonyms"))
        except (BadInput, ValueError, AttributeError):
            return None
    return kinds.pop() if len(kinds) == 1 and kinds <= {"counter", "hmac-sha256"} else None


def _check_paths(raw: Path, out: Path, replace: bool, map_out: Path | None) -> None:
    if not raw.is_dir():
        raise BadInput("not a folder", raw)
    if not (raw / "trial.json").is_file() and not (raw / "decision.toml").is_file():
        raise BadInput("neither a trial folder (trial.json) nor a decision folder (decision.toml)", raw)
    if _inside(out, raw) or _inside(raw, out):
        raise BadInput("OUT must not be RAW, nor inside it, nor hold it (RAW is never modified)", out)
    if out.exists():
        if not out.is_dir():
            raise BadInput("exists and is not a folder", out)
        if any(out.iterdir()) and not replace:
            raise BadInput("is not empty (pass --replace to overwrite it)", out)
    if map_out is not None and (_inside(map_out, raw) or _inside(map_out, out)):
        raise BadInput("the private map must be written outside RAW and OUT", map_out)
    if map_out is not None:
        _check_map_path(map_out)


def _check_map_path(map_out: Path) -> None:
    """Refuse a ``--map`` path that cannot be written as a file, before anything is written."""
    if map_out.exists() and not map_out.is_file():
        raise BadInput("the private map path exists and is not a file", map_out)
    parent = map_out.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise BadInput("the private map's folder is not a folder", parent)


def _bundles(raw: Path) -> list[str]:
    """Trial bundles: RAW itself, or the subfolders of a decision folder holding trial.json."""
    if (raw / "trial.json").is_file():
        return [""]
    return sorted(p.parent.relative_to(raw).as_posix() for p in raw.rglob("trial.json"))


def _inventory(raw: Path, bundles: list[str], policy: Policy) -> tuple[list[_Source], list[str], dict[str, Path]]:
    sources: list[_Source] = []
    dropped: list[str] = []
    receipts: dict[str, Path] = {}
    for path in sorted(raw.rglob("*")):
        if path.is_symlink():
            raise BadInput("symbolic link (copy the file in, or drop it in the policy)", path)
        if not path.is_file():
            continue
        rel = path.relative_to(raw).as_posix()
        check_name(rel, raw)
        bundle = next((b for b in sorted(bundles, key=len, reverse=True) if not b or rel.startswith(b + "/")), None)
        inner = rel[len(bundle) + 1 :] if bundle else rel
        if (bundle is not None and inner in _GENERATED) or rel == MARKER_NAME:
            if inner == RECEIPT_NAME:
                receipts[bundle or ""] = path  # an earlier redaction's counts carry forward
            continue  # written afresh for the output
        if policy.drops(rel, inner):
            dropped.append(rel)
            continue
        kind = file_kind(path)
        if kind == "binary":
            raise BadInput("binary or compressed file: the redactor cannot see inside it (list it under drop in the policy to leave it out)", path)
        sources.append(_Source(rel, kind, bundle))
    sources.sort(key=lambda s: (_ORDER[s.kind], s.rel))
    return sources, dropped, receipts


def _rewrite(
    raw: Path, tmp: Path, source: _Source, discovered: Discovered, pseudonyms: Pseudonyms, counts: dict[str, Counter[str]], broken: list[Finding]
) -> None:
    matcher = discovered.matcher
    found: Counter[str] = Counter()
    out_rel = redact_name(source.rel, matcher, pseudonyms, found)
    if out_rel in counts:
        raise BadInput("two files get the same redacted name; rename one", raw / source.rel)
    _check_name_length(out_rel, raw / source.rel)
    source.out_rel = out_rel
    dst = tmp / out_rel
    try:
        dst.parent.mkdir(parents=True, exist_ok=True)
        found.update(redact_file(raw / source.rel, dst, source.kind, matcher, pseudonyms, discovered.ledgers.get(source.rel)))
    except OSError as err:
        if err.errno != errno.ENAMETOOLONG:
            raise
        raise BadInput("its redacted name is too long for the file system; rename it (shorter)", raw / source.rel) from None
    counts[out_rel] = found
    if source.kind == "toml" and +found:
        try:
            tomllib.loads(dst.read_text(encoding="utf-8", errors="surrogateescape"))
        except (tomllib.TOMLDecodeError, RecursionError):
            broken.append(Finding(out_rel, None, "TOML", "broken"))


_NAME_MAX = 255  # bytes in one file or folder name, on every common file system


def _check_name_length(out_rel: str, src: Path) -> None:
    """Refuse a file whose redacted name has a component too long to create (pseudonyms can be
    longer than what they replace): bad input naming the raw file, never a traceback."""
    if any(len(part.encode("utf-8", "surrogateescape")) > _NAME_MAX for part in out_rel.split("/")):
        raise BadInput(f"its redacted name is longer than {_NAME_MAX} bytes; rename it (shorter)", src)


def _redacted_folder(bundle: str, matcher: Matcher, pseudonyms: Pseudonyms) -> str:
    """A trial folder's name in the output (``""`` for a trial at the root): redacted component by
    component, exactly as the names of the files in it were."""
    return redact_name(bundle, matcher, pseudonyms, Counter()) if bundle else ""


def _receipt(
    bundle: str,
    counts: dict[str, Counter[str]],
    prior: Path | None,
    digest: str,
    key_id: str,
    dropped: list[str],
    pseudonym_kind: str,
    kept: set[str],
) -> bytes:
    prefix = bundle + "/" if bundle else ""
    per_file: dict[str, Counter[str]] = {rel[len(prefix) :]: Counter(found) for rel, found in counts.items() if rel.startswith(prefix) and +found}
    if prior is not None:
        for rel, found in read_json_model(prior, Receipt).counts.items():
            if prefix + rel in kept:  # a file this redaction drops takes its earlier counts with it
                per_file.setdefault(rel, Counter()).update(found)
    receipt = Receipt(
        schema=RECEIPT_SCHEMA,
        tool_version=__version__,
        policy_digest=digest,
        key_id=key_id,
        counts={rel: dict(sorted(found.items())) for rel, found in sorted(per_file.items())},
    )
    body = receipt.model_dump(by_alias=True, mode="json") | {"pseudonyms": pseudonym_kind, "dropped": sorted(dropped)}
    return canonical_json(body)


def _outside(rel: str, bundles: list[str]) -> bool:
    return not any(rel.startswith(bundle + "/") for bundle in bundles)


def _write_decision_files(
    tmp: Path,
    raw: Path,
    bundles: list[str],
    sources: list[_Source],
    counts: dict[str, Counter[str]],
    digest: str,
    key_id: str,
    dropped_names: list[str],
    pseudonym_kind: str,
) -> set[str]:
    """A decision folder's own receipt and manifest; returns the sha256 of every file the manifest lists.

    The receipt counts the replacements in ``decision.toml`` and any other file
    outside the trial bundles (each bundle's receipt counts its own). The manifest
    lists every file below the decision folder, the trial bundles' manifests and
    receipts included, so a change anywhere (an edited ``decision.toml``, a trial
    dropped or renamed, a file added at any depth) disagrees with it, while each
    trial bundle still verifies alone against its own manifest. An earlier
    redaction's receipt, manifest or envelope at the top was rewritten like any
    file by the loop above: it is replaced here, and its counts carry forward.
    """
    stale = [s for s in sources if s.bundle is None and s.rel in _GENERATED]
    for source in stale:
        counts.pop(source.out_rel, None)
        (tmp / source.out_rel).unlink(missing_ok=True)
    prior = raw / RECEIPT_NAME if any(s.rel == RECEIPT_NAME for s in stale) else None
    kept = {s.out_rel for s in sources if s not in stale}
    own = {rel: found for rel, found in counts.items() if _outside(rel, bundles)}
    names = [name for name in dropped_names if _outside(name, bundles)]
    atomic_write(tmp / RECEIPT_NAME, _receipt("", own, prior, digest, key_id, names, pseudonym_kind, kept))
    return {entry.sha256 for entry in write_manifest(tmp).files}


def redact_bundle(
    raw: Path,
    out: Path,
    *,
    policy: Policy | Path | None = None,
    key: bytes | None = None,
    replace: bool = False,
    map_out: Path | None = None,
) -> RedactResult:
    """Redact a raw trial folder (``trial.json``) or decision folder (``decision.toml``) into OUT.

    ``key`` (at least 16 bytes) makes pseudonyms keyed HMACs, stable across bundles;
    without it they are per-run counters. ``replace`` allows a non-empty OUT.
    ``map_out`` receives the private map (pseudonym -> original values, mode 0600).
    RAW is only read. Raises :class:`~evidence_kit.errors.BadInput` for bad input
    (nothing written); a leak is reported in ``result.findings`` (output marked).
    """
    raw, out = Path(raw).resolve(), Path(out).resolve()
    map_out = Path(map_out).resolve() if map_out is not None else None
    policy = policy if isinstance(policy, Policy) else load_policy(policy)
    _check_paths(raw, out, replace, map_out)
    bundles = _bundles(raw)
    sources, dropped, receipts = _inventory(raw, bundles, policy)
    # An imported journal's header names its original files by sha256: published, never a value to replace.
    imported = imported_hashes(raw, [s.rel for s in sources if s.kind == "jsonl"])
    discovered = discover_files(
        raw,
        [(s.rel, s.kind) for s in sources] + [(rel, "binary") for rel in dropped],
        policy.known_values(),
        public=[*policy.public, *sorted(imported)],
        disabled=policy.disable,
        trust_pseudonyms=_redacted_before(raw, bundles, receipts),
        declared=policy.known_values(),
    )
    matcher = discovered.matcher
    pseudonyms = Pseudonyms(key)
    pseudonyms.reserve(matcher.table)  # no pseudonym is spelled like a real value

    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".redacting", dir=out.parent))
    try:
        counts: dict[str, Counter[str]] = {}
        dropped_names = [redact_name(rel, matcher, pseudonyms, Counter()) for rel in dropped]
        broken: list[Finding] = []  # a structured file the rewrite left unparsable (fails closed)
        for source in sources:
            _rewrite(raw, tmp, source, discovered, pseudonyms, counts, broken)
        digest = policy_digest(policy, pseudonyms)
        kept = {source.out_rel for source in sources}
        hashes: set[str] = {digest.split(":", 1)[1], *imported}
        # A trial folder's name is redacted like any name: its receipt and manifest go under the
        # name its files were written under, never the raw one.
        out_bundles = [_redacted_folder(bundle, matcher, pseudonyms) for bundle in bundles]
        for bundle, out_bundle in zip(bundles, out_bundles):
            names = [n[len(out_bundle) + 1 :] if out_bundle else n for n in dropped_names if not out_bundle or n.startswith(out_bundle + "/")]
            folder = tmp / out_bundle
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(
                folder / RECEIPT_NAME,
                _receipt(out_bundle, counts, receipts.get(bundle), digest, pseudonyms.key_id, names, "hmac-sha256" if key else "counter", kept),
            )
            hashes.update(entry.sha256 for entry in write_manifest(folder).files)
        if "" not in bundles:
            hashes |= _write_decision_files(
                tmp, raw, out_bundles, sources, counts, digest, pseudonyms.key_id, dropped_names, "hmac-sha256" if key else "counter"
            )
        files = listed_files(tmp)
        matcher.for_scanning(with_short_forms(hashes))
        ledgers = {source.out_rel: discovered.ledgers[source.rel] for source in sources if source.rel in discovered.ledgers}
        findings = sorted({*scan_files(tmp, files, matcher, ledgers=ledgers), *broken}, key=lambda f: (f.file, f.line or 0, f.cls, f.source))
        if findings:
            for out_bundle in out_bundles:
                (tmp / out_bundle / MANIFEST_NAME).unlink(missing_ok=True)
            (tmp / MANIFEST_NAME).unlink(missing_ok=True)  # a decision folder's own manifest
            report = "".join(f"{finding}\n" for finding in findings)
            atomic_write(tmp / MARKER_NAME, ("Not publishable: the leak scan found private values.\n" + report).encode())
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if map_out is not None:
        body = {"schema": "evidence-kit/redaction-map/v1", "key_id": pseudonyms.key_id, "entries": pseudonyms.mapping()}
        _write_private(map_out, canonical_json(body))
    return RedactResult(
        out=out,
        bundles=out_bundles,
        counts={rel: dict(c) for rel, c in sorted(counts.items()) if +c},
        findings=findings,
        key_id=pseudonyms.key_id,
        policy_digest=digest,
        dropped=dropped_names,
    )


def _move_into_place(tmp: Path, out: Path) -> None:
    if out.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".old", dir=out.parent))
        os.replace(out, old / "previous")
        os.replace(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, out)


def _write_private(path: Path, data: bytes) -> None:
    """Write the private map readable by its owner only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    old_umask = os.umask(0o077)
    try:
        atomic_write(path, data)
    finally:
        os.umask(old_umask)
    os.chmod(path, 0o600)
