"""The redaction policy file (TOML): extra private values, public words, dropped files.

```toml
schema = "evidence-kit/redaction-policy/v1"
public = ["acme-bench"]          # never private, even if a detector says so
drop = ["logs/*.gz", "core.*"]   # files left out of the bundle (globs; * crosses folders)
disable = []                     # detector classes to turn off, e.g. ["ip"]; "label" too

[private]                        # class = [values]
model = ["acme-labs/falcon-secret-70b"]
host = ["gpu-node-17.lab.acme.internal"]
value = ["Project Bluebird"]
```

The policy's digest (for the receipt) never hashes a private value: each one
enters the digest only as its pseudonym, which is keyed (or a counter).
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
from pathlib import Path
from typing import Final, Literal

from pydantic import Field, field_validator, model_validator

from ..model._base import Record
from ..read import read_toml_model
from .detectors import DETECTORS
from .pseudonyms import CLASSES, Pseudonyms
from .variants import KnownValue
from .vocabulary import format_words

__all__ = ["Policy", "POLICY_SCHEMA", "load_policy", "policy_digest"]

POLICY_SCHEMA: Final = "evidence-kit/redaction-policy/v1"
_DETECTOR_NAMES = frozenset(name for name, _ in DETECTORS) | {"label"}


class Policy(Record):
    """What the operator adds to the built-in rules."""

    schema_: Literal["evidence-kit/redaction-policy/v1"] = Field(default=POLICY_SCHEMA, alias="schema")
    private: dict[str, list[str]] = Field(default_factory=dict)
    public: list[str] = Field(default_factory=list)
    drop: list[str] = Field(default_factory=list)
    disable: list[str] = Field(default_factory=list)

    model_config = Record.model_config | {"populate_by_name": True, "extra": "forbid"}

    @field_validator("private")
    @classmethod
    def _known_classes(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, items in value.items():
            if name not in CLASSES:
                raise ValueError(f"unknown class {name!r} (one of {', '.join(CLASSES)})")
            if any(not item.strip() for item in items):
                raise ValueError(f"an empty value under {name!r}")
        return value

    @field_validator("disable")
    @classmethod
    def _known_detectors(cls, value: list[str]) -> list[str]:
        for name in value:
            if name not in _DETECTOR_NAMES:
                raise ValueError(f"unknown detector {name!r} (one of {', '.join(sorted(_DETECTOR_NAMES))})")
        return value

    @model_validator(mode="after")
    def _not_a_format_word(self) -> Policy:
        if any(item.strip().casefold() in format_words() for items in self.private.values() for item in items):
            # Never echo the value: the message is printed and may be logged.
            raise ValueError(
                "a value under [private] is a word of the evidence format itself (a field or record "
                "name); hunting it would rewrite the evidence's structure: list a longer spelling"
            )
        return self

    @model_validator(mode="after")
    def _not_both(self) -> Policy:
        public = {word.lower() for word in self.public}
        if any(item.lower() in public for items in self.private.values() for item in items):
            # Never echo the value: the message is printed and may be logged.
            raise ValueError("a value is listed both under [private] and in public")
        return self

    def known_values(self) -> list[KnownValue]:
        """The private values it lists, in file order."""
        return [KnownValue(cls, item) for cls, items in self.private.items() for item in items]

    def drops(self, *relpaths: str) -> bool:
        """Whether any of the relative paths of a file matches a ``drop`` glob."""
        return any(fnmatch.fnmatchcase(path, glob) for glob in self.drop for path in relpaths)


def load_policy(path: Path | None) -> Policy:
    """Read a policy file (errors name the file and line), or the empty policy."""
    if path is None:
        return Policy()
    return read_toml_model(Path(path), Policy)


def policy_digest(policy: Policy, pseudonyms: Pseudonyms) -> str:
    """``sha256:<hex>`` over the policy with each private value replaced by its pseudonym."""
    body = {
        "schema": POLICY_SCHEMA,
        "private": {cls: sorted(pseudonyms.name(cls, v) for v in items) for cls, items in sorted(policy.private.items())},
        "public": sorted(policy.public),
        "drop": sorted(policy.drop),
        "disable": sorted(policy.disable),
        "key": pseudonyms.key_id,
    }
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
