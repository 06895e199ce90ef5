"""Spelling rules: the other forms a known value of a kind takes, and what it teaches.

A rule yields ``(spelling, kind)``: a spelling of the same kind is another form of the value; one of
another kind is a value it teaches, whose own spellings are then hunted too (an endpoint teaches its
host, and the host its short name). Every spelling is hunted whole-word when it is short, and the
guards (:mod:`.guards`) keep ordinary words out whatever rule made them.
"""

from __future__ import annotations

import encodings.idna
import ipaddress
import re
import shlex
from collections.abc import Iterator
from urllib.parse import urlsplit

from ...model.publication import IdentityKind as K
from . import Example, Rule

__all__ = ["SPELLINGS"]

Spelled = Iterator[tuple[str, K]]
_UUID = re.compile(r"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})")
_IPV4 = re.compile(r"^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$")
_EMBEDDED_IPV4 = re.compile(r"(?<![0-9])([0-9]{1,3})[-.]([0-9]{1,3})[-.]([0-9]{1,3})[-.]([0-9]{1,3})(?![0-9])")
# Folder names every machine has: alone they name nobody (the whole path is still hunted).
# The folders every machine has, and the cluster file systems' mount points (`/lustre`, `/gpfs`): a word of
# them names nobody, and hunting it refused ordinary prose ("checkpoints on Lustre").
COMMON_PATH_PARTS = frozenset(
    """
    bin sbin lib lib64 libexec usr local share etc var run tmp opt srv home root mnt media scratch export
    work workspace workspaces src source code repo repos project projects build dist out venv .venv env .env
    site-packages dist-packages packages python python3 .cache .local .config logs log data datasets models
    model weights checkpoints snapshots blobs refs cache hub users checkpoint ckpt ckpts
    lustre gpfs nfs beegfs ceph cephfs weka fsx efs nvme ssd storage shared
    """.split()
)


def _ascii_host(labels: list[str]) -> str | None:
    """The host as DNS spells it (IDNA: ``kästrel`` is ``xn--kstrel-bua``), or ``None`` when it cannot be."""
    try:
        return ".".join(label if label.isascii() else encodings.idna.ToASCII(label).decode("ascii") for label in labels)
    except UnicodeError:
        return None


def _host(value: str) -> Spelled:
    """A host name's short name and each parent domain; an IPv4 address it embeds (``ip-10-0-3-17``); a name
    with a non-ASCII label also as DNS spells it, with its short name and parents so spelled."""
    labels = value.strip().rstrip(".").split(".")
    if len(labels) > 1 and not _IPV4.match(value.strip()):
        yield labels[0], K.HOST
        for start in range(1, len(labels) - 1):  # a top-level domain alone names nobody
            yield ".".join(labels[start:]), K.HOST
    embedded = _EMBEDDED_IPV4.search(value)
    if embedded and not _IPV4.match(value.strip()) and all(int(o) < 256 for o in embedded.groups()):
        yield ".".join(embedded.groups()), K.IP
    if not value.isascii() and (spelled := _ascii_host(labels)) is not None:
        yield spelled, K.HOST
        yield from _host(spelled)


def _ip(value: str) -> Spelled:
    """An address as tools write it: an IPv4 dotted, dashed, reversed; an IPv6 compressed and in full."""
    text = value.strip().strip("[]").split("%")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return
    if address.version == 4:
        octets = str(address).split(".")
        yield "-".join(octets), K.IP
        yield ".".join(reversed(octets)) + ".in-addr.arpa", K.IP
    else:
        yield address.compressed, K.IP
        yield address.exploded, K.IP
        if address.ipv4_mapped is not None:
            yield str(address.ipv4_mapped), K.IP


def _mac(value: str) -> Spelled:
    digits = re.sub(r"[^0-9a-fA-F]", "", value).lower()
    if len(digits) == 12:
        pairs = [digits[i : i + 2] for i in range(0, 12, 2)]
        yield ":".join(pairs), K.MAC
        yield "-".join(pairs), K.MAC
        yield f"{digits[:4]}.{digits[4:8]}.{digits[8:]}", K.MAC
        yield digits, K.MAC


