"""``manifest.json`` and ``receipt.json``."""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field, NonNegativeInt, model_validator

from ._base import Record, RelPath
from .publication import PUBLIC

__all__ = ["ManifestEntry", "Manifest", "Receipt", "WithheldFile", "MANIFEST_SCHEMA", "RECEIPT_SCHEMA", "RECEIPT_NAME"]

MANIFEST_SCHEMA: Final = "evidence-kit/manifest/v1"
RECEIPT_SCHEMA: Final = "evidence-kit/receipt/v1"
RECEIPT_NAME = "receipt.json"  # beside each redacted folder's manifest


class ManifestEntry(Record):
    path: Annotated[RelPath, PUBLIC]
    size: Annotated[NonNegativeInt, PUBLIC]
    sha256: Annotated[str, PUBLIC] = Field(pattern=r"^[0-9a-f]{64}$")


class Manifest(Record):
    """sha256 and size of every file in a folder but the manifest (and its envelope)."""

    schema_: Annotated[Literal["evidence-kit/manifest/v1"], PUBLIC] = Field(alias="schema")
    files: list[ManifestEntry]

    model_config = Record.model_config | {"populate_by_name": True}

    @model_validator(mode="after")
    def _each_once(self) -> Manifest:
        seen: set[str] = set()
        for entry in self.files:
            if entry.path in seen:
                raise ValueError(f"{entry.path} is listed twice")
            seen.add(entry.path)
        return self


class WithheldFile(Record):
    """A raw file the bundle does not publish: listed so that an auditor can ask for it and check it."""

    path: Annotated[str, PUBLIC] = Field(description="its name: the collector's own as it is, any other as a path pseudonym")
    size: Annotated[NonNegativeInt, PUBLIC]
    sha256: Annotated[str, PUBLIC] = Field(pattern=r"^[0-9a-f]{64}$")
    record: Annotated[str | None, PUBLIC] = Field(default=None, description="the file holding the typed record a format reader read from it")
    reader: Annotated[str | None, PUBLIC] = Field(default=None, description="that format reader's name")


class Receipt(Record):
    """What the redactor did: never a private value, nor an unkeyed hash of one."""

    schema_: Annotated[Literal["evidence-kit/receipt/v1"], PUBLIC] = Field(alias="schema")
    tool_version: Annotated[str, PUBLIC]
    policy_digest: Annotated[str, PUBLIC] = Field(pattern=r"^sha256:[0-9a-f]{64}$")
    key_id: Annotated[str, PUBLIC]
    counts: Annotated[dict[str, dict[str, NonNegativeInt]], PUBLIC] = Field(default_factory=dict)
    pseudonyms: Annotated[Literal["hmac-sha256", "counter"] | None, PUBLIC] = Field(
        default=None, description="how pseudonyms were made: keyed (hmac-sha256) or numbered (counter)"
    )
    dropped: Annotated[list[str] | None, PUBLIC] = Field(default=None, description="files of the raw folder the policy dropped, names redacted")
    withheld: list[WithheldFile] | None = Field(default=None, description="the raw files the bundle does not publish, by name, size and sha256")
    withheld_fields: Annotated[dict[str, NonNegativeInt] | None, PUBLIC] = Field(
        default=None, description="fields not published, per record type: undeclared fields and secrets (never a value)"
    )

    model_config = Record.model_config | {"populate_by_name": True}
