"""Every spelling of a known private value that must not survive.

A value is known by its class (model, host, path, ...). :func:`variants` lists
the forms it takes elsewhere: an organisation or a name alone, the Hugging Face
cache folder ``models--org--name``, a host's short name and domain, an image's
registry host, a path's components, the short forms of a fingerprint, URL- and
JSON-escaped spellings. Each variant names the entity its pseudonym is for, so
``org/name`` and ``models--org--name`` get the same ``model-N``.

Letter case is handled by the matcher (it folds case), not by listing cases here.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import shlex
import unicodedata
from collections.abc import Iterator
from functools import lru_cache
from typing import NamedTuple
from urllib.parse import SplitResult, quote, quote_plus, urlsplit

from .detectors import _TLDS, is_public
from .pseudonyms import CLASSES

__all__ = ["Variant", "KnownValue", "variants", "classify", "canonical", "integral_digits", "MIN_LENGTH", "MIN_DIGITS"]

MIN_LENGTH = 3
# A machine or a person may have a two-letter name (a host called `vm`, a user `jd`): whole names of
# these classes are hunted from two characters on, as whole words.
SHORT_NAMES = frozenset({"host", "user"})
MIN_DIGITS = 6  # an all-digit spelling shorter than this is a count or a setting, never an identity
MIN_BASE64_BYTES = 8  # base64 is hunted for spellings at least this long (8 bytes: 8+ letters of base64)
_HEX = re.compile(r"^[0-9a-fA-F]{7,128}$")
_UUID = re.compile(r"^(?:(GPU|MIG)-(?:GPU-)?)?([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(/.*)?$")
_IPV4 = re.compile(r"^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$")
_HOST = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$")
_VERSION = re.compile(r"^v?[0-9]+(?:\.[0-9]+)*(?:[.-]?(?:post|dev|rc|a|b)[0-9]*)?$")
# Key names in a `private` object, mapped to the class of their values.
_KEY_HINTS: tuple[tuple[str, str], ...] = (
    ("gpu", "gpu"),
    ("uuid", "uuid"),
    ("image", "image"),
    ("container", "container"),
    ("revision", "revision"),
    ("commit", "revision"),
    ("fingerprint", "revision"),
    ("sha", "revision"),
    ("digest", "revision"),
    ("endpoint", "endpoint"),
    ("url", "endpoint"),
    ("route", "endpoint"),
    # The collector's Ray node ids (a run record's private ray_nodes): opaque hex ids that Ray's own logs
    # shorten, hunted as fingerprints are, prefixes included; before "node", which would make them hosts.
    ("ray_node_id", "hex"),
    ("host", "host"),
    ("node", "host"),
    ("machine", "host"),
    ("path", "path"),
    ("dir", "path"),
    ("file", "path"),
    ("model", "model"),
    ("served", "model"),
    ("draft", "model"),
    ("email", "email"),
    ("user", "user"),
    ("serial", "serial"),
    ("token", "token"),
    ("key", "token"),
    # A command line (the collector's `start_command`) is read as a path: each word with a `/`
    # in it is hunted as a path, with its components (see :func:`_path`).
    ("command", "path"),
    ("cmd", "path"),
    ("argv", "path"),
    ("args", "path"),
)
_TOP_LEVEL_DOMAINS = frozenset(_TLDS)
# Last labels that make a dotted word a file name, not a host (`config.yaml`, `model.safetensors`).
_FILE_SUFFIXES = frozenset(
    """
    json jsonl ndjson yaml yml toml txt log logs py pyc sh csv tsv md rst html xml cfg conf ini env lock
    bin pt pth ckpt safetensors gguf onnx npy npz pkl tar gz tgz zip xz zst bz2 so whl egg out err pid
    """.split()
)


class KnownValue(NamedTuple):
    """A private value and its class (one of :data:`~.pseudonyms.CLASSES`)."""

    cls: str
    value: str


class Variant(NamedTuple):
    """One spelling to hunt for, and the (class, value) entity it stands for.

    ``exact`` spellings (the base64 of a value) are matched as they are: digits running
    on past their end are more base64, not another value.
    """

    text: str
    cls: str
    entity: str
    exact: bool = False


def integral_digits(value: object) -> str | None:
    """The digits of a whole number (an int, or a float such as ``1322021012345.0`` or ``1.3e12``), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not (value.is_integer() and abs(value) < 1e300):
        return None
    return str(abs(int(value)))


