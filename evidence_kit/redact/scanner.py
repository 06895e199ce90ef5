"""The leak scan: any folder, every file name, every line, every known value and detector.

It is the redactor's safety net (detection alone guarantees nothing) and the
site builder's last step. A finding names the class, the file and the line,
never the value. Hashes the toolkit itself publishes are not findings: the
sha256 of every file in the tree, every ``sha256`` a manifest lists (also inside
a DSSE envelope's payload) and a receipt's policy digest, and their usual short
forms.
"""

from __future__ import annotations

import base64
import csv
import fnmatch
import io
import itertools
import json
import re
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic_core import from_json

from ..attest.manifest import ENVELOPE_NAME
from ..attest.tree import sha256_file as file_sha256
from ..errors import BadInput
from ..one_line import one_line
from . import walkers
from .ledger import Ledger
from .matcher import Hit, Matcher
from .policy import Policy
from .variants import KnownValue
from .walkers import _LITERAL, clean_key, file_kind, labelled_pairs, labels_absent, open_text, plain_literals

__all__ = [
    "Finding",
    "scan_tree",
    "scan_files",
    "published_hashes",
    "imported_hashes",
    "make_matcher",
    "with_short_forms",
    "SITE_KNOWN_ONLY",
]

# Theme files of a built site (minified scripts with cache-busting hex names): only
# known values are hunted there, the detectors would flag the theme's own hashes.
SITE_KNOWN_ONLY: tuple[str, ...] = ("assets/javascripts/*", "assets/stylesheets/*", "assets/images/*")
_COMPRESSED = frozenset({".gz", ".tgz", ".zip", ".xz", ".zst", ".zstd", ".bz2", ".lz4", ".7z", ".tar", ".rar"})
_SHA256 = re.compile(r"^(?:sha256:)?([0-9a-f]{64})$")
_SHORT_FORMS = (7, 8, 10, 12, 16)


