"""The typed writer's core: a record of the contract in, its published form out.

Each field is published as its class says (``evidence_kit.model.publication``): a public field as
it is; an identity as its pseudonym (one per value and kind across the bundle); a secret not at
all; prose as it is, after the known-value check (:meth:`Publisher.check_prose`); a code as the
word of its vocabulary. A field the record does not declare (the contract allows extras) is not
typed, so it is not published: the receipt counts it per record type, never its value. The
strings of an undeclared field inside a ``private`` part are identities all the same (a raw folder
of the previous layout kept settings there too): they are hunted by the known-value scan.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from ..errors import BadInput
from ..model.formats.constraints import string_leaves
from ..model.formats.shapes import Shape, Words
from ..model.publication import Publication, Vocabulary, classed_fields
from .hunt import Hunter, KnownValue
from .pseudonyms import Pseudonyms, is_pseudonym

__all__ = ["Prose", "Publisher", "published_json"]

_MIN_SERIAL_DIGITS = 6  # a whole number with fewer digits is a setting or a count
# The kind of an undeclared field of a private part, by a word of its key (``jump_host``, ``gpu_uuids``,
# ``checkpoint_dir``): a key that names no kind holds no identity the scan can tell from a setting.
_KEY_KINDS: dict[str, str] = {
    "gpu": "gpu",
    "uuid": "gpu",
    "image": "image",
    "container": "container",
    "revision": "revision",
    "commit": "revision",
    "endpoint": "endpoint",
    "url": "endpoint",
    "host": "host",
    "hostname": "host",
    "node": "host",
    "ip": "ip",
    "mac": "mac",
    "model": "model",
    "served": "model",
    "path": "path",
    "dir": "path",
    "command": "command",
    "user": "user",
    "email": "email",
    "serial": "serial",
    "fingerprint": "fingerprint",
}
# Settings a raw folder of the previous layout kept in the header's private part: withheld, never hunted.
_PASSED_LIMIT = 4096  # strings each field remembers as fitting
_LEGACY_SETTINGS = frozenset({"cache_config", "collector_python", "engine_pid", "owned_by", "max_model_len", "version.version", "version.simulated"})
_KEY_WORD = re.compile(r"[a-z]+")


def _key_kind(key: str) -> str | None:
    words = _KEY_WORD.findall(key.rsplit(".", 1)[-1].lower())
    return next((_KEY_KINDS[w] for w in words if w in _KEY_KINDS), None)


@dataclass(frozen=True)
class Prose:
    """One prose field as published, where it stands, for the known-value check."""

    file: str
    line: int | None
    field: str
    text: str


@dataclass(frozen=True)
class _Action:
    name: str
    what: Publication | None  # None: the field holds records
    kind: str | None = None
    vocabulary: Vocabulary | None = None
    words: frozenset[str] = frozenset()  # a code's words: a value already one is published as it is
    text: Shape | Words | None = None  # a public string's shape or vocabulary (model/texts.py)
    optional: bool = False  # a public string that may be absent: one that does not fit is left out
    fits: Callable[[str], object] | None = field(default=None, compare=False)  # text's test, at hand for the hot path
    # Strings that need nothing done: a code's words, and the strings ``fits`` passed (it is a pure test of the
    # string); the hot path looks a repeated one (a run's name) up instead of testing it again.
    passed: set[str] = field(default_factory=set, compare=False)


def _text(info: FieldInfo) -> Shape | Words | None:
    """What a public field's strings must fit to be published, or ``None`` for a field without strings."""
    leaves = [leaf for leaf in string_leaves(info.annotation, tuple(info.metadata)) if leaf.kind in ("shape", "words")]
    return (leaves[0].shape or leaves[0].vocabulary) if leaves else None


def _public(name: str, info: FieldInfo) -> _Action | None:
    text = _text(info)
    if text is None:
        return None
    fits = text.compiled.fullmatch if isinstance(text, Shape) else text.fits
    return _Action(name, Publication.PUBLIC, text=text, optional=not info.is_required() and info.default is None, fits=fits)