def key_class(key: str) -> str | None:
    """The class a key names (``served_model_name`` -> model, ``start_command`` -> path), if any."""
    lowered = key.lower()
    for hint, cls in _KEY_HINTS:
        if hint in lowered:
            return cls
    return None


def _host_shaped(value: str, *, known_tld: bool) -> bool:
    """A dotted host name: labels of letters, digits and hyphens; with ``known_tld``, ending in a
    top-level domain the host detector knows (``.internal``, ``.com``, …); else each label holding
    a letter, the last one letters (and hyphens) only and not a file suffix, and a hyphen in a label or a first
    label ending in a digit, as machines are named (``zeta-node-5.lab.zeta-corp``, ``node7.rack``;
    not ``config.yaml``, nor a Python name such as ``vllm.entrypoints.openai``)."""
    if not _HOST.match(value) or _VERSION.match(value):
        return False
    labels = value.lower().split(".")
    if known_tld:
        return labels[-1] in _TOP_LEVEL_DOMAINS
    return (
        all(re.search("[a-z]", label) for label in labels)
        and re.fullmatch("[a-z-]+", labels[-1]) is not None
        and labels[-1] not in _FILE_SUFFIXES
        and ("-" in value or labels[0][-1].isdigit())
    )


def classify(value: str, key: str = "", context: tuple[str, ...] = ()) -> str:
    """The class of a private value: by its shape first, then by the key it sat under.

    Shapes: a UUID, a URL, a path, an IPv4 address, an e-mail, a host name ending in a known
    top-level domain. Then the key; a key that names no class (``id``, ``root``, ``name``) takes
    the class of the nearest key in ``context`` (the keys above it, innermost last) that names
    one: ``"models": [{"id": "org/name"}]`` is a model. Then a 7-128 hex string is ``hex``, a
    dotted name whose labels all hold letters is a ``host``, and anything else a ``value``.
    """
    if _UUID.match(value):
        return "gpu" if value[:4].upper() in ("GPU-", "MIG-") else "uuid"
    if "://" in value:
        return "endpoint"
    if value.startswith(("/", "~/")) or re.match(r"^[A-Za-z]:\\", value):
        return "path"
    if _IPV4.match(value):
        return "ip"
    if "@" in value and "." in value.split("@")[-1]:
        return "email"
    if _host_shaped(value, known_tld=True):
        return "host"
    for name in (key, *reversed(context)):
        cls = key_class(name)
        if cls is not None:
            return cls
    if _HEX.match(value):
        return "hex"
    if _host_shaped(value, known_tld=False):
        return "host"
    return "value"


def _encoded(text: str) -> Iterator[str]:
    """Escaped spellings a value takes inside JSON text, query strings and shell lines (and its NFKC form)."""
    yield text
    composed = unicodedata.normalize("NFKC", text)
    if composed != text:
        yield composed  # what the hidden-letter view reads: composed, compatibility letters folded
    if "/" in text:
        yield text.replace("/", "\\/")
    if " " in text:
        yield text.replace(" ", "\\ ")
    for a, b in (("-", "_"), ("_", "-"), (" ", "_"), (" ", "-")):  # falcon_secret_70b, Project_Bluebird
        if a in text:
            yield text.replace(a, b)
    try:
        yield from (quote(text, safe=""), quote(text), quote_plus(text))
    except UnicodeEncodeError:
        return  # a lone surrogate (harvest refuses it; the scan may still meet one)


