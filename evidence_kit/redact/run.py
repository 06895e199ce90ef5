"""``redact_bundle``: raw trial or decision folder in, a bundle written from the typed records out.

The pipeline: check the paths; read every contract file through its model and write it from its
records (:mod:`.files`, :mod:`.records`): identities become pseudonyms, secrets and undeclared fields
are left out, codes become their words; every other file is withheld (a format reader may publish a
typed record of it); check the prose against every known value; write each folder's receipt and
manifest; scan the whole output for the known values (the independent second check); rename it
into place.

Bad input or a crash removes the temporary folder: OUT is left as it was. A finding of the final
scan still moves the output into place, so the operator can look at it, but marked: no
``manifest.json`` (nothing downstream accepts a bundle without one) and a ``NOT-PUBLISHABLE.txt``
listing kind, file and line of every finding (never a value).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ..attest.manifest import ENVELOPE_NAME, MANIFEST_NAME, build_manifest, read_manifest, write_manifest
from ..canonical import canonical_json
from ..errors import BadInput
from ..fsutil import atomic_write
from ..model import RECEIPT_NAME, RECEIPT_SCHEMA, Receipt
from ..model.manifest import WithheldFile
from ..read import read_json_model
from ..version import __version__
from .files import Withheld, own_record, shown_name, withhold, write_decision, write_journal, write_record_file, write_telemetry, write_trial
from .hunt import Hunter
from .policy import Policy, load_policy, policy_digest
from .pseudonyms import Pseudonyms
from .records import Prose, Publisher
from .scanner import Finding, scan_files

__all__ = ["RedactResult", "redact_bundle", "RECEIPT_NAME", "MARKER_NAME"]

MARKER_NAME = "NOT-PUBLISHABLE.txt"
_GENERATED = (MANIFEST_NAME, ENVELOPE_NAME, RECEIPT_NAME)


@dataclass
class RedactResult:
    """What a redaction did: where, pseudonyms per file and kind, what it withheld, the scan's findings."""

    out: Path
    bundles: list[str]  # the trial bundles, by their folder names in OUT
    counts: dict[str, dict[str, int]]
    findings: list[Finding]
    key_id: str
    policy_digest: str
    dropped: list[str] = field(default_factory=list)
    withheld: list[str] = field(default_factory=list)  # the withheld raw files, by the names the receipts list

    @property
    def publishable(self) -> bool:
        return not self.findings


@dataclass
class _Folder:
    """One folder the redaction writes a receipt and a manifest for: a trial bundle, or the decision folder."""

    rel: str  # relative to RAW ("" for RAW itself)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    withheld: list[Withheld] = field(default_factory=list)
    withheld_fields: Counter[str] = field(default_factory=Counter)
    dropped: list[str] = field(default_factory=list)


def _inside(child: Path, parent: Path) -> bool:
    return child == parent or parent in child.parents


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
    if map_out is not None:
        if _inside(map_out, raw) or _inside(map_out, out):
            raise BadInput("the private map must be written outside RAW and OUT", map_out)
        if map_out.exists() and not map_out.is_file():
            raise BadInput("the private map path exists and is not a file", map_out)


def _bundles(raw: Path) -> list[str]:
    """Trial bundles: RAW itself, or the subfolders of a decision folder holding trial.json."""
    if (raw / "trial.json").is_file():
        return [""]
    return sorted(p.parent.relative_to(raw).as_posix() for p in raw.rglob("trial.json"))


def _files(raw: Path) -> list[str]:
    """Every regular file of RAW (relative, sorted); a symbolic link or a name that is not UTF-8 is bad input."""
    found = []
    for path in sorted(raw.rglob("*")):
        if path.is_symlink():
            raise BadInput("symbolic link (copy the file in, or drop it in the policy)", path)
        if path.is_file():
            rel = path.relative_to(raw).as_posix()
            try:
                rel.encode("utf-8")
            except UnicodeEncodeError:
                raise BadInput(
                    "a file name that is not UTF-8; rename it", raw / rel.encode("utf-8", "surrogateescape").decode("ascii", "backslashreplace")
                ) from None
            found.append(rel)
    return found


