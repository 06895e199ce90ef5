"""Re-signing as a publisher who tampers would: the folder signed again with the claims it was signed with.

``sign_tree`` derives most of the predicate from the folder; what the builder adds (the toolchain that wrote
the bytes, how the folder was published) is carried over from the envelope already there, so a test's
tampered folder differs from the honest one only by the edit it makes."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from evidence_kit.attest import sign_tree
from evidence_kit.attest.history import HISTORY_FIELD
from evidence_kit.attest.manifest import ENVELOPE_NAME
from evidence_kit.attest.statement import PUBLICATION_FIELD, SOURCES_FIELD, TOOLCHAIN_FIELD

CARRIED = (TOOLCHAIN_FIELD, PUBLICATION_FIELD, SOURCES_FIELD, HISTORY_FIELD)


def signed_predicate(folder: Path) -> dict[str, Any]:
    envelope = json.loads((folder / ENVELOPE_NAME).read_text())
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]


def resign(folder: Path, key: Path, **overrides: Any) -> Path:
    """Sign ``folder`` again with ``key``, keeping the builder's claims of its current signature."""
    old = signed_predicate(folder) if (folder / ENVELOPE_NAME).is_file() else {}
    extra = {name: old[name] for name in CARRIED if name in old}
    extra.update(overrides)
    return sign_tree(folder, key, predicate=extra)
