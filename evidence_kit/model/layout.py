"""The evidence contract's layout: every kind of file an evidence folder may hold, and where.

A decision folder holds ``decision.toml``, its trial bundles (the subfolders ``decision.toml``
names) and what the redactor and the signer write beside them; a trial bundle holds its plan,
journals, telemetry, logs and what the redactor writes. Nothing else is evidence: ``build``
refuses a decision folder holding any other file, and ``verify`` fails an evidence folder that
does (a page or an image there would be shown to a reader and compared with nothing). Each kind
is one :class:`FileKind` of :data:`FILE_KINDS`, with the paths it admits and near misses it does
not as examples (``tests/model/test_layout.py``); ``docs/contract.md``'s layout table is generated
from them.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

__all__ = ["FILE_KINDS", "FORMAT_RECORDS", "FileKind", "file_kind", "layout_markdown", "layout_problem", "outside_problem"]

Place = Literal["decision", "trial", "folder", "top"]  # "folder": the top of either; "top": of the folder verified only

# The typed records the redactor's format readers publish, ``<name>.<reader>.json`` (docs/redaction.md);
# ``tests/model/test_layout.py`` holds this to the registry of readers.
FORMAT_RECORDS = ("kubectl-pod", "docker-inspect", "nvidia-smi-query", "nvidia-smi-csv", "prometheus-text", "vllm-startup-log")

_NAME = r"[^./][^/]*"  # one path segment that is not hidden
_RECORD = rf"{_NAME}\.(?:{'|'.join(re.escape(r) for r in FORMAT_RECORDS)})\.json"


@dataclass(frozen=True)
class FileKind:
    """One kind of file the contract lays out: its name, where it sits, the paths it matches."""

    name: str
    place: Place
    shape: str  # the path as the docs and messages show it
    pattern: str  # a full match over the path within its folder, '/'-separated
    says: str
    examples: tuple[str, ...]
    refused: tuple[str, ...] = ()

    def admits(self, inner: str, place: Place, at_top: bool = False) -> bool:
        where = self.place == place or self.place == "folder" or (self.place == "top" and at_top)
        return where and re.fullmatch(self.pattern, inner) is not None


FILE_KINDS: tuple[FileKind, ...] = (
    FileKind("decision", "decision", "decision.toml", r"decision\.toml", "the decision: its trials and the operator's prose", ("decision.toml",)),
    FileKind("plan", "trial", "trial.json", r"trial\.json", "the plan as run, its decision rule and arm list", ("trial.json",), ("trial.JSON",)),
    FileKind(
        "journal",
        "trial",
        "journals/*.jsonl",
        rf"journals/{_NAME}\.jsonl",
        "one arm's journal, named in `trial.json`",
        ("journals/01-original-before.jsonl",),
        ("journals/01.jsonl.html", "journals/.hidden.jsonl", "journals/old/01-original-before.jsonl"),
    ),
    FileKind(
        "telemetry",
        "trial",
        "telemetry/*.jsonl",
        rf"telemetry/{_NAME}\.jsonl",
        "one arm's sampled series, named like its journal",
        ("telemetry/01-original-before.jsonl",),
        ("telemetry/01-original-before.svg",),
    ),
    FileKind(
        "log",
        "trial",
        "logs/*.log",
        rf"logs/{_NAME}\.log",
        "an engine's output (raw text: the redactor withholds it and publishes its format record)",
        ("logs/01-original-before.log",),
        ("logs/report.html", "logs/01-original-before.log.md"),
    ),
    FileKind(
        "format record",
        "trial",
        "*.<reader>.json",
        rf"(?:(?:logs|telemetry|journals)/)?{_RECORD}",
        "the typed record a format reader made of a withheld raw file (at the top, or in `logs/`, `telemetry/`, `journals/`)",
        ("logs/01-original-before.vllm-startup-log.json", "path-hpkmvpzt.nvidia-smi-query.json"),
        ("notes/path-hpkmvpzt.nvidia-smi-query.json", "path-hpkmvpzt.unknown-reader.json"),
    ),
    FileKind(
        "decision record",
        "decision",
        "*.<reader>.json",
        _RECORD,
        "the typed record a format reader made of a withheld raw file beside `decision.toml`",
        ("path-hpkmvpzt.docker-inspect.json",),
    ),
    FileKind("manifest", "folder", "manifest.json", r"manifest\.json", "sha256 and size of every other file", ("manifest.json",)),
    FileKind("receipt", "folder", "receipt.json", r"receipt\.json", "what the redactor replaced and withheld", ("receipt.json",), ("Receipt.json",)),
    FileKind(
        "signature",
        "top",
        "manifest.dsse.json, signing.pub",
        r"manifest\.dsse\.json|signing\.pub",
        "a signed folder's envelope and the public key it names: only at the top of the folder signed, where `verify`'s "
        "signature check reads them (never in a trial bundle of a decision, nor in a site's copy of the evidence)",
        ("manifest.dsse.json", "signing.pub"),
    ),
)


def _hidden(path: str) -> bool:
    return any(part.startswith(".") for part in path.split("/"))


def _held(place: Place, at_top: bool) -> str:
    return ", ".join(k.shape for k in FILE_KINDS if k.place in (place, "folder") or (k.place == "top" and at_top))


def file_kind(inner: str, place: Place, at_top: bool = False) -> FileKind | None:
    """The kind of the file at ``inner`` within a decision folder or a trial bundle, or None; ``at_top``: the
    folder is the one verified (not one it holds, nor a site's copy of it)."""
    return next((k for k in FILE_KINDS if k.admits(inner, place, at_top)), None)


def _trial_of(path: str, trials: Collection[str]) -> str | None:
    return next((t for t in sorted(trials, key=len, reverse=True) if path.startswith(t.rstrip("/") + "/")), None)


def layout_problem(path: str, trials: Collection[str] | None, *, at_top: bool = False) -> str | None:
    """What is wrong with a file at ``path`` in an evidence folder, or None when the contract lays it out.

    ``path`` is relative to a decision folder whose trial bundles are the subfolders ``trials``, or,
    with ``trials`` None, to a trial bundle. ``at_top``: the folder is the one verified, whose own
    signature may sit at its top.
    """
    if _hidden(path):
        return "a hidden file or folder is no evidence (MkDocs would drop it from a site)"
    if trials is None:
        place: Place = "trial"
        inner = path
    else:
        trial = _trial_of(path, trials)
        place, inner = ("trial", path[len(trial.rstrip("/")) + 1 :]) if trial is not None else ("decision", path)
        at_top = at_top and trial is None
    if file_kind(inner, place, at_top) is not None:
        return None
    if place == "decision" and "/" in inner:
        return "not a file of the evidence contract: it is in no trial bundle decision.toml names (docs/contract.md, Layout)"
    what = "a trial bundle" if place == "trial" else "a decision folder, beside its trial bundles,"
    return f"not a file of the evidence contract ({what} holds {_held(place, at_top)}; docs/contract.md, Layout)"


def outside_problem(path: str) -> str | None:
    """What is wrong with a file at ``path`` of the folder verified when it holds evidence folders (decision
    folders, trial bundles) in subfolders and the file is in none of them, or None: beside them sit only
    manifests, and at its top its signature."""
    name = path.rsplit("/", 1)[-1]
    beside = [k for k in FILE_KINDS if k.name in ("manifest", "signature")]
    if not _hidden(path) and any(k.admits(name, "folder", at_top="/" not in path) for k in beside):
        return None
    shapes = ", ".join(k.shape for k in beside)
    return (
        "not a file of the evidence contract: it is in no decision folder or trial bundle "
        f"(beside them a folder holds {shapes}; docs/contract.md, Layout)"
    )


def layout_markdown() -> str:
    """The layout table of ``docs/contract.md``."""
    rows = ["| kind | in | path | what it is |", "|---|---|---|---|"]
    where = {"decision": "decision folder", "trial": "trial bundle", "folder": "either, at its top", "top": "the folder signed, at its top"}
    for k in FILE_KINDS:
        rows.append(f"| {k.name} | {where[k.place]} | `{k.shape}` | {k.says} |")
    return "\n".join(rows) + "\n"