def _base64(text: str) -> Iterator[str]:
    """What ``text`` looks like inside base64, at each of the three alignments a value can sit at.

    Base64 spells three bytes as four letters, so a value inside encoded data shows as the
    encoding of the value from its first, second or third byte on, up to a whole group
    (what secret scanners hunt for). Standard and URL-safe alphabets.
    """
    raw = text.encode("utf-8", "surrogatepass")
    for start in range(3):
        chunk = raw[start:]
        usable = len(chunk) - len(chunk) % 3
        if usable < 6:
            continue
        encoded = base64.b64encode(chunk[:usable]).decode("ascii")
        yield encoded
        yield encoded.replace("+", "-").replace("/", "_")


def _model(value: str) -> Iterator[tuple[str, str, str]]:
    name = value.strip("/")
    if name.startswith("models--"):
        name = name[len("models--") :].replace("--", "/", 1)
    yield name, "model", name
    if "/" in name:
        org, base = name.split("/", 1)
        yield f"models--{org}--{base.replace('/', '--')}", "model", name
        yield f"{org}--{base}", "model", name
        yield base, "model", name
        yield org, "org", org


_REVERSE_DNS = re.compile(r"^([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.in-addr\.arpa\.?$", re.IGNORECASE)


def _ipv4(value: str) -> Iterator[tuple[str, str, str]]:
    """An IPv4 address as people and tools write it: dotted, dashed, as one hex number, reversed.

    (Zero-padded and hex octets, ``010.020.030.040`` or ``0x0a.0x14.0x1e.0x28``, are read
    back to the dotted form by a view: see :mod:`.views`.)
    """
    octets = [int(part) for part in value.split(".")]
    value = ".".join(map(str, octets))
    yield value, "ip", value
    yield "-".join(map(str, octets)), "ip", value  # ip-10-0-3-17.ec2.internal embeds it so
    number = int.from_bytes(bytes(o & 255 for o in octets), "big")
    yield f"0x{number:08x}", "ip", value
    yield ".".join(map(str, reversed(octets))) + ".in-addr.arpa", "ip", value


def _ipv6(value: str) -> Iterator[tuple[str, str, str]]:
    """An IPv6 address compressed, in full, without leading zeros; an IPv4-mapped one as its IPv4 too."""
    try:
        address = ipaddress.IPv6Address(value.split("%")[0].strip("[]"))
    except ValueError:
        yield value, "ip", value
        return
    canon = str(address.ipv4_mapped) if address.ipv4_mapped is not None else address.compressed
    yield value, "ip", canon
    yield address.compressed, "ip", canon
    yield address.exploded, "ip", canon
    yield ":".join(f"{int(group, 16):x}" for group in address.exploded.split(":")), "ip", canon
    if address.ipv4_mapped is not None:
        yield from _ipv4(str(address.ipv4_mapped))


def _mac(value: str) -> Iterator[tuple[str, str, str]]:
    """A MAC address as ip link, Windows and Cisco print it, and bare."""
    digits = re.sub(r"[^0-9a-fA-F]", "", value).lower()
    if len(digits) != 12:
        yield value, "mac", value
        return
    canon = ":".join(digits[i : i + 2] for i in range(0, 12, 2))
    unpadded = ":".join(f"{int(digits[i : i + 2], 16):x}" for i in range(0, 12, 2))  # macOS arp: 0:1a:2b:…
    for spelled in (canon, canon.replace(":", "-"), f"{digits[:4]}.{digits[4:8]}.{digits[8:]}", digits, unpadded):
        yield spelled, "mac", canon


def canonical(cls: str, value: str) -> str:
    """The one spelling a value's pseudonym is named after: an address or a MAC however written."""
    if cls == "ip":
        reverse = _REVERSE_DNS.match(value)
        if reverse:
            return ".".join(reversed(reverse.groups()))
        if ":" in value:
            canon = next(_ipv6(value))[2]
            try:
                mapped = ipaddress.IPv6Address(canon).ipv4_mapped
            except ValueError:
                return canon
            return str(mapped) if mapped is not None else canon
    if cls == "mac":
        return next(_mac(value))[2]
    return value


