"""The values the known-value scan hunts, from a private map or from raw evidence."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ..errors import BadInput
from .hunt import KnownValue, kind_of
from .policy import Policy

__all__ = ["known_values_from_raw", "load_known_values"]


def load_known_values(path: Path) -> list[KnownValue]:
    """Known values from a private map written by ``redact --map`` (each entry's ``values``, by its kind)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        entries: Iterable[dict[str, Any]] = data["entries"]
        return [KnownValue(kind_of(str(e["class"])), str(v)) for e in entries for v in e["values"]]
    except FileNotFoundError:
        raise BadInput("file not found", path) from None
    except UnicodeDecodeError:
        raise BadInput("not a redaction map (not UTF-8 text)", path) from None
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise BadInput(f"not a redaction map ({type(err).__name__})", path) from None


def known_values_from_raw(raw: Path, policy: Policy | None = None) -> list[KnownValue]:
    """Every identity of a raw trial or decision folder (what ``redact`` would pseudonymise, and what it
    would withhold from a ``private`` part), plus the policy's: the values to hunt in anything built
    from that evidence. The raw folder is only read."""
    from .run import redact_bundle  # the typed writer is the one reader of identities

    raw = Path(raw)
    if not raw.is_dir():
        raise BadInput("not a folder", raw)
    with tempfile.TemporaryDirectory(prefix="evidence-kit-known-") as work:
        found = redact_bundle(raw, Path(work) / "out", policy=policy, map_out=Path(work) / "map.json")
        del found
        return sorted(set(load_known_values(Path(work) / "map.json")) | set((policy or Policy()).known_values()))