def _redacted_before(raw: Path, bundles: list[str]) -> str | None:
    """The pseudonym kind (``counter`` or ``hmac-sha256``) of a RAW this tool wrote, else None: every folder's
    receipt, and a manifest that matches its files. Only then are values spelled like pseudonyms of that kind
    taken as earlier pseudonyms and kept; a stray ``receipt.json`` earns no such trust."""
    folders = list(bundles) + ([""] if bundles != [""] else [])
    kinds = set()
    for rel in folders:
        folder = raw / rel
        if not (folder / MANIFEST_NAME).is_file() or not (folder / RECEIPT_NAME).is_file():
            return None
        try:
            if read_manifest(folder / MANIFEST_NAME) != build_manifest(folder):
                return None
            kinds.add(json.loads((folder / RECEIPT_NAME).read_text(encoding="utf-8")).get("pseudonyms"))
        except (BadInput, ValueError, AttributeError):
            return None
    return kinds.pop() if len(kinds) == 1 and kinds <= {"counter", "hmac-sha256"} else None


class _Writer:
    """One redaction: the publisher, the temporary output, and the folders' receipts."""

    def __init__(self, raw: Path, tmp: Path, policy: Policy, publisher: Publisher):
        self.raw, self.tmp, self.policy, self.publisher = raw, tmp, policy, publisher

    def _counted(self, folder: _Folder, rel: str) -> None:
        """Record the pseudonyms the file ``rel`` (relative to RAW) got, then start counting afresh."""
        if +self.publisher.counts:
            inner = rel[len(folder.rel) + 1 :] if folder.rel else rel
            folder.counts[inner] = dict(sorted(self.publisher.counts.items()))
        self.publisher.counts.clear()

    def trial(self, folder: _Folder, files: list[str]) -> None:
        base = folder.rel + "/" if folder.rel else ""
        if folder.rel:
            self.publisher.prose.append(Prose(folder.rel, None, "the trial folder's name", folder.rel))
        trial = write_trial(self.raw / base / "trial.json", self.tmp / base / "trial.json", self.publisher, base + "trial.json")
        self._counted(folder, base + "trial.json")
        contract = {"trial.json"}
        stems = set()
        for ref in trial.arms:
            src = self.raw / base / ref.journal
            if not src.is_file():
                raise BadInput(f"journal of the {ref.phase} arm is missing (trial.json names {ref.journal})", src)
            write_journal(src, self.tmp / base / ref.journal, self.publisher, base + ref.journal)
            self._counted(folder, base + ref.journal)
            telemetry = f"telemetry/{Path(ref.journal).name}"
            if (self.raw / base / telemetry).is_file():
                write_telemetry(self.raw / base / telemetry, self.tmp / base / telemetry, self.publisher, base + telemetry)
                self._counted(folder, base + telemetry)
                contract.add(telemetry)
            contract.add(ref.journal)
            stems.add(Path(ref.journal).stem)
        others = [rel for rel in files if rel.startswith(base) and rel[len(base) :] not in contract]
        self.others(folder, others, stems)

    def others(self, folder: _Folder, files: list[str], stems: set[str]) -> None:
        """Files that are not contract files: a record an earlier redaction published, or withheld."""
        base = folder.rel + "/" if folder.rel else ""
        for rel in files:
            inner = rel[len(base) :]
            if inner in _GENERATED or rel == MARKER_NAME:
                continue  # written afresh
            if self.policy.drops(rel, inner):
                folder.dropped.append(shown_name(inner, stems, self.publisher))
                self.publisher.counts.clear()  # a name's pseudonym is no replacement in a published file
            elif (reader := own_record(inner)) is not None:
                write_record_file(self.raw / rel, self.tmp / rel, self.publisher, rel, reader)
                self._counted(folder, rel)
            else:
                shown = shown_name(inner, stems, self.publisher)
                self.publisher.counts.clear()
                withheld = withhold(self.raw / rel, self.tmp / base, inner, shown, self.publisher)
                folder.withheld.append(withheld)
                if withheld.record is not None:
                    self._counted(folder, base + withheld.record)
                self.publisher.counts.clear()
        folder.withheld_fields.update(self.publisher.withheld)
        self.publisher.withheld.clear()

    def carry_forward(self, folder: _Folder) -> None:
        """A RAW this tool redacted before keeps what its receipts said: the files it withheld then, its
        pseudonyms' counts (kept, not counted again) and the fields it left out."""
        prior = read_json_model(self.raw / folder.rel / RECEIPT_NAME, Receipt)
        for rel, counted in prior.counts.items():
            if (self.tmp / folder.rel / rel).is_file():
                folder.counts.setdefault(rel, dict(counted))
        folder.withheld += [Withheld(w.path, w.size, w.sha256, w.record, w.reader) for w in prior.withheld or []]
        folder.withheld_fields.update(prior.withheld_fields or {})
        folder.dropped += prior.dropped or []

    def receipt(self, folder: _Folder, digest: str) -> None:
        if self.publisher.trusted is not None:
            self.carry_forward(folder)
        receipt = Receipt(
            schema=RECEIPT_SCHEMA,
            tool_version=__version__,
            policy_digest=digest,
            key_id=self.publisher.pseudonyms.key_id,
            counts=folder.counts,
            pseudonyms="hmac-sha256" if self.publisher.pseudonyms.key else "counter",
            dropped=sorted(set(folder.dropped)),
            withheld=[WithheldFile.model_validate(w.entry()) for w in sorted(set(folder.withheld), key=lambda w: w.path)],
            withheld_fields=dict(sorted(folder.withheld_fields.items())),
        )
        (self.tmp / folder.rel).mkdir(parents=True, exist_ok=True)
        atomic_write(self.tmp / folder.rel / RECEIPT_NAME, canonical_json(receipt.model_dump(by_alias=True, mode="json")))


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

    ``key`` (at least 16 bytes) makes pseudonyms keyed HMACs, stable across bundles; without it they
    are per-run counters. ``replace`` allows a non-empty OUT. ``map_out`` receives the private map
    (pseudonym -> original values, mode 0600). RAW is only read. Raises
    :class:`~evidence_kit.errors.BadInput` for bad input (nothing written); a finding of the final scan
    is reported in ``result.findings`` (the output is marked).
    """
    raw, out = Path(raw).resolve(), Path(out).resolve()
    map_out = Path(map_out).resolve() if map_out is not None else None
    policy = policy if isinstance(policy, Policy) else load_policy(policy)
    _check_paths(raw, out, replace, map_out)
    bundles = _bundles(raw)
    files = _files(raw)
    publisher = Publisher(Pseudonyms(key), trusted=_redacted_before(raw, bundles))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".redacting", dir=out.parent))
    try:
        folders, findings, digest = _write(raw, tmp, policy, publisher, bundles, files)
        _move_into_place(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if map_out is not None:
        body = {"schema": "evidence-kit/redaction-map/v1", "key_id": publisher.pseudonyms.key_id, "entries": publisher.pseudonyms.mapping()}
        _write_private(map_out, canonical_json(body))

    def shown(folder: _Folder, rel: str) -> str:
        return f"{folder.rel}/{rel}" if folder.rel else rel

    return RedactResult(
        out=out,
        bundles=bundles,
        counts=dict(sorted((shown(folder, rel), c) for folder in folders for rel, c in folder.counts.items())),
        findings=findings,
        key_id=publisher.pseudonyms.key_id,
        policy_digest=digest,
        dropped=sorted(shown(folder, d) for folder in folders for d in folder.dropped),
        withheld=sorted(shown(folder, w.path) for folder in folders for w in folder.withheld),
    )


def _write(
    raw: Path, tmp: Path, policy: Policy, publisher: Publisher, bundles: list[str], files: list[str]
) -> tuple[list[_Folder], list[Finding], str]:
    """Write every folder into ``tmp``, check the prose, write receipts and manifests, and scan it all."""
    writer = _Writer(raw, tmp, policy, publisher)
    folders = [_Folder(bundle) for bundle in bundles]
    for folder in folders:
        writer.trial(folder, files)
    if bundles != [""]:
        top = _Folder("")
        write_decision(raw / "decision.toml", tmp / "decision.toml", publisher, "decision.toml")
        writer._counted(top, "decision.toml")
        outside = [rel for rel in files if rel != "decision.toml" and not any(rel.startswith(b + "/") for b in bundles)]
        writer.others(top, outside, set())
        folders.append(top)
    hunter = Hunter([*publisher.identities, *policy.known_values()], public=policy.public)
    publisher.check_prose(hunter)
    digest = policy_digest(policy, publisher.pseudonyms)
    for folder in folders:
        writer.receipt(folder, digest)
        write_manifest(tmp / folder.rel)  # a decision folder's own is written last, over everything below it
    written = sorted(p.relative_to(tmp).as_posix() for p in tmp.rglob("*") if p.is_file())
    findings = scan_files(tmp, written, hunter)
    if findings:
        for folder in folders:
            (tmp / folder.rel / MANIFEST_NAME).unlink(missing_ok=True)
        report = "".join(f"{finding}\n" for finding in findings)
        atomic_write(tmp / MARKER_NAME, ("Not publishable: the known-value scan found private values.\n" + report).encode())
    return folders, findings, digest


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