@dataclass(frozen=True, order=True)
class Finding:
    """A private thing found: which file, which line (``None`` for the file name), which class."""

    file: str
    line: int | None
    cls: str
    source: str  # "known" (a known value or its variant), "detector", "unscannable", "broken", "parsed", "changed"

    def __str__(self) -> str:
        return one_line(self._text())

    def _text(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else f"{self.file} (file name)"
        how = "a known private value" if self.source == "known" else f"found by the {self.cls} detector"
        if self.source == "unscannable":
            if self.cls == "symlink":
                return f"{self.file}: symbolic link, not followed (publish regular files only)"
            return f"{self.file}: compressed file, cannot be scanned"
        if self.source == "broken":
            return (
                f"{self.file}: no longer parses as {self.cls} after redaction (a bare value equal to a "
                "private one was replaced); quote it in the raw file, or drop the file"
            )
        if self.source == "changed":
            return (
                f"{where}: changed while it was redacted (the lines copied differ from what discovery "
                "read); redact it again when nothing writes to it"
            )
        if self.source == "parsed":
            return f"{self.file}: {self.cls} (a private value its parser reveals, written in an escaped or split form)"
        return f"{where}: {self.cls} ({how})"


def make_matcher(known_values: Iterable[KnownValue | tuple[str, str]] = (), policy: Policy | None = None) -> Matcher:
    """A matcher for scanning: the policy's values and words plus ``known_values``."""
    policy = policy or Policy()
    known = [KnownValue(*value) for value in [*policy.known_values(), *known_values]]
    return Matcher(known, public=policy.public, disabled=policy.disable, declared=policy.known_values())


def with_short_forms(hexes: Iterable[str]) -> set[str]:
    """Hashes and the short forms they are quoted by (first 7, 8, 10, 12, 16 characters)."""
    out: set[str] = set()
    for value in hexes:
        out.add(value)
        out.update(value[:width] for width in _SHORT_FORMS)
    return out


_OWN_SCHEMAS = frozenset({"evidence-kit/manifest/v1", "evidence-kit/receipt/v1"})


def _own_document(path: Path) -> object | None:
    """A manifest, receipt or signed statement this tool writes, parsed; None for anything else
    (an OCI image's manifest.json lists digests too, but they are not ours to excuse)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if path.name.endswith(".dsse.json"):
            if data.get("payloadType") != "application/vnd.in-toto+json":
                return None
            data = json.loads(base64.b64decode(data["payload"]))
            return data if str(data.get("predicateType", "")).startswith("https://evidence-kit.invalid/") else None
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError, RecursionError):
        return None
    return data if isinstance(data, dict) and data.get("schema") in _OWN_SCHEMAS else None


def _labelled_hashes(path: Path) -> Iterator[str]:
    """sha256 values a manifest, a receipt or a DSSE envelope of this tool publishes."""
    data = _own_document(path)
    stack = [data] if data is not None else []
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            for key, value in item.items():
                if key in ("sha256", "policy_digest", "digest") and isinstance(value, str):
                    match = _SHA256.match(value)
                    if match:
                        yield match.group(1)
                stack.append(value)
        elif isinstance(item, list):
            stack.extend(item)


def is_redacted_tree(root: Path, files: list[str]) -> bool:
    """Whether ``root`` holds this tool's output (a receipt, a manifest or a signed statement of
    ours): then a detector hit spelled like a pseudonym is one. In raw evidence it is a real name."""
    return any(rel.rsplit("/", 1)[-1] in ("receipt.json", "manifest.json", ENVELOPE_NAME) and _own_document(root / rel) is not None for rel in files)


def imported_hashes(root: Path, files: Iterable[str]) -> set[str]:
    """The sha256 of each original result file an imported journal names in its header
    (``imported.files[].sha256``): a hash the toolkit publishes, so that whoever holds the file can match it."""
    hashes: set[str] = set()
    for rel in files:
        if not rel.endswith(".jsonl"):
            continue
        try:
            with (root / rel).open("r", encoding="utf-8") as handle:
                header = json.loads(handle.readline())
            listed = header["imported"]["files"] if header.get("type") == "header" else []
            hashes.update(m.group(1) for f in listed if isinstance(f, dict) for m in [_SHA256.match(str(f.get("sha256", "")))] if m)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            continue
    return hashes


def published_hashes(root: Path, files: list[str], known: dict[str, str] | None = None) -> set[str]:
    """The hashes the toolkit publishes in ``root`` (``known`` holds sha256s already computed)."""
    hashes = set((known or {}).values()) | imported_hashes(root, files)
    for rel in files:
        if rel not in (known or {}):
            hashes.add(file_sha256(root / rel)[0])
        name = rel.rsplit("/", 1)[-1]
        if name in ("manifest.json", "receipt.json") or name.endswith(".dsse.json"):
            hashes.update(_labelled_hashes(root / rel))
    return with_short_forms(hashes)


CLEAN_LIMIT = 200_000  # literals remembered clean (journals repeat a few dozen; the bound keeps memory flat)


def _line_hits(matcher: Matcher, line: str, json_like: bool, detectors: bool) -> list[Hit]:
    if not detectors:
        return matcher.known_leaks(line)
    if not json_like:
        return matcher.leaks(line)
    hits: list[Hit] = []
    clean = matcher.clean_literals
    plain = plain_literals(line)
    literals = () if plain is not None and clean.issuperset(plain) else _LITERAL.findall(line)
    for raw in literals:
        key = clean_key(raw)
        if key not in clean:
            try:
                decoded = json.loads(raw) if "\\" in raw else raw[1:-1]
            except ValueError:
                decoded = raw
            hits += _literal_leaks(matcher, key, decoded)
    for pair in labelled_pairs(line, plain):  # "Hostname": "…": the label and its value are two strings
        hits += matcher.leaks(pair)
    return hits + matcher.numbers(line)  # a private number written as a JSON number


def _parses(text: str) -> bool:
    """True for valid JSON: only then is everything outside its string literals numbers and punctuation."""
    try:
        from_json(text)
    except (ValueError, TypeError):  # TypeError: text holding bytes that are not UTF-8
        return False
    return True


def _scan_text(path: Path, rel: str, kind: str, matcher: Matcher, detectors: bool, ledger: Ledger | None = None) -> Iterator[Finding]:
    # JSON is scanned literal by literal, which sees all there is only in valid JSON: a file
    # or line that does not parse is scanned as text (a bare host after a record is found).
    if kind == "jsonl" and detectors:
        yield from _scan_jsonl(path, rel, matcher, ledger)
        return
    whole_json = False
    if kind == "json":
        with open_text(path) as handle:
            whole_json = _parses(handle.read())
    with open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            json_like = whole_json if kind == "json" else kind == "jsonl" and _parses(line)
            for hit in _line_hits(matcher, line, json_like, detectors):
                yield Finding(rel, number, hit.cls, hit.source)


def _scan_jsonl(path: Path, rel: str, matcher: Matcher, ledger: Ledger | None = None) -> Iterator[Finding]:
    """JSONL a batch at a time: a batch without a backslash whose literals were all found clean
    (none of them a label, and no private number known) and whose lines parse together as one
    JSON array (so outside its literals there is nothing but numbers and punctuation, as in each
    line that parses) has nothing to find; any other batch goes line by line.

    With the ``ledger`` of the raw file this one was written from, the batches are read as
    discovery read the raw ones (its line counts; a rewrite keeps every line a line), and a
    batch that is a raw batch byte for byte takes the literals discovery listed for it."""
    clean = matcher.clean_literals
    number = 0
    noted_batches = ledger.batches if ledger is not None else []
    with open_text(path) as handle:
        for index in itertools.count():
            if index < len(noted_batches):
                lines = list(itertools.islice(handle, noted_batches[index].lines))
            else:
                lines = handle.readlines(walkers._BATCH)
            if not lines:
                break
            batch = "".join(lines)
            noted = ledger.verified(index, batch) if ledger is not None else None
            if noted is None and ledger is not None and index in ledger.copied:
                # Copied on discovery's notes, yet not the batch discovery read: the raw file changed
                # during the redaction, and what it holds now was never examined by the rewrite.
                yield Finding(rel, number + 1, "JSONL", "changed")
            if noted is not None and not matcher.has_numbers() and labels_absent(noted) and _all_clean(matcher, noted):
                number += len(lines)
                continue  # checked JSON lines, each of their literals clean
            if (
                "\\" not in batch
                and not matcher.has_numbers()
                and clean.issuperset(literals := batch.split('"')[1::2])
                and labels_absent(literals)
                and _parses("[" + ",".join(line for line in lines if line.strip()) + "]")
            ):
                number += len(lines)
                continue
            for line in lines:
                number += 1
                for hit in _line_hits(matcher, line, _parses(line), True):
                    yield Finding(rel, number, hit.cls, hit.source)


def _literal_leaks(matcher: Matcher, key: str, decoded: str) -> list[Hit]:
    """The leaks of one JSON literal (``decoded``); a clean one is remembered under ``key``."""
    found = matcher.leaks(decoded)
    if not found and len(matcher.clean_literals) < CLEAN_LIMIT:
        matcher.clean_literals.add(key)
    return found


def _all_clean(matcher: Matcher, contents: Iterable[str]) -> bool:
    """Whether every literal (contents without escapes) is clean, remembering those found so."""
    clean = matcher.clean_literals
    return all(content in clean or not _literal_leaks(matcher, content, content) for content in contents)


_STRUCTURED = (".toml", ".yaml", ".yml", ".csv", ".tsv")


def _parsed_strings(path: Path) -> Iterator[str]:
    """Every key and string a parser reads from a TOML, YAML or CSV file (nothing if it does not parse).

    A value can be spelled so that only the parser shows it: a TOML line continuation or
    ``\\U`` escape, a YAML folded scalar, a CSV field quoted over two lines.
    """
    suffix = path.suffix.lower()
    try:
        with open_text(path) as handle:
            text = handle.read()
        if suffix == ".toml":
            stack: list[object] = [tomllib.loads(text)]
        elif suffix in (".yaml", ".yml"):
            stack = _yaml_documents(text)
        else:
            stack = list(csv.reader(io.StringIO(text, newline=""), delimiter="\t" if suffix == ".tsv" else ","))
    except (ValueError, yaml.YAMLError, csv.Error, RecursionError, UnicodeError):
        return
    budget = 1_000_000  # a YAML alias bomb expands without bound: stop after this many nodes
    while stack and budget:
        budget -= 1
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            for key, value in item.items():
                stack += [str(key), value]
        elif isinstance(item, (list, tuple)):
            stack.extend(item)


def _yaml_documents(text: str) -> list[object]:
    """The documents of a YAML stream, one by one: those before a document that does not parse
    (a truncated capture at the end) are kept."""
    documents: list[object] = []
    try:
        for document in yaml.safe_load_all(text):
            documents.append(document)
    except (ValueError, yaml.YAMLError, RecursionError):
        pass
    return documents


def _scan_parsed(path: Path, rel: str, matcher: Matcher, detectors: bool) -> Iterator[Finding]:
    for value in _parsed_strings(path):
        for hit in matcher.leaks(value) if detectors else matcher.known_leaks(value):
            yield Finding(rel, None, hit.cls, "parsed")


def _scan_envelope(path: Path, rel: str, matcher: Matcher) -> Iterator[Finding]:
    """A DSSE envelope: scan the payload it signs; the signature bytes are random, not private."""
    try:
        envelope = json.loads(path.read_text(encoding="utf-8"))
        payload = base64.b64decode(envelope["payload"]).decode("utf-8")
    except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
        yield from _scan_text(path, rel, "text", matcher, True)
        return
    json_like = _parses(payload)
    for number, line in enumerate(payload.splitlines(), start=1):
        for hit in _line_hits(matcher, line, json_like, True):
            yield Finding(f"{rel}#payload", number, hit.cls, hit.source)


def _scan_binary(path: Path, rel: str, matcher: Matcher) -> Iterator[Finding]:
    if path.suffix.lower() in _COMPRESSED:
        yield Finding(rel, None, "compressed", "unscannable")
        return
    overlap = 512
    tail = ""
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            text = tail + chunk.decode("utf-8", errors="surrogateescape")
            for _ in matcher.known_leaks(text):
                yield Finding(rel, None, "binary content", "known")
                return
            tail = text[-overlap:]


def scan_files(
    root: Path, files: list[str], matcher: Matcher, *, known_only: Iterable[str] = (), ledgers: dict[str, Ledger] | None = None
) -> list[Finding]:
    """Scan the named files of ``root`` (names and contents) with ``matcher``; sorted findings.

    ``ledgers`` (by file) are what discovery noted reading the raw file each was redacted from.
    """
    known_only = tuple(known_only)
    findings: set[Finding] = set()
    for rel in files:
        path = root / rel
        detectors = not any(fnmatch.fnmatchcase(rel, glob) for glob in known_only)
        name_hits = [(part, hit) for part in rel.split("/") for hit in (matcher.leaks(part) if detectors else matcher.known_leaks(part))]
        if name_hits:
            # A private file name is never printed: its private parts are shown as [class].
            rel = "/".join(matcher.mask(part) for part in rel.split("/"))
            findings.update(Finding(rel, None, hit.cls, hit.source) for _, hit in name_hits)
        kind = file_kind(path)
        if kind == "binary":
            findings.update(_scan_binary(path, rel, matcher))
        elif path.name.endswith(".dsse.json") or path.name == ENVELOPE_NAME:
            findings.update(_scan_envelope(path, rel, matcher))
        else:
            text_findings = set(_scan_text(path, rel, kind, matcher, detectors, (ledgers or {}).get(rel)))
            findings.update(text_findings)
            if not text_findings and path.suffix.lower() in _STRUCTURED:
                findings.update(_scan_parsed(path, rel, matcher, detectors))
    return sorted(findings, key=lambda f: (f.file, f.line or 0, f.cls, f.source))


def scan_tree(
    path: Path,
    *,
    known_values: Iterable[KnownValue | tuple[str, str]] = (),
    policy: Policy | None = None,
    known_only: Iterable[str] = (),
    skip: Iterable[str] = (),
) -> list[Finding]:
    """Scan a folder (raw evidence, a bundle, a built site) for anything private.

    ``known_values`` are ``(class, value)`` pairs to hunt for in every variant
    (see :func:`~.harvest.known_values_from_raw` and
    :func:`~.harvest.load_known_values`); the policy adds its own values, public
    words and disabled detectors. Files matching a ``known_only`` glob (e.g.
    :data:`SITE_KNOWN_ONLY`) are checked for known values but not by detectors.
    Files named in ``skip`` (relative paths: exact copies of public third-party files)
    are not scanned. Returns findings sorted by file and line; empty means clean.
    """
    root = Path(path)
    if not root.is_dir():
        raise BadInput("not a folder", root)
    skipped = set(skip)
    entries = list(root.rglob("*"))
    files = sorted(rel for rel in (p.relative_to(root).as_posix() for p in entries if p.is_file() and not p.is_symlink()) if rel not in skipped)
    links = sorted(rel for rel in (p.relative_to(root).as_posix() for p in entries if p.is_symlink()) if rel not in skipped)
    matcher = make_matcher(known_values, policy)
    hashes = published_hashes(root, files)
    if is_redacted_tree(root, files):
        matcher.for_scanning(hashes)
    else:
        matcher.allow(hashes)
    findings = scan_files(root, files, matcher, known_only=known_only)
    if links:
        findings = sorted({*findings, *_link_findings(links, matcher)}, key=lambda f: (f.file, f.line or 0, f.cls, f.source))
    return findings


def _link_findings(links: list[str], matcher: Matcher) -> Iterator[Finding]:
    """A symbolic link is never followed (its target may be anything, anywhere), so it is a
    finding of its own: a folder holding one is not clean. Its name is scanned like any name."""
    for rel in links:
        name_hits = [hit for part in rel.split("/") for hit in matcher.leaks(part)]
        if name_hits:
            rel = "/".join(matcher.mask(part) for part in rel.split("/"))
            yield from (Finding(rel, None, hit.cls, hit.source) for hit in name_hits)
        yield Finding(rel, None, "symlink", "unscannable")
