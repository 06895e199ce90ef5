"""The redaction policy file (TOML): values to hunt, words never to hunt, files to leave out.

```toml
schema = "evidence-kit/redaction-policy/v1"
public = ["acme-bench"]          # never hunted, even when a known value is spelled so
drop = ["logs/*.gz", "core.*"]   # files left out of the bundle (globs; * crosses folders)

[private]                        # kind = [values]
model = ["acme-labs/falcon-secret-70b"]
host = ["gpu-node-17.lab.acme.internal"]
value = ["Project Bluebird"]
```

A declared value that a guard refuses (a configuration word, an English or template word, a
number under six digits, a date, a version string) is an error naming its kind and the guard:
hunting it would find it in the site's own pages. The policy's digest (for the receipt) never
hashes a private value: each one enters the digest only as its pseudonym.
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
from .hunt import KnownValue, kind_of
from .pseudonyms import CLASSES, Pseudonyms
from .rules.guards import guard_of

__all__ = ["Policy", "POLICY_SCHEMA", "load_policy", "policy_digest"]

POLICY_SCHEMA: Final = "evidence-kit/redaction-policy/v1"


class Policy(Record):
    """What the operator adds: values to hunt, words never to hunt, files to leave out."""

    schema_: Literal["evidence-kit/redaction-policy/v1"] = Field(default=POLICY_SCHEMA, alias="schema")
    private: dict[str, list[str]] = Field(default_factory=dict)
    public: list[str] = Field(default_factory=list)
    drop: list[str] = Field(default_factory=list)
    disable: list[str] = Field(default_factory=list, description="no longer used (the redactor has no detectors); accepted so older files load")

    model_config = Record.model_config | {"populate_by_name": True, "extra": "forbid"}

    @field_validator("private")
    @classmethod
    def _known_kinds(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for name, items in value.items():
            if name not in CLASSES:
                raise ValueError(f"unknown kind {name!r} (one of {', '.join(CLASSES)})")
            for item in items:
                if not item.strip():
                    raise ValueError(f"an empty value under {name!r}")
                guard = guard_of(item)
                if guard is not None:
                    # Never echo the value: the message is printed and may be logged.
                    raise ValueError(
                        f"a value under {name!r} is never private on its own ({guard.name}: {guard.finds.split(' (')[0]}); "
                        "declare the whole name it is part of (the full host name, the whole path), or leave it out"
                    )
        return value

    @model_validator(mode="after")
    def _not_both(self) -> Policy:
        public = {word.lower() for word in self.public}
        if any(item.lower() in public for items in self.private.values() for item in items):
            raise ValueError("a value is listed both under [private] and in public")  # never echo the value
        return self

    def known_values(self) -> list[KnownValue]:
        """The private values it lists, in file order, by the kind each is hunted as."""
        return [KnownValue(kind_of(cls), item) for cls, items in self.private.items() for item in items]

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
        "private": {cls: sorted(pseudonyms.name(kind_of(cls), v) for v in items) for cls, items in sorted(policy.private.items())},
        "public": sorted(policy.public),
        "drop": sorted(policy.drop),
        "key": pseudonyms.key_id,
    }
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()
