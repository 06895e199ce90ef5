"""What the typed writer writes, file by file: contract files from their records, the rest withheld.

- ``trial.json``, each journal ``trial.json`` names and its ``telemetry/<journal name>``, and a
  decision folder's ``decision.toml``: read through the contract's models (located errors for bad
  input), written from the records (:mod:`.records`).
- Any other file: a format reader (:mod:`.formats`) that recognises it turns it into one typed
  record, published as ``<name>.<reader>.json``; the raw file is withheld either way, listed in the
  receipt by name, size and sha256. Its name is the collector's own (``logs/<journal stem>.log``:
  published as it is) or anything else (published as a ``path`` pseudonym).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import tomli_w
from pydantic import BaseModel, ValidationError

from ..errors import BadInput
from ..model import Decision, Trial
from ..read import JournalReader, parse_sample, read_json_model, read_toml_model
from ..read.validation import describe_validation_error
from .formats import READERS, FormatReader, lines_of, reader_for
from .records import Publisher, published_json

__all__ = [
    "Withheld",
    "collector_name",
    "own_record",
    "shown_name",
    "withhold",
    "write_decision",
    "write_journal",
    "write_record_file",
    "write_telemetry",
    "write_trial",
]

_HEAD = 64 * 1024
_BUFFER = 1 << 20  # contract files are read and written a megabyte at a time
_COLLECTOR_FOLDERS = ("logs", "telemetry", "journals")


@dataclass(frozen=True)
class Withheld:
    """A raw file the bundle does not publish: its published name, size and sha256, and its record's file."""

    path: str
    size: int
    sha256: str
    record: str | None = None
    reader: str | None = None

    def entry(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "size": self.size, "sha256": self.sha256}
        if self.record is not None:
            out |= {"record": self.record, "reader": self.reader}
        return out


def write_trial(src: Path, dst: Path, publisher: Publisher, rel: str) -> Trial:
    """``trial.json`` from its record; returns the record (its journals' names are prose: published as they are, checked)."""
    trial = read_json_model(src, Trial)
    publisher.publish(trial, file=rel)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(published_json(trial, indent=2) + b"\n")
    return trial


def write_journal(src: Path, dst: Path, publisher: Publisher, rel: str) -> None:
    """A journal, record by record, through the contract's reader (an unfinished arm's too)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    publish = publisher.publish
    with dst.open("wb", buffering=_BUFFER) as out:
        for line, record in JournalReader(src, require_footer=False, hashed=False):
            publish(record, file=rel, line=line)
            out.write(published_json(record) + b"\n")


def write_telemetry(src: Path, dst: Path, publisher: Publisher, rel: str) -> None:
    """An arm's telemetry series, sample by sample; a line of another type is withheld (counted)."""
    dst.parent.mkdir(parents=True, exist_ok=True)
    publish = publisher.publish
    with src.open("rb", buffering=_BUFFER) as handle, dst.open("wb", buffering=_BUFFER) as out:
        for number, raw in enumerate(handle, start=1):
            try:
                sample = parse_sample(raw)
            except BadInput as err:
                raise err.located(src, number) from None
            if sample is None:
                publisher.withheld["telemetry line of another type"] += 1
                continue
            publish(sample, file=rel, line=number)
            out.write(published_json(sample) + b"\n")


def write_decision(src: Path, dst: Path, publisher: Publisher, rel: str) -> Decision:
    """``decision.toml`` from its record (its prose is checked like any prose)."""
    decision = read_toml_model(src, Decision)
    publisher.publish(decision, file=rel)
    dst.write_text(tomli_w.dumps(json.loads(published_json(decision))), encoding="utf-8")
    return decision


def collector_name(inner: str, stems: set[str]) -> bool:
    """Whether a file's path within its trial is one the collector gives (``logs/<journal stem>.log``)."""
    folder, _, name = inner.partition("/")
    return folder == "logs" and "/" not in name and name.endswith(".log") and name[: -len(".log")] in stems


def _sha256(path: Path) -> tuple[int, str]:
    digest = hashlib.sha256()
    size = 0
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return size, digest.hexdigest()


def _head(path: Path) -> str | None:
    """The file's first 64 KiB as text, or ``None`` for bytes that are not UTF-8 (withheld unread)."""
    with path.open("rb") as handle:
        data = handle.read(_HEAD)
    if b"\0" in data:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        if err.start < len(data) - 3:  # a character cut at the 64 KiB edge is still text
            return None
        return data[: err.start].decode("utf-8")


def own_record(inner: str) -> FormatReader | None:
    """The reader whose published record a file of an earlier redaction is (``<name>.<reader>.json``)."""
    return next((r for r in READERS if inner.endswith(f".{r.name}.json")), None)


def write_record_file(src: Path, dst: Path, publisher: Publisher, rel: str, reader: FormatReader) -> None:
    """A record an earlier redaction published, validated and published again."""
    try:
        record = reader.record.model_validate_json(src.read_bytes())
    except ValidationError as err:
        raise BadInput(f"not a {reader.name} record ({describe_validation_error(err)[0]})", src) from None
    publisher.publish(record, file=rel)
    dst.parent.mkdir(parents=True, exist_ok=True)
    dst.write_bytes(published_json(record, indent=2) + b"\n")


def withhold(src: Path, out_dir: Path, inner: str, shown: str, publisher: Publisher) -> Withheld:
    """Withhold one raw file; publish its typed record where a format reader recognises it.

    ``shown`` is the name the bundle lists it under (within its folder). Returns what the receipt lists."""
    size, digest = _sha256(src)
    head = _head(src)
    reader = reader_for(inner, head) if head is not None else None
    if reader is None:
        return Withheld(shown, size, digest)
    try:
        record: BaseModel = reader.read(lines_of(src), inner)  # bounded lines, strict UTF-8
    except UnicodeDecodeError:
        return Withheld(shown, size, digest)  # text at first, bytes further on: withheld unread
    except Exception as err:  # a reader never fails on content (redact/formats): one that does is a bug, said in one line
        raise BadInput(
            f"the {reader.name} reader failed on this file ({type(err).__name__}); withhold it with the policy's drop, and report it", src
        ) from None
    stem = shown.rsplit(".", 1)[0] if "." in shown.rsplit("/", 1)[-1] else shown
    target = f"{stem}.{reader.name}.json"
    publisher.publish(record, file=target)
    (out_dir / target).parent.mkdir(parents=True, exist_ok=True)
    (out_dir / target).write_bytes(published_json(record, indent=2) + b"\n")
    return Withheld(shown, size, digest, target, reader.name)


def shown_name(inner: str, stems: set[str], publisher: Publisher) -> str:
    """How the bundle names a withheld file: the collector's own name as it is; any other as a pseudonym
    (in the collector's folder it sits in, if any)."""
    if collector_name(inner, stems):
        return inner
    folder, _, rest = inner.partition("/")
    pseudonym = publisher.pseudonym("path", inner, hunted=False)
    return f"{folder}/{pseudonym}" if rest and folder in _COLLECTOR_FOLDERS else pseudonym