def _endpoint(value: str) -> Spelled:
    """A URL (or ``host:port``) teaches its host and its user; ``host:port`` is a spelling of its own."""
    text = value.strip()
    try:
        parts = urlsplit(text if "://" in text else "//" + text)
        host, port = parts.hostname, parts.port
    except ValueError:
        return
    yield text.rstrip("/"), K.ENDPOINT
    if host:
        yield host, K.IP if _is_ip(host) else K.HOST
        if port:
            yield f"{host}:{port}", K.ENDPOINT
    if parts.username:
        yield parts.username, K.USER


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _model(value: str) -> Spelled:
    """A hub name ``org/name``: its cache folder ``models--org--name``, ``org--name``, the name alone; the
    cache folder read back."""
    text = value.strip()
    if text.startswith("models--"):
        text = text[len("models--") :].replace("--", "/", 1)
        yield text, K.MODEL
    if text.count("/") == 1 and not text.startswith(("/", "~", ".")) and not text.endswith("/"):
        org, name = text.split("/")
        yield f"models--{org}--{name}", K.MODEL
        yield f"{org}--{name}", K.MODEL
        yield name, K.MODEL
        yield org, K.MODEL
    elif text.startswith(("/", "~", ".")) or "\\" in text:
        yield text, K.PATH


def _path(value: str) -> Spelled:
    """A path's components that name something (a user under ``home``, a model's cache folder, a project
    folder), not the folders every machine has."""
    text = value.strip()
    parts = [p for p in re.split(r"[/\\]", text) if p and p not in ("~", "$HOME", ".", "..")]
    for index, part in enumerate(parts):
        if part.startswith("models--"):
            yield part, K.MODEL
        elif index > 0 and parts[index - 1] in ("home", "Users"):
            yield part, K.USER
        elif part.casefold() not in COMMON_PATH_PARTS and not re.fullmatch(r"python[0-9.]*", part):
            yield part, K.PATH
    if text.rstrip("/\\") != text:
        yield text.rstrip("/\\"), K.PATH


def _command(value: str) -> Spelled:
    """A command line's words that are paths or URLs (``--model /data/x``, ``--model=/data/x``), each hunted as one."""
    try:
        words = shlex.split(value)
    except ValueError:
        words = value.split()
    for word in words:
        if word.startswith("-") and "=" in word:
            word = word.split("=", 1)[1]
        if "://" in word:
            yield word, K.ENDPOINT
        elif "/" in word or "\\" in word:
            yield word, K.PATH


def _image(value: str) -> Spelled:
    """An image reference without its digest and tag, its repository's last part, its registry host."""
    ref = value.strip().split("@", 1)[0]
    repo = ref.rsplit(":", 1)[0] if ":" in ref.split("/")[-1] else ref
    yield ref, K.IMAGE
    yield repo, K.IMAGE
    first, _, rest = repo.partition("/")
    if rest and ("." in first or ":" in first or first == "localhost"):
        yield first.split(":")[0], K.HOST
        yield rest, K.IMAGE
    yield repo.split("/")[-1], K.IMAGE
    if "@" in value:
        yield value.split("@", 1)[1].split(":")[-1], K.FINGERPRINT


def _gpu(value: str) -> Spelled:
    """A GPU or MIG UUID without its prefix, and without its dashes (exporters key metrics so)."""
    match = _UUID.search(value)
    if match:
        yield match.group(1), K.GPU
        yield match.group(1).replace("-", ""), K.GPU


def _fingerprint(value: str) -> Spelled:
    """A hash without its ``sha256:`` prefix, and the short forms git and docker print (7, 8, 10, 12 characters)."""
    bare = value.strip().split(":", 1)[1] if re.match(r"^(?:sha256|sha1|sha512):", value.strip()) else value.strip()
    yield bare, K.FINGERPRINT
    if re.fullmatch(r"[0-9a-fA-F]{13,128}", bare):
        for width in (7, 8, 10, 12):
            yield bare[:width], K.FINGERPRINT


def _email(value: str) -> Spelled:
    local, _, domain = value.strip().partition("@")
    if local and domain:
        yield local, K.USER
        yield domain, K.HOST


