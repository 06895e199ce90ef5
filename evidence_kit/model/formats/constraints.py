"""What constrains each public field of a format record: read off its type, for the docs and the tests.

A public string may only be a word of a ``Literal``, a word of a :class:`~.shapes.Words`
vocabulary, a value of a :class:`~.shapes.Shape`, or (a field marked :class:`Checked`) a value
its record's validator checks against a registry. :func:`string_leaves` finds every place a
string can stand in a field's type and what constrains it there; a ``free`` leaf is a string
nothing constrains, which no public field may have (``tests/redact/formats`` holds every record to it).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from annotated_types import Ge
from pydantic.fields import FieldInfo

from .shapes import Shape, Words

__all__ = ["Checked", "Leaf", "describe", "describe_type", "string_leaves"]

T = TypeVar("T")


@dataclass(frozen=True)
class Checked:
    """A field whose strings a model validator checks (against a registry), with the words it admits."""

    rule: str
    words: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Leaf:
    """One place a string can stand in a field's type, and what constrains it there."""

    kind: Literal["literal", "shape", "words", "checked", "free"]
    words: tuple[str, ...] = ()
    shape: Shape | None = None
    vocabulary: Words | None = None


def _annotated(annotation: Any) -> tuple[Any, tuple[Any, ...]]:
    if typing.get_origin(annotation) is typing.Annotated:
        base, *metadata = typing.get_args(annotation)
        return base, tuple(metadata)
    return annotation, ()


def _parts(annotation: Any, metadata: tuple[Any, ...] = ()) -> Iterator[tuple[Any, tuple[Any, ...]]]:
    """The members of ``annotation`` but ``None``, each with the ``Annotated`` metadata around it."""
    base, inner = _annotated(annotation)
    metadata = metadata + inner
    if typing.get_origin(base) is typing.Union or isinstance(base, types.UnionType):
        for arg in typing.get_args(base):
            if arg is not type(None):
                yield from _parts(arg, metadata)
    else:
        yield base, metadata


def _marker(metadata: tuple[Any, ...], kind: type[T]) -> T | None:
    return next((m for m in metadata if isinstance(m, kind)), None)


def _string_leaf(base: Any, metadata: tuple[Any, ...]) -> Leaf | None:
    if typing.get_origin(base) is Literal:
        return Leaf("literal", words=tuple(a for a in typing.get_args(base) if isinstance(a, str)))
    if base is not str:
        return None
    if (shape := _marker(metadata, Shape)) is not None:
        return Leaf("shape", shape=shape)
    if (vocabulary := _marker(metadata, Words)) is not None:
        return Leaf("words", vocabulary=vocabulary)
    return Leaf("checked" if _marker(metadata, Checked) else "free")


def string_leaves(annotation: Any, metadata: tuple[Any, ...] = ()) -> Iterator[Leaf]:
    """Every string position of ``annotation`` (its ``Annotated`` ``metadata`` given apart, as pydantic keeps it)."""
    for base, meta in _parts(annotation, metadata):
        leaf = _string_leaf(base, meta)
        if leaf is not None:
            yield leaf
        elif typing.get_origin(base) in (list, tuple, set, frozenset, dict):
            # A container's items inherit the field's Checked marker, not its shapes.
            carried = tuple(m for m in meta if isinstance(m, Checked))
            for arg in typing.get_args(base):
                yield from string_leaves(arg, carried)


def _describe_string(base: Any, metadata: tuple[Any, ...]) -> str | None:
    leaf = _string_leaf(base, metadata)
    if leaf is None:
        return None
    if leaf.kind == "literal":
        words = leaf.words
        return f"one of {', '.join(f'`{w}`' for w in words)}" if len(words) <= 8 else f"one of {len(words)} words (listed below)"
    named = leaf.shape or leaf.vocabulary
    return f"*{named.name}*" if named else "text"


def _describe_one(base: Any, metadata: tuple[Any, ...]) -> str | None:
    if (text := _describe_string(base, metadata)) is not None:
        return text
    origin = typing.get_origin(base)
    if origin is list:
        return "a list of: " + describe_type(typing.get_args(base)[0])
    if origin is dict:
        key, value = typing.get_args(base)
        return f"a map of {describe_type(key)} to {describe_type(value)}"
    if base is bool:
        return "true or false"
    if base in (int, float):
        whole = "a whole number" if base is int else "a number"
        return f"{whole} ≥ 0" if any(isinstance(m, Ge) and m.ge == 0 for m in metadata) else whole
    return None


def describe(field: FieldInfo) -> str:
    """What a public field may hold, in one line for the docs."""
    parts = [text for base, meta in _parts(field.annotation, tuple(field.metadata)) if (text := _describe_one(base, meta))]
    text = "; or ".join(dict.fromkeys(parts))
    checked = _marker(tuple(field.metadata), Checked)
    return f"{text} ({checked.rule})" if checked else text


def describe_type(annotation: Any) -> str:
    """What a type admits, in words (``describe`` for a type that is not a field's)."""
    return describe(FieldInfo.from_annotation(annotation))