def _host(value: str) -> Iterator[tuple[str, str, str]]:
    if _IPV4.match(value):
        yield from _ipv4(value)
        return
    if ":" in value:
        yield from _ipv6(value)
        return
    reverse = _REVERSE_DNS.match(value)
    if reverse:  # a reverse-DNS name is the address it names
        yield from _ipv4(".".join(reversed(reverse.groups())))
        return
    yield value, "host", value
    if "." in value:
        labels = value.split(".")
        yield labels[0], "host", value
        for start in range(1, len(labels)):
            # every parent domain: lab.acme-corp.internal, acme-corp.internal (a top-level domain alone is public)
            domain = ".".join(labels[start:])
            yield domain, "domain", domain
    embedded = re.search(r"(?<![0-9])([0-9]{1,3})[-.]([0-9]{1,3})[-.]([0-9]{1,3})[-.]([0-9]{1,3})(?![0-9])", value)
    if embedded and all(int(o) < 256 for o in embedded.groups()):
        yield from _ipv4(".".join(embedded.groups()))


# Hosts whose URL paths name a model (``huggingface.co/org/name/…``), and URL schemes of object
# stores and file systems, whose paths name a bucket's objects (``s3://bucket/ckpts/name/step``).
_MODEL_HUBS = frozenset({"huggingface.co", "www.huggingface.co", "hf.co", "modelscope.cn", "www.modelscope.cn"})
_HUB_SECTIONS = frozenset({"datasets", "spaces", "models"})
_OBJECT_SCHEMES = frozenset(
    {
        "s3",
        "s3a",
        "s3n",
        "gs",
        "gcs",
        "az",
        "abfs",
        "abfss",
        "wasb",
        "wasbs",
        "adl",
        "hdfs",
        "oss",
        "cos",
        "obs",
        "r2",
        "b2",
        "swift",
        "file",
        "dbfs",
        "minio",
    }
)
# host[:port][/path] without a scheme: `zeta-node-6:8123`, `[fd00::1]:8000/v1`.
_SCHEMELESS = re.compile(r"^(?:\[[0-9A-Fa-f:.%]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)(:[0-9]{1,5})?(?:/.*)?$")


def split_url(value: str) -> SplitResult:
    """``urlsplit``, and for a URL whose host holds characters that NFKC turns into URL syntax
    (fullwidth ``／``, ``：``: ``urlsplit`` refuses those with ValueError), ``urlsplit`` of its NFKC
    form, so the host is still found (in the spelling the variants hunt every width of).
    Raises ValueError only where the NFKC form is no URL either."""
    try:
        parts = urlsplit(value)
    except ValueError:
        parts = urlsplit(unicodedata.normalize("NFKC", value))
    if not parts.scheme and re.match(r"[^/?#]+://", value):
        # A scheme urlsplit refuses ("0132a://host/x" starts with a digit): the host is still a host.
        return split_url("//" + value.split("://", 1)[1])
    return parts


def _url(value: str) -> Iterator[tuple[str, str, str]]:
    """A URL's spellings: itself, its host (every host variant), ``host:port``, its user and its
    password, and, for a model hub or an object store, the identifying parts of its path (a hub's
    ``org/name`` as a model; a bucket's object path as a path). The path of any other URL
    (``/v1``, ``/api/chat``) names an API, not a private object, and is not hunted on its own.
    A value without a scheme (``host:8123``) is read as ``//host:8123``."""
    yield value, "endpoint", value
    yield value.rstrip("/"), "endpoint", value
    try:
        parts = split_url(value if "://" in value else "//" + value)
        hostname, port = parts.hostname, parts.port
    except ValueError:  # a port that is not a number, an unbalanced bracket: the whole value stays hunted
        return
    if hostname:
        yield from _host(hostname)
        if port:
            yield f"{hostname}:{port}", "endpoint", value
    if parts.username:
        yield parts.username, "user", parts.username
    if parts.password:
        yield parts.password, "token", parts.password
    path = parts.path
    if (hostname or "").lower() in _MODEL_HUBS:
        words = [w for w in path.split("/") if w]
        if words and words[0] in _HUB_SECTIONS:
            words = words[1:]
        if len(words) >= 2:
            yield from _model(f"{words[0]}/{words[1]}")
        elif words:
            yield words[0], "org", words[0]
    elif parts.scheme.lower() in _OBJECT_SCHEMES and path.strip("/"):
        yield from _path(path)


