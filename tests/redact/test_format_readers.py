"""The typed writer publishes what a format reader makes of a raw file, never the file (a tiny reader here,
in the registry's interface: ``reader_for(path, head)`` -> ``FormatReader`` with ``.name``, ``.record``, ``.read``)."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import pytest

from evidence_kit.errors import BadInput
from evidence_kit.model import Receipt
from evidence_kit.model._base import Record
from evidence_kit.model.publication import PUBLIC, IdentityKind, identity
from evidence_kit.read import read_json_model
from evidence_kit.redact import files as redact_files
from evidence_kit.redact import formats, redact_bundle

from . import corpus
from .conftest import KEY
from .leakcheck import survivors

STARTUP_LOG = Path(__file__).parent / "fixtures" / "vllm-cpu-startup.log"


class TinyStartup(Record):
    version: Annotated[str | None, PUBLIC] = None
    model: Annotated[str | None, identity(IdentityKind.MODEL)] = None
    max_model_len: Annotated[int | None, PUBLIC] = None


def _read(lines: Iterable[str], path: str) -> TinyStartup:
    text = "".join(lines)
    version = re.search(r"version (\d+\.\d+\.\d+)", text)
    model = re.search(r"'model': '([^']+)'", text)
    length = re.search(r"'max_model_len': (\d+)", text)
    return TinyStartup(
        version=version.group(1) if version else None,
        model=model.group(1) if model else None,
        max_model_len=int(length.group(1)) if length else None,
    )


TINY = formats.FormatReader(
    name="tiny-startup",
    summary="a test's reader of vLLM's startup log",
    record=TinyStartup,
    recognises=lambda path, head: path.endswith(".log") and "non-default args" in head,
    read=_read,
)


@pytest.fixture
def tiny_reader(monkeypatch: pytest.MonkeyPatch) -> formats.FormatReader:
    monkeypatch.setattr(formats, "READERS", (TINY,))
    monkeypatch.setattr(redact_files, "READERS", (TINY,))
    return TINY


def _raw(tmp_path: Path) -> Path:
    raw = corpus.make_raw_trial(tmp_path / "raw")
    shutil.copy(STARTUP_LOG, raw / "logs" / "01-original-before.log")
    return raw


def test_a_recognised_file_is_published_as_its_typed_record_and_still_withheld(tiny_reader, tmp_path):
    result = redact_bundle(_raw(tmp_path), tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    record = json.loads((result.out / "logs" / "01-original-before.tiny-startup.json").read_text())
    assert record["version"] == "0.32.0" and record["max_model_len"] == 1024  # public, as the log has them
    assert record["model"].startswith("model-") and "tiny-llama" not in json.dumps(record)  # an identity: its pseudonym
    receipt = read_json_model(result.out / "receipt.json", Receipt)
    entry = next(w for w in receipt.withheld or [] if w.path == "logs/01-original-before.log")
    assert (entry.record, entry.reader) == ("logs/01-original-before.tiny-startup.json", "tiny-startup")
    assert receipt.counts["logs/01-original-before.tiny-startup.json"] == {"model": 1}
    assert not (result.out / "logs" / "01-original-before.log").exists()
    assert survivors(result.out, ["/root/.cache/evidence-kit/tiny-llama", *corpus.CANARIES]) == []


def test_a_published_record_survives_a_second_redaction(tiny_reader, tmp_path):
    first = redact_bundle(_raw(tmp_path), tmp_path / "once", key=KEY)
    again = redact_bundle(first.out, tmp_path / "twice", key=KEY)
    assert again.publishable
    assert (again.out / "logs" / "01-original-before.tiny-startup.json").read_bytes() == (
        first.out / "logs" / "01-original-before.tiny-startup.json"
    ).read_bytes()


def test_a_reader_that_fails_is_one_line_of_bad_input(monkeypatch, tmp_path):
    def broken(lines: Iterable[str], path: str) -> TinyStartup:
        raise IndexError("a bug")

    reader = formats.FormatReader("broken", "fails", TinyStartup, lambda path, head: path.endswith(".log"), broken)
    monkeypatch.setattr(formats, "READERS", (reader,))
    with pytest.raises(BadInput, match="the broken reader failed on this file"):
        redact_bundle(_raw(tmp_path), tmp_path / "out", key=KEY)
    assert not (tmp_path / "out").exists()