@cache
def _actions(model: type[BaseModel]) -> tuple[_Action, ...]:
    """What to do to each field of ``model`` that is not published as it is."""
    out = []
    for f in classed_fields(model):
        if f.model is not model:
            continue
        if f.records:
            out.append(_Action(f.name, None))
        elif f.classed is None:
            raise TypeError(f"{f.where} declares no publication class")  # tests/redact/test_every_field_is_classed.py
        elif f.classed.publication is Publication.PUBLIC:
            if (action := _public(f.name, model.model_fields[f.name])) is not None:
                out.append(action)
        else:
            kind = f.classed.kind.value if f.classed.kind is not None else None
            vocabulary = f.classed.vocabulary
            words = frozenset(vocabulary.words if vocabulary else ())
            out.append(_Action(f.name, f.classed.publication, kind, vocabulary, words, passed=set(words)))
    return tuple(out)


def _records(value: Any) -> Iterator[BaseModel]:
    if isinstance(value, BaseModel):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            if isinstance(item, BaseModel):
                yield item  # the common list: of records (a sample's GPU rows), no generator each
            else:
                yield from _records(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _records(item)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _strings(item)


def _withheld_values(key: str, value: Any) -> Iterator[KnownValue]:
    """The identities an undeclared field of a private part holds: the strings under a key that names a kind
    (and, under one that names a mapping of them, its keys), and long whole numbers under a serial's key."""
    if key in _LEGACY_SETTINGS or key.split(".", 1)[0] in _LEGACY_SETTINGS or isinstance(value, bool):
        return
    kind = _key_kind(key)
    if isinstance(value, dict):
        for name, item in value.items():
            if kind is not None and isinstance(name, str) and name.strip():
                yield KnownValue(kind, name)  # "per_host": {"dgx-b200-rack4": ...}
            yield from _withheld_values(f"{key}.{name}", item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _withheld_values(key, item)
    elif kind is not None:
        yield from _withheld_leaf(kind, value)


def _withheld_leaf(kind: str, value: Any) -> Iterator[KnownValue]:
    if isinstance(value, int) and kind == "serial" and len(str(abs(value))) >= _MIN_SERIAL_DIGITS:
        yield KnownValue("serial", str(abs(value)))
    elif isinstance(value, str) and value.strip():
        yield KnownValue(kind, value)


@dataclass
class Publisher:
    """Publishes records in place; remembers what it pseudonymised, withheld and must check."""

    pseudonyms: Pseudonyms
    trusted: str | None = None  # the pseudonym kind of a RAW this tool redacted before: its pseudonyms stay
    identities: set[KnownValue] = field(default_factory=set)
    withheld: Counter[str] = field(default_factory=Counter)
    prose: list[Prose] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)  # the current file's pseudonyms, per kind

    def publish(self, record: BaseModel, *, file: str, line: int | None = None, private: bool = False) -> BaseModel:
        """Make ``record`` (validated, in place) its published form; return it."""
        extra = record.__pydantic_extra__
        if extra:
            self._withhold_extra(record, extra, private)
        present = record.__pydantic_fields_set__
        values = record.__dict__
        for action in _actions(type(record)):
            value = values[action.name]
            if value is None or (type(value) is str and value in action.passed):
                continue  # absent, a code already its word, or a string that fitted before (the common request)
            if action.name not in present:
                continue
            if action.fits is not None and type(value) is str and action.fits(value):
                if len(action.passed) < _PASSED_LIMIT:  # a bounded memory: a request's key, new each time, fills it once
                    action.passed.add(value)
                continue  # a public string that fits its shape (the common request's key)
            self._apply(record, action, file, line, private)
        return record

    def _withhold_extra(self, record: BaseModel, extra: dict[str, Any], private: bool) -> None:
        """Leave the fields the record does not declare out (counted); those of a private part are hunted."""
        self.withheld[type(record).__name__] += len(extra)
        if private:
            for key, value in extra.items():
                # An earlier redaction's pseudonym kept there is no private value (a bundle of the previous
                # layout holds the old `version` object, pseudonyms inside): hunting it finds the kept pseudonym.
                self.identities.update(v for v in _withheld_values(key, value) if not self._earlier(v.value))
        extra.clear()

    def _apply(self, record: BaseModel, action: _Action, file: str, line: int | None, private: bool) -> None:
        value = record.__dict__[action.name]
        if action.what is None:
            self._publish_inner(value, file, line, private or action.name == "private")
        elif action.what is Publication.IDENTITY:
            assert action.kind is not None
            kind = action.kind
            record.__dict__[action.name] = [self.pseudonym(kind, v) for v in value] if isinstance(value, list) else self.pseudonym(kind, value)
        elif action.what is Publication.PUBLIC:
            self._fit(record, action, file, line, value)
        elif action.what is Publication.SECRET:
            record.__pydantic_fields_set__.discard(action.name)
            self.withheld[f"{type(record).__name__}.{action.name}"] += 1
        elif action.what is Publication.CODE:
            assert action.vocabulary is not None
            if isinstance(value, str):
                record.__dict__[action.name] = action.vocabulary.code(value)
        else:
            self.prose += [Prose(file, line, f"{type(record).__name__}.{action.name}", text) for text in _strings(value)]

    def _publish_inner(self, value: Any, file: str, line: int | None, private: bool) -> None:
        """The records a field holds (one, or a list or mapping of them), each published in place."""
        for inner in (value,) if isinstance(value, BaseModel) else _records(value):
            if inner.__pydantic_extra__ or _actions(type(inner)):  # else there is nothing to do (a telemetry GPU row)
                self.publish(inner, file=file, line=line, private=private)

    def _fit(self, record: BaseModel, action: _Action, file: str, line: int | None, value: Any) -> None:
        """Publish a public string as it is only when it fits its shape or vocabulary: otherwise leave it out
        (a field that may be absent) or refuse the record, never naming the value."""
        text = action.text
        assert text is not None
        if text.fits(value) if isinstance(value, str) else all(text.fits(v) for v in value if isinstance(v, str)):
            return
        where = f"{type(record).__name__}.{action.name}"
        if action.optional:
            record.__pydantic_fields_set__.discard(action.name)
            self.withheld[f"{where} (not a {text.name})"] += 1
            return
        raise BadInput(
            f"{where} is not a {text.name} ({text.admits}): a public field is published as it is, "
            "so it holds nothing else; write the record as the collector does",
            file,
            line,
        )

    def _earlier(self, value: str) -> bool:
        """Whether ``value`` is a pseudonym of the earlier redaction this RAW came from."""
        return self.trusted is not None and is_pseudonym(value, self.trusted)

    def pseudonym(self, kind: str, value: str, *, hunted: bool = True) -> str:
        """``value``'s pseudonym as a ``kind`` (an earlier redaction's pseudonym stays as it is). ``hunted``:
        whether the known-value scan hunts ``value`` (a withheld file's name is published nowhere but as its
        pseudonym, so it is not: ``pod.json`` was once found inside its own record's name)."""
        if self._earlier(value):
            return value
        self.counts[kind] += 1
        if hunted:
            self.identities.add(KnownValue(kind, value))
        return self.pseudonyms.name(kind, value)

    def check_prose(self, hunter: Hunter) -> None:
        """Refuse prose that holds a known private value: one line naming the file, the line and the field."""
        for item in self.prose:
            kind = hunter.find(item.text)
            if kind is not None:
                raise BadInput(
                    f"{item.field} holds a private value (a {kind}, as the evidence's identities or the policy name it): "
                    "write it without, or by its pseudonym, and redact again",
                    item.file,
                    item.line,
                )


def published_json(record: BaseModel, *, indent: int | None = None) -> bytes:
    """A published record as JSON (UTF-8): its declared fields that were present, by their contract names."""
    return record.__pydantic_serializer__.to_json(record, by_alias=True, exclude_unset=True, indent=indent)