# Folder names every machine has: on their own they identify nobody, and hunting for them
# would flag "work" or "bin" in any text. The identifying parts of a path (a user, a
# project, a model folder) are still hunted, and so is the whole path.
_COMMON_PATH_PARTS: frozenset[str] = frozenset(
    """
    bin sbin lib lib64 libexec usr local share etc var run tmp opt srv home root mnt media
    work workspace workspaces src source code repo repos project projects build dist out
    venv .venv env .env site-packages dist-packages packages python python3 .cache .local .config
    logs log data datasets models model weights checkpoints snapshots blobs refs cache hub
    """.split()
)


def _command_tokens(value: str) -> list[str]:
    """The words of a command line, as a shell splits them (quotes and ``\\ `` escapes undone)."""
    try:
        return shlex.split(value)
    except ValueError:  # an unbalanced quote: not a command line a shell would run, split at spaces
        return value.split()


# A run id as the collector writes it (collect/runs.py: r1-8192-c4, r1-8192-rate2.0), in lower case. A path's
# folder named for a run, as operators file their runs, is the evidence's own name for it, so it is not hunted
# alone (that would rename the run, ``path-…`` in the journals). A folder named for a load level or a repetition
# (``c256``, ``r12``) is hunted like any other (it may be a node's name: c001…c512 on a cluster); where the
# evidence writes such a word as its own (a run id's component, a group label's load), the matcher leaves it
# (matcher.py, which matches this pattern too). The whole path is still hunted, and a user's folder under
# ``home`` whatever its name.
RUN_ID = re.compile(r"r[0-9]+-[0-9]+-(?:c[0-9]+|rate[0-9]+(?:\.[0-9]+)?)")


def _path(value: str) -> Iterator[tuple[str, str, str]]:
    """A path's spellings: itself, each identifying component, and, when it holds white space,
    each path in it read as a command line. A value starting like a path is hunted both ways,
    because ``/srv/Project Bluebird/ckpt`` is a path and ``/usr/bin/python serve.py --model /data/x``
    a command: neither reading may hide a part of the other. A value holding white space that does
    not start like a path (``vllm serve '/srv/Project Kestrel/ckpt'``, the collector's
    ``start_command``) is a command line only: split at ``/``, its words would be no components."""
    yield value, "path", value
    yield value.rstrip("/\\"), "path", value
    spaced = any(ch.isspace() for ch in value.strip())
    if not spaced or value.startswith(("/", "~", "$HOME", "\\")) or re.match(r"^[A-Za-z]:\\", value):
        parts = [p for p in re.split(r"[/\\]", value) if p and p not in ("~", "$HOME") and not re.match(r"^[A-Za-z]:$", p)]
        for index, part in enumerate(parts):
            if part.startswith("models--"):
                yield from _model(part)
            elif index > 0 and parts[index - 1] in ("home", "Users"):
                yield part, "user", part
            elif part.casefold() in _COMMON_PATH_PARTS or re.match(r"^python[0-9.]*$", part) or RUN_ID.fullmatch(part.lower()):
                continue
            else:
                yield part, "path", part
    if spaced:
        for token in _command_tokens(value):
            if token.startswith("-") and "=" in token:
                token = token.split("=", 1)[1]  # --model=/data/x
            if token == value or not any(ch in token for ch in "/\\"):
                continue
            yield from (_url(token) if "://" in token else _path(token))


