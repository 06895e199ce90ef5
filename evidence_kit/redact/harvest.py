"""Harvest the known private values of raw evidence before anything is rewritten.

Like ``sos clean`` seeding its maps from authoritative sources first: every
value under a ``private`` object (journal headers and records, trial files, any
JSON file of the trial) is a known value, classed by its shape and the key it
sat under (or, when that key names no class, the nearest key above it that does:
``"models": [{"id": "org/name"}]``). Keys are values too, unless they are spelled like a
field name (``tensor_parallel_size``): a mapping keyed by host (``"per_host":
{"dgx-b200-rack4": …}``) names its hosts in its keys. A number (or a key of digits) is an
identity (a serial, an id) when it has :data:`~.variants.MIN_DIGITS` digits or more and its
key does not name a quantity (:func:`is_quantity_key`); a small setting (a tensor-parallel
size of 2) never is. Every pair of every object counts, a key written twice included, and
one value gets one class (:func:`reconcile`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..errors import BadInput
from .variants import MIN_DIGITS, KnownValue, classify, integral_digits

__all__ = [
    "NotText",
    "harvest_file",
    "harvest_private",
    "harvest_document",
    "harvest_text",
    "is_quantity_key",
    "load_known_values",
    "parse_pairs",
    "reconcile",
]

# A key spelled like a field name: lowercase words joined by underscores. Anything else
# (digits, hyphens, dots, capitals: dgx-b200-rack4, GPU-…, 10.0.0.7, node7) is a value.
_SURROGATE = re.compile("[\ud800-\udfff]")


class NotText(ValueError):
    """A private value that is not text (an unpaired surrogate escape): it cannot be hunted or written."""


_FIELD_NAME = re.compile(r"^[a-z]+(?:_[a-z]+)*$")
# A mapping keyed by data, not by field names: ``per_host``, ``by_user``, ``quota_by_user``, ``hosts_by_rack``.
_KEYED_BY = re.compile(r"(?:^|[_.])(?:per|by)_[a-z]+$")

# -- which numbers identify: the words of the key they sit under --------------------------------
#
# A key is split into words (at `_`, `-`, `.`, white space and camelCase). Then:
# 1. a key opening with a counting word (`num_gpus`, `n_serials`, `total_ids`) holds a count;
# 2. a trailing `num`/`number`/`no`/`nr` says "the X number" (`gpu_serial_num`, `block_num`): it is
#    dropped, and the word before it is the head; otherwise the head is the last word;
# 3. a head naming an identity (`serial`, `id`, `uuid`, `account`, …) makes an identity, a head naming
#    a quantity or a setting (`size`, `len`, `pid`, `port`, `time`, `bytes`, …, plurals too:
#    `start_times`, `worker_pids`) a quantity;
# 4. otherwise an identity word anywhere wins over a quantity word anywhere (`serial_num_tag`), a
#    quantity word anywhere makes a quantity (`max_num_seqs`, `process_start_time_s`), and a key
#    with neither (`account`, `board`, `api_token`) an identity.
_COUNTING = frozenset({"num", "n", "nb", "count", "total"})
_DESIGNATORS = frozenset({"num", "number", "no", "nr"})
_IDENTITY_WORDS = frozenset(
    {"serial", "sn", "id", "uuid", "guid", "uid", "account", "acct", "imei", "asset", "license", "licence", "badge", "ssn", "phone"}
)
_QUANTITY_WORDS = frozenset(
    """
    len length size count num max min block tokens byte pid pgid ppid port ratio rate second sec s ms us ns
    timeout limit utilization utilisation util memory mem mib mb gb kb kib gib version slot time timestamp ts
    epoch total duration elapsed latency uptime seq index idx offset step rank
    hz khz mhz ghz bps kbps mbps gbps bit bits watt watts w mw kw v mv amp amps a usd eur cost price celsius c
    temp temperature pct percent fraction freq frequency clock speed bandwidth power energy joules j
    """.split()
)
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")


def _words(key: str) -> list[str]:
    return [w.lower() for w in _KEY_WORDS.findall(key)]


def _in(word: str, vocabulary: frozenset[str]) -> bool:
    """``word`` or its singular (``times``, ``pids``, ``indexes``) is in ``vocabulary``."""
    return word in vocabulary or (word.endswith("s") and word[:-1] in vocabulary) or (word.endswith("es") and word[:-2] in vocabulary)


def is_quantity_key(key: str) -> bool:
    """Whether a number under ``key`` is a quantity or a setting, never an identity (rules above)."""
    words = _words(key)
    if not words:
        return False
    if len(words) > 1 and words[0] in _COUNTING:
        return True
    if len(words) > 1 and words[-1] in _DESIGNATORS:
        words = words[:-1]
    head = words[-1]
    if _in(head, _IDENTITY_WORDS):
        return False
    if _in(head, _QUANTITY_WORDS):
        return True
    if any(_in(word, _IDENTITY_WORDS) for word in words):
        return False
    return any(_in(word, _QUANTITY_WORDS) for word in words)


def _number_class(key: str) -> str:
    """A number that identifies is a serial (a board, a GPU, an account), or a token under a secret's key."""
    return "token" if classify("0", key) == "token" else "serial"


# -- every pair of every object, duplicates included ----------------------------------------------


class _Pairs(list):  # type: ignore[type-arg]
    """A JSON object as the list of its (key, value) pairs: a key written twice keeps both values."""

    def items(self) -> Iterator[tuple[str, Any]]:
        return iter(self)


