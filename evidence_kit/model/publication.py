"""What each field of the contract may become when evidence is published.

Every field of a record the redactor writes declares one publication class, as ``Annotated``
metadata on its type::

    started_at: Annotated[str, PUBLIC] = Field(min_length=1)
    host: Annotated[str | None, identity(IdentityKind.HOST)] = None

- ``public``: published verbatim (numbers, timestamps, dates, enums, engine settings, versions).
- ``identity``: published as its pseudonym, one per distinct value and kind (model, host, path, ...).
- ``secret``: never published, not even as a pseudonym.
- ``prose``: operator-written text, published after the known-value check; a hit is an error.
- ``code``: a reason another program wrote (a failed request's error, a finish reason), published as
  the one word of a fixed vocabulary it reduces to (``timeout``, ``http-5xx``): never as written.

A field whose type is itself a record (or a list or mapping of records) needs no class: each of
its own fields declares one. The class is part of the JSON Schema (``x-publication``), so the
published schemas say what each field may hold.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, GetJsonSchemaHandler
from pydantic.fields import FieldInfo
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

__all__ = [
    "PROSE",
    "PUBLIC",
    "SECRET",
    "Classed",
    "ClassedField",
    "IdentityKind",
    "Publication",
    "Vocabulary",
    "classed_fields",
    "coded",
    "identity",
    "publication_of",
]


class Publication(StrEnum):
    """The four publication classes."""

    PUBLIC = "public"
    IDENTITY = "identity"
    SECRET = "secret"
    PROSE = "prose"
    CODE = "code"


class IdentityKind(StrEnum):
    """What an identity names; its pseudonym is spelled ``<kind>-<name>``."""

    MODEL = "model"
    REVISION = "revision"
    IMAGE = "image"
    GPU = "gpu"
    SERIAL = "serial"
    HOST = "host"
    IP = "ip"
    MAC = "mac"
    ENDPOINT = "endpoint"
    PATH = "path"
    USER = "user"
    CONTAINER = "container"
    POD = "pod"
    NAMESPACE = "namespace"
    COMMAND = "command"
    EMAIL = "email"
    FINGERPRINT = "fingerprint"
    VALUE = "value"


@dataclass(frozen=True)
class Vocabulary:
    """The words a ``code`` field is published as, and how a written reason reduces to one of them."""

    name: str
    words: tuple[str, ...]
    reduce: Callable[[str], str] = field(compare=False)
    summary: str = ""

    def code(self, text: str) -> str:
        """The word ``text`` reduces to; always one of :attr:`words`."""
        word = self.reduce(text)
        if word not in self.words:
            raise ValueError(f"{self.name} vocabulary reduced a reason to {word!r}, which is not one of its words")
        return word


@dataclass(frozen=True)
class Classed:
    """A field's publication class (and, for an identity, its kind): ``Annotated`` metadata."""

    publication: Publication
    kind: IdentityKind | None = None
    vocabulary: Vocabulary | None = None

    def __post_init__(self) -> None:
        if (self.publication is Publication.IDENTITY) != (self.kind is not None):
            raise ValueError("an identity names its kind, and only an identity does")
        if (self.publication is Publication.CODE) != (self.vocabulary is not None):
            raise ValueError("a code names its vocabulary, and only a code does")

    def __str__(self) -> str:
        if self.kind is not None:
            return f"identity:{self.kind}"
        if self.vocabulary is not None:
            return f"code:{self.vocabulary.name}"
        return str(self.publication)

    def __get_pydantic_json_schema__(self, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        schema = handler(core_schema)
        schema["x-publication"] = str(self)
        return schema


PUBLIC = Classed(Publication.PUBLIC)
SECRET = Classed(Publication.SECRET)
PROSE = Classed(Publication.PROSE)


def identity(kind: IdentityKind) -> Classed:
    """The class of a field that holds an identity of ``kind``."""
    return Classed(Publication.IDENTITY, kind)


def coded(vocabulary: Vocabulary) -> Classed:
    """The class of a field published as the word of ``vocabulary`` its text reduces to."""
    return Classed(Publication.CODE, vocabulary=vocabulary)


def publication_of(info: FieldInfo) -> Classed | None:
    """The class a field declares, or ``None`` when it declares none."""
    found = [m for m in info.metadata if isinstance(m, Classed)]
    if len(found) > 1:
        raise TypeError(f"a field declares {len(found)} publication classes: {', '.join(map(str, found))}")
    return found[0] if found else None


@dataclass(frozen=True)
class ClassedField:
    """One field of one model, with the class it declares and the records its type holds."""

    model: type[BaseModel]
    name: str
    classed: Classed | None
    records: tuple[type[BaseModel], ...]

    @property
    def where(self) -> str:
        return f"{self.model.__name__}.{self.name}"


def _records_in(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
        return
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        yield from _records_in(typing.get_args(annotation)[0])
        return
    if origin is None and not isinstance(annotation, types.UnionType):
        return
    for arg in typing.get_args(annotation):
        yield from _records_in(arg)


def classed_fields(*roots: type[BaseModel]) -> Iterator[ClassedField]:
    """Every field of ``roots`` and of every record their fields hold, each model once."""
    seen: set[type[BaseModel]] = set()
    todo = list(roots)
    while todo:
        model = todo.pop(0)
        if model in seen:
            continue
        seen.add(model)
        for name, info in model.model_fields.items():
            records = tuple(dict.fromkeys(_records_in(info.annotation)))
            yield ClassedField(model, name, publication_of(info), records)
            todo.extend(records)