SPELLINGS: tuple[Rule, ...] = (
    Rule(
        "host-names",
        "spelling",
        "a host's short name and each parent domain; an IPv4 address the name embeds (`ip-10-0-3-17.ec2.internal`); "
        "a name with a non-ASCII label as DNS spells it too (`kästrel.lab` is `xn--kstrel-bua.lab`), its short name so spelled",
        kinds=(K.HOST,),
        spell=_host,
        examples=(
            Example("gpu-node-17.lab.acme-corp.internal", gives=("gpu-node-17", "lab.acme-corp.internal"), not_gives=("internal",), kind=K.HOST),
            Example("ip-10-0-3-17.ec2.internal", gives=("10.0.3.17",), kind=K.HOST),
            Example("kästrel.lab.example", gives=("xn--kstrel-bua.lab.example", "xn--kstrel-bua"), kind=K.HOST),
        ),
    ),
    Rule(
        "addresses",
        "spelling",
        "an IPv4 address dashed and as a reverse-DNS name; an IPv6 address compressed, in full, and the IPv4 it maps",
        kinds=(K.IP,),
        spell=_ip,
        examples=(
            Example("10.20.30.40", gives=("10-20-30-40", "40.30.20.10.in-addr.arpa"), kind=K.IP),
            Example("fe80::1c2d:3e4f:5a6b:7c8d", gives=("fe80:0000:0000:0000:1c2d:3e4f:5a6b:7c8d",), kind=K.IP),
        ),
    ),
    Rule(
        "mac-forms",
        "spelling",
        "a MAC address with colons, dashes, Cisco's dots and bare",
        kinds=(K.MAC,),
        spell=_mac,
        examples=(Example("02:42:ac:11:00:03", gives=("02-42-ac-11-00-03", "0242.ac11.0003", "0242ac110003"), kind=K.MAC),),
    ),
    Rule(
        "endpoint-parts",
        "spelling",
        "an endpoint without its trailing `/`, its `host:port`; teaches its host (or address) and its user",
        kinds=(K.ENDPOINT,),
        spell=_endpoint,
        examples=(
            Example(
                "http://ops@gpu-node-17.lab.internal:8123/v1",
                gives=("gpu-node-17.lab.internal", "gpu-node-17.lab.internal:8123", "ops"),
                kind=K.ENDPOINT,
            ),
        ),
    ),
    Rule(
        "model-names",
        "spelling",
        "a hub model `org/name`: its cache folder `models--org--name`, `org--name`, the name and the organisation alone; "
        "a model given as a path teaches that path",
        kinds=(K.MODEL,),
        spell=_model,
        examples=(
            Example("acme-labs/falcon-secret-70b", gives=("models--acme-labs--falcon-secret-70b", "falcon-secret-70b", "acme-labs"), kind=K.MODEL),
            Example("/data/models/falcon-ckpt", gives=("/data/models/falcon-ckpt",), kind=K.MODEL),
        ),
    ),
    Rule(
        "path-parts",
        "spelling",
        "a path's components that name something: a user under `home` or `Users`, a model's cache folder, any folder "
        "but those every machine has (`usr`, `home`, `data`, `models`, …)",
        kinds=(K.PATH,),
        spell=_path,
        examples=(
            Example(
                "/home/jdoe-ops/Project Bluebird/ckpt-falcon", gives=("jdoe-ops", "Project Bluebird", "ckpt-falcon"), not_gives=("home",), kind=K.PATH
            ),
            Example("/data/hf/models--acme-labs--falcon-secret-70b/snapshots", gives=("models--acme-labs--falcon-secret-70b",), kind=K.PATH),
        ),
    ),
    Rule(
        "command-words",
        "spelling",
        "a command line's words that are paths or URLs (`--model /data/x`, `--model=/data/x`), each hunted as a path or an endpoint",
        kinds=(K.COMMAND,),
        spell=_command,
        examples=(Example("vllm serve --model=/srv/acme/falcon --port 8000", gives=("/srv/acme/falcon",), not_gives=("8000",), kind=K.COMMAND),),
    ),
    Rule(
        "image-parts",
        "spelling",
        "an image reference without its digest and tag, its repository, the repository's last part; teaches its registry host and its digest",
        kinds=(K.IMAGE,),
        spell=_image,
        examples=(
            Example(
                "registry.acme-corp.internal:5000/inference/vllm-fork:v0.11.1-acme3",
                gives=("registry.acme-corp.internal", "inference/vllm-fork", "vllm-fork"),
                kind=K.IMAGE,
            ),
        ),
    ),
    Rule(
        "gpu-uuids",
        "spelling",
        "a GPU or MIG UUID without its `GPU-`/`MIG-` prefix, and without its dashes",
        kinds=(K.GPU,),
        spell=_gpu,
        examples=(
            Example(
                "GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e",
                gives=("5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "5b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e"),
                kind=K.GPU,
            ),
        ),
    ),
    Rule(
        "fingerprints",
        "spelling",
        "a hash or revision without its `sha256:` prefix, and its 7, 8, 10 and 12 character short forms",
        kinds=(K.FINGERPRINT, K.REVISION, K.CONTAINER),
        spell=_fingerprint,
        examples=(
            Example(
                "sha256:3f9c2a7d4e1b8c6a0f5d2e9b7a4c1d8e6f3a2b5c", gives=("3f9c2a7d4e1b8c6a0f5d2e9b7a4c1d8e6f3a2b5c", "3f9c2a7"), kind=K.FINGERPRINT
            ),
        ),
    ),
    Rule(
        "email-parts",
        "spelling",
        "an e-mail address teaches its local part (a user) and its domain (a host)",
        kinds=(K.EMAIL,),
        spell=_email,
        examples=(Example("jdoe@acme-corp.com", gives=("jdoe", "acme-corp.com"), kind=K.EMAIL),),
    ),
)