def _image(value: str) -> Iterator[tuple[str, str, str]]:
    yield value, "image", value
    ref = value.split("@", 1)[0]
    yield ref, "image", value
    repo, _, tag = ref.rpartition(":") if ":" in ref.split("/")[-1] else (ref, "", "")
    yield repo, "image", value
    if tag and not _VERSION.match(tag):
        yield tag, "image", value
    if "@" in value:
        yield from _hex(value.split("@", 1)[1].split(":")[-1])
    first, _, rest = repo.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        yield first, "registry", first
        yield first.split(":")[0], "registry", first
        repo = rest
    yield repo, "image", value
    yield repo.split("/")[-1], "image", value


def _hex(value: str) -> Iterator[tuple[str, str, str]]:
    bare = value.split(":", 1)[1] if value.lower().startswith(("sha256:", "sha1:")) else value
    yield value, "hex", bare
    yield bare, "hex", bare
    if _HEX.match(bare):
        for width in (7, 8, 10, 12):  # git and docker short forms
            if len(bare) > width and not (bare[:width].isdigit() and width < 8):  # a short all-digit prefix is a count
                yield bare[:width], "hex", bare


def _raw_variants(cls: str, value: str) -> Iterator[tuple[str, str, str]]:
    if cls == "model":
        yield value, "model", value
        yield from _model(value)
    elif cls in ("host", "domain"):
        yield from _host(value)
    elif cls in ("endpoint", "url"):
        schemeless = _SCHEMELESS.match(value)
        if "://" in value or (schemeless and (schemeless.group(1) or "." in schemeless.group(0).split("/")[0])):
            yield from _url(value)  # a URL, or host:port[/path], or dotted.host/path
        else:
            yield from _host(value)
    elif cls == "path":
        yield from _path(value)
    elif cls == "image":
        yield from _image(value)
    elif cls in ("revision", "hex", "container"):
        for text, _, entity in _hex(value):
            yield text, cls, entity
    elif cls == "gpu" or cls == "uuid":
        match = _UUID.match(value)
        yield value, cls, value
        if match:
            yield match.group(2), cls, value
            yield match.group(2).replace("-", ""), cls, value  # exporters key metrics by the bare hex
    elif cls == "mac":
        yield from _mac(value)
    elif cls == "ip":
        yield from _host(value)
    elif cls == "email":
        local, _, domain = value.partition("@")
        yield value, "email", value
        yield local, "user", local
        yield from _host(domain) if "." in domain.split(".", 1)[-1] else iter(())
    else:
        yield value, cls, value


def _skipped(spelled: str, cls: str = "") -> bool:
    """Spellings never hunted: too short, public words, bare versions, short numbers."""
    return (
        len(spelled) < (2 if cls in SHORT_NAMES else MIN_LENGTH)
        or is_public(spelled)
        or bool(_VERSION.match(spelled) and not _IPV4.match(spelled) and not spelled.isdigit())
        or (spelled.isdigit() and len(spelled) < MIN_DIGITS)
    )


@lru_cache(maxsize=65536)
def variants(known: KnownValue) -> list[Variant]:
    """Every spelling of ``known`` worth hunting for, longest first, public words left out.

    The value and each of its spellings of 8 bytes or more are hunted inside base64 too
    (at their three alignments).
    """
    cls = known.cls if known.cls in CLASSES else "value"
    value = known.value.strip()
    found: dict[str, Variant] = {}
    encodable: dict[str, tuple[str, str]] = {}
    for text, vcls, entity in _raw_variants(cls, value):
        for spelled in _encoded(text):
            folded = spelled.casefold()
            if folded not in found and not _skipped(spelled, vcls):
                found[folded] = Variant(spelled, vcls, entity)
        if vcls != "ip" and not _skipped(text, vcls):
            encodable.setdefault(text, (vcls, entity))
    encodable.setdefault(value, (cls, next((v.entity for v in found.values() if v.text == value), value)))
    for text, (vcls, entity) in encodable.items():
        if len(text.encode("utf-8", "surrogatepass")) >= MIN_BASE64_BYTES and not _skipped(text, vcls):
            for spelled in _base64(text):
                found.setdefault(spelled.casefold(), Variant(spelled, vcls, entity, exact=True))
    return sorted(found.values(), key=lambda v: (-len(v.text), v.text))
