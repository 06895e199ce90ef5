"""Walk a format record by publication class: the strings it would publish as they are, and its identities."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evidence_kit.model.publication import Publication, classed_fields, publication_of
from evidence_kit.redact.formats import FormatReader, head_of, lines_of

SAMPLES = Path(__file__).parent / "samples"


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _records(value: Any) -> Iterator[BaseModel]:
    if isinstance(value, BaseModel):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _records(item)


def classed_values(record: BaseModel, publication: Publication, where: str = "") -> Iterator[tuple[str, Any]]:
    """``(path, value)`` of every field of ``record`` (nested records walked) of class ``publication``."""
    for field in classed_fields(type(record)):
        if field.model is not type(record):
            continue
        name, info, value = field.name, type(record).model_fields[field.name], getattr(record, field.name)
        if field.records:  # a record, a list of them, or None
            for index, item in enumerate(_records(value)):
                yield from classed_values(item, publication, f"{where}{name}[{index}].")
            continue
        classed = publication_of(info)
        assert classed is not None, f"{type(record).__name__}.{name} declares no class"
        if classed.publication is publication and value is not None:
            yield f"{where}{name}", value


def public_strings(record: BaseModel) -> list[tuple[str, str]]:
    """Every string ``record`` publishes as it is (dict keys included), with its path."""
    return [(path, text) for path, value in classed_values(record, Publication.PUBLIC) for text in _strings(value)]


def identities(record: BaseModel) -> set[str]:
    """Every identity value of ``record``."""
    return {text for _, value in classed_values(record, Publication.IDENTITY) for text in _strings(value)}


def leaks(record: BaseModel, private: list[str]) -> list[tuple[str, str, str]]:
    """``(path, public value, private value)`` for each private value a public string holds."""
    return [(path, text, secret) for path, text in public_strings(record) for secret in private if secret and secret in text]


def read_sample(reader: FormatReader, name: str) -> BaseModel:
    path = SAMPLES / name
    return reader.read(lines_of(path), f"logs/{name}")


def subset(expect: Any, have: Any, where: str = "") -> list[str]:
    """Where ``have`` differs from ``expect`` (a dict: its keys; a list: same length, each item; else equal)."""
    if isinstance(expect, dict):
        if not isinstance(have, dict):
            return [f"{where}: not a mapping: {have!r}"]
        return [p for key, item in expect.items() for p in subset(item, have.get(key), f"{where}.{key}")]
    if isinstance(expect, list):
        if not isinstance(have, list) or len(have) != len(expect):
            return [f"{where}: {have!r} is not a list of {len(expect)}"]
        return [p for index, (e, h) in enumerate(zip(expect, have)) for p in subset(e, h, f"{where}[{index}]")]
    return [] if expect == have else [f"{where}: {have!r} != {expect!r}"]


def recognised_by(name: str) -> list[str]:
    """The readers that recognise the sample ``name``."""
    from evidence_kit.redact.formats import READERS

    head = head_of(SAMPLES / name)
    return [reader.name for reader in READERS if reader.recognises(f"logs/{name}", head)]