def parse_pairs(text: str) -> Any:
    """Parse JSON keeping every pair of every object (``json.loads`` keeps only a duplicate key's last value)."""
    return json.loads(text, object_pairs_hook=_Pairs)


def _objects(obj: Any) -> bool:
    return isinstance(obj, (dict, _Pairs))


def harvest_private(obj: Any, key: str = "", context: tuple[str, ...] = ()) -> Iterator[KnownValue]:
    """Every value in a ``private`` object, its keys not spelled like field names, and its identifying numbers.

    ``key`` is the key ``obj`` sat under, ``context`` the keys above that one (outermost first):
    a value under a key that names no class takes the class the nearest of them names.
    """
    if isinstance(obj, bool) or obj is None:
        return
    if isinstance(obj, (int, float)):
        digits = integral_digits(obj)  # a serial written as 1322021012345.0 by a JavaScript tool is still one
        if digits is not None and len(digits) >= MIN_DIGITS and not is_quantity_key(key):
            yield KnownValue(_number_class(key), digits)
    elif isinstance(obj, str):
        if _SURROGATE.search(obj):
            raise NotText("a private value holds an unpaired surrogate (a \\ud800-\\udfff escape): not text")
        value = obj.strip()
        if value.isdigit():
            if not is_quantity_key(key):
                yield KnownValue(_number_class(key), obj)
        elif value:
            yield KnownValue(classify(obj, key, context), obj)
    elif _objects(obj):
        inner = (*context, key) if key else context
        keyed_by_data = _KEYED_BY.search(key) is not None  # quota_by_user, per_host: its keys are users, hosts
        for name, value in obj.items():
            if name.strip() and (keyed_by_data or not _FIELD_NAME.match(name)):
                if name.strip().isdigit():  # {"per_pid": {"204857": …}}: a number, by the number rule
                    if not is_quantity_key(key):
                        yield KnownValue(_number_class(key), name)
                else:
                    yield KnownValue(classify(name, key, context), name)
            yield from harvest_private(value, name, inner)
    elif isinstance(obj, list):
        for item in obj:
            yield from harvest_private(item, key, context)


def reconcile(values: Iterable[KnownValue]) -> list[KnownValue]:
    """One class per value: a value harvested under two keys takes the more specific class.

    ``value`` (no class) is the least specific, then ``hex`` (a shape only); between two
    specific classes the first met wins. ``"models": [{"id": "org/name"}]`` met before
    ``"model": "org/name"`` is the same model; the matcher keeps the first class of a spelling,
    so two classes for one value would give it two pseudonyms. Order is kept; repeats dropped.
    """
    values = list(values)
    rank = {"value": 0, "hex": 1}
    best: dict[str, str] = {}
    for known in values:
        held = best.get(known.value)
        if held is None or rank.get(known.cls, 2) > rank.get(held, 2):
            best[known.value] = known.cls
    out: list[KnownValue] = []
    seen: set[KnownValue] = set()
    for known in values:
        chosen = KnownValue(best[known.value], known.value)
        if chosen not in seen:
            seen.add(chosen)
            out.append(chosen)
    return out


def harvest_document(data: Any) -> list[KnownValue]:
    """The private values of one parsed JSON document: every top-level ``private`` object
    (all of them when the key is written twice and ``data`` came from :func:`parse_pairs`)."""
    if isinstance(data, _Pairs):
        found = [value for name, body in data if name == "private" for value in harvest_private(body, "private")]
    elif isinstance(data, dict) and "private" in data:
        found = list(harvest_private(data["private"], "private"))
    else:
        return []
    return reconcile(found)


def harvest_text(text: str) -> list[KnownValue]:
    """The private values of one JSON text (a document, or one JSONL line), every pair included."""
    return harvest_document(parse_pairs(text))


def harvest_file(path: Path, kind: str) -> list[KnownValue]:
    """Private values in one file: a JSON document's top-level ``private``, or a JSONL header's.

    (A JSONL line after the first is harvested as it is read: see
    :func:`~.walkers.file_texts`.)
    """
    if kind not in ("json", "jsonl"):
        return []
    try:
        with path.open("r", encoding="utf-8", errors="surrogateescape") as handle:
            text = handle.readline() if kind == "jsonl" else handle.read()
        if not text.strip():
            return []
        return harvest_text(text)
    except json.JSONDecodeError as err:
        raise BadInput(f"not valid JSON ({err.msg})", path, err.lineno) from None
    except RecursionError:
        raise BadInput("JSON nested too deeply", path) from None
    except NotText as err:
        raise BadInput(str(err), path, 1 if kind == "jsonl" else None) from None
    except ValueError:  # not a JSONDecodeError: an integer of more digits than Python converts
        raise BadInput("not valid JSON (a number of too many digits)", path, 1 if kind == "jsonl" else None) from None


def load_known_values(path: Path) -> list[KnownValue]:
    """Known values from a private map written by ``redact --map`` (its ``values`` lists)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        entries: Iterable[dict[str, Any]] = data["entries"]
        return [KnownValue(str(e["class"]), str(v)) for e in entries for v in e["values"]]
    except FileNotFoundError:
        raise BadInput("file not found", path) from None
    except UnicodeDecodeError:
        raise BadInput("not a redaction map (not UTF-8 text)", path) from None
    except (json.JSONDecodeError, KeyError, TypeError) as err:
        raise BadInput(f"not a redaction map ({type(err).__name__})", path) from None
