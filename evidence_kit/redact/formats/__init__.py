"""Readers of raw free-text evidence, one per file format.

A reader turns one raw file (a vLLM startup log, ``nvidia-smi`` output, a Prometheus scrape, a
pod's description) into one typed record whose fields declare their publication class
(``evidence_kit.model.publication``). The redactor publishes that record, never the text: the raw
file itself stays private and the bundle lists it by name, size and sha256 only. A file that no
reader recognises is withheld whole.

A reader never fails on content: a raw log may be cut short or hold lines of any kind, so a fact
it cannot find is ``None``. Text that is not UTF-8 is refused before any reader sees it. Give a
reader the lines of :func:`lines_of` (bounded, read as they come) and recognition the text of
:func:`head_of` (the first 64 KiB).

Every public string of every record is a word of a closed vocabulary or a value of a strict
shape (``evidence_kit.model.formats``); :func:`public_words` is every such word, the words the
known-value scan must never hunt.
"""

from __future__ import annotations

from pydantic import BaseModel

from ...model.formats.constraints import string_leaves
from ...model.publication import Publication, classed_fields
from . import docker_inspect, kubectl_pod, nvidia_csv, nvidia_smi, prometheus_text, vllm_log
from .lines import HEAD_BYTES, MAX_LINE, head_of, lines_of
from .reader import Example, FormatReader

__all__ = ["HEAD_BYTES", "MAX_LINE", "READERS", "Example", "FormatReader", "head_of", "lines_of", "public_words", "reader_for"]


# In order of precedence: the first reader that recognises a file reads it.
READERS: tuple[FormatReader, ...] = (
    kubectl_pod.READER,
    docker_inspect.READER,
    nvidia_smi.QUERY_READER,
    nvidia_csv.CSV_READER,
    prometheus_text.READER,
    vllm_log.READER,
)


def reader_for(path: str, head: str) -> FormatReader | None:
    """The reader of a file (its path relative to the trial, its first 64 KiB), or ``None``."""
    return next((reader for reader in READERS if reader.recognises(path, head)), None)


def _words_of(*records: type[BaseModel]) -> set[str]:
    words: set[str] = set()
    for field in classed_fields(*records):
        if field.classed is None or field.classed.publication is not Publication.PUBLIC:
            continue
        info = field.model.model_fields[field.name]
        for leaf in string_leaves(info.annotation, tuple(info.metadata)):
            words.update(leaf.words)
            if leaf.vocabulary is not None:
                words.update(leaf.vocabulary.words)
        for marker in info.metadata:
            words.update(getattr(marker, "words", ()))
    return words


def public_words() -> frozenset[str]:
    """Every word a public field of any reader's record may hold (configuration words: ``auto``,
    ``fp8``, ``Running``, ``ngram``; label and metric names), and each reader's name as the bundle's
    record files carry it (``docker-inspect``, ``docker-inspect.json``: an operator's raw file may
    be named so). The known-value scan never hunts one."""
    names = {form for reader in READERS for form in (reader.name, f"{reader.name}.json")}
    return frozenset(_words_of(*(reader.record for reader in READERS)) - {""} | names)
