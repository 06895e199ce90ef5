"""The format readers' reference, generated from the registry: what each publishes, and how.

``docs/redaction-formats.md`` holds it between two markers; a test fails when it drifts.
Regenerate it with ``python -m evidence_kit.redact.formats.docs docs/redaction-formats.md``.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Iterator
from pathlib import Path

from pydantic import BaseModel

from ...model.formats.constraints import describe, string_leaves
from ...model.formats.prometheus import LABELS, METRICS, PUBLIC_LABELS
from ...model.formats.shapes import SHAPES
from ...model.publication import Publication, publication_of
from . import READERS, FormatReader

__all__ = ["BEGIN", "END", "reference", "rewrite"]

BEGIN = "<!-- BEGIN GENERATED: python -m evidence_kit.redact.formats.docs docs/redaction-formats.md -->"
END = "<!-- END GENERATED -->"
_LONG = 8  # a Literal of more words than this is listed under the table


def _rows(model: type[BaseModel], prefix: str = "") -> Iterator[tuple[str, str, str, tuple[str, ...]]]:
    """``(path, published as, what it holds, its long vocabulary)`` of every leaf field, nested records by path."""
    for name, info in model.model_fields.items():
        path = f"{prefix}{name}"
        nested = [a for a in _records(info.annotation)]
        if nested:
            suffix = "[]." if typing.get_origin(info.annotation) is list else "."
            yield from _rows(nested[0], path + suffix)
            continue
        classed = publication_of(info)
        if classed is None:
            raise TypeError(f"{model.__name__}.{name} declares no publication class")
        if classed.publication is Publication.PUBLIC:
            words = tuple(w for leaf in string_leaves(info.annotation, tuple(info.metadata)) for w in leaf.words)
            yield path, "as is", describe(info), words if len(words) > _LONG else ()
        elif classed.publication is Publication.IDENTITY:
            yield path, f"pseudonym (`{classed.kind}`)", "", ()
        else:
            yield path, "never" if classed.publication is Publication.SECRET else str(classed.publication), "", ()


def _records(annotation: object) -> list[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [r for arg in typing.get_args(annotation) for r in _records(arg)]


def _reader(reader: FormatReader) -> list[str]:
    module = sys.modules[reader.record.__module__].__name__.replace(".", "/")
    out = [f"### `{reader.name}`", "", f"{reader.summary}. Record: `{reader.record.__name__}` (`{module}.py`).", ""]
    out += ["| Field | Published | What it may hold |", "|---|---|---|"]
    vocabularies: dict[tuple[str, ...], list[str]] = {}
    for path, published, holds, words in _rows(reader.record):
        out.append(f"| `{path}` | {published} | {holds} |".replace(" |  |", " | |"))
        if words:
            vocabularies.setdefault(words, []).append(f"`{path}`")
    if vocabularies:
        out += ["", "The longer vocabularies:", ""]
        out += [f"- {', '.join(paths)}: {', '.join(f'`{w}`' for w in words)}" for words, paths in vocabularies.items()]
    return out + [""]


def _shapes() -> list[str]:
    out = ["### Shapes", "", "A public string that is not a word of a vocabulary has one of these shapes (anchored patterns):", ""]
    out += ["| Shape | Admits | Pattern |", "|---|---|---|"]
    out += [f"| *{shape.name}* | {shape.admits} | `{shape.pattern}` |" for shape in SHAPES]
    vocabulary = METRICS
    out += ["", f"A *{vocabulary.name}* is one of these, with a sample suffix ({', '.join(f'`{s}`' for s in vocabulary.suffixes)}) or none:", ""]
    out.append(", ".join(f"`{w}`" for w in sorted(vocabulary.words, key=str.lower)))
    out += ["", f"A *{PUBLIC_LABELS.name}* is the name of a public label below.", ""]
    return out


def _labels() -> list[str]:
    out = ["### Prometheus labels", "", "A label of a scraped sample is published by its name's entry in `LABELS`", ""]
    out[-2] += " (`evidence_kit/model/formats/prometheus.py`); a label no entry names is counted and not published."
    out += ["| Label | Published | What its value may be |", "|---|---|---|"]
    for name, rule in sorted(LABELS.items(), key=lambda item: item[0].lower()):
        if rule.kind is not None:
            out.append(f"| `{name}` | pseudonym (`{rule.kind}`) | |")
            continue
        holds = [", ".join(f"`{w}`" if w else "empty" for w in sorted(rule.words))] if rule.words else []
        holds += [f"*{shape.name}*" for shape in rule.shapes]
        out.append(f"| `{name}` | as is | {'; or '.join(holds)} |")
    return out + [""]


def reference() -> str:
    """The generated section of ``docs/redaction-formats.md``."""
    lines = [BEGIN, ""]
    for reader in READERS:
        lines += _reader(reader)
    lines += _shapes() + _labels()
    return "\n".join(lines + [END])


def rewrite(path: Path) -> bool:
    """Put the current reference between the markers of ``path``; whether it changed."""
    text = path.read_text(encoding="utf-8")
    head, _, rest = text.partition(BEGIN)
    _, _, tail = rest.partition(END)
    new = head + reference() + tail
    path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    for name in sys.argv[1:]:
        print(f"{name}: {'rewritten' if rewrite(Path(name)) else 'unchanged'}")
