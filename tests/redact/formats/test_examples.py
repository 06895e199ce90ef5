"""Every example of every reader is a test: its reader recognises it, reads it, and no other reader claims it."""

from __future__ import annotations

import pytest

from evidence_kit.redact.formats import READERS, Example, FormatReader, reader_for

from .records import subset

EXAMPLES = [pytest.param(reader, example, id=f"{reader.name}-{n}") for reader in READERS for n, example in enumerate(reader.examples)]


def test_every_reader_has_an_example_and_a_unique_name() -> None:
    assert all(reader.examples for reader in READERS)
    assert len({reader.name for reader in READERS}) == len(READERS)


@pytest.mark.parametrize(("reader", "example"), EXAMPLES)
def test_example_reads_to_its_expected_fields(reader: FormatReader, example: Example) -> None:
    record = reader.read(example.text.splitlines(keepends=True), example.path)
    assert isinstance(record, reader.record)
    assert not subset(example.expect, record.model_dump(mode="json"))


@pytest.mark.parametrize(("reader", "example"), EXAMPLES)
def test_example_is_recognised_by_its_reader_only(reader: FormatReader, example: Example) -> None:
    assert reader_for(example.path, example.text) is reader
    claims = [other.name for other in READERS if other.recognises(example.path, example.text)]
    assert claims == [reader.name]
