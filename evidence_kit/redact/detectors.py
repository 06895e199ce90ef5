"""Built-in detectors: private things an operator forgets to list.

Each detector is a regular expression for one class. They are joined into one
pattern, in priority order, so that at any position the most specific class
wins (a URL before the host inside it, a GPU UUID before a plain UUID). The
guards that keep numbers, version strings and public words alone live here
too, because the redactor and the scanner must agree on them exactly.
"""

from __future__ import annotations

import base64
import binascii
import ipaddress
import re
from collections.abc import Callable, Iterator

from .vocabulary import format_words

__all__ = [
    "DETECTORS",
    "PUBLIC_WORDS",
    "LABELS",
    "find",
    "find_labelled",
    "JWK_MEMBERS",
    "label_class",
    "is_public",
    "compile_detectors",
    "Detectors",
]

_B = r"(?<![A-Za-z0-9])"  # not inside a word; '_' and '-' count as separators
_E = r"(?![A-Za-z0-9])"
_H = "[0-9a-fA-F]"
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
# Where an IPv6 address may start: not inside a word or another address, but after a label and one
# colon ("peer:2001:db8::1", a pseudonym's letters then ":fe80::1"), which no other branch sees.
_V6 = r"(?:(?<![0-9A-Za-z:])|(?<=[G-Zg-z_.\-]:))"
_PATHCHARS = r"[^\s\"'<>|;,=()\[\]{}`]"
_TREES = (
    "home",
    "Users",
    "mnt",
    "media",
    "data[0-9]*",
    "opt",
    "root",
    "tmp",
    "srv",
    "scratch",
    "nfs",
    "lustre",
    "gpfs",
    "raid[0-9]*",
    "models?",
    "workspaces?",
    "export",
    "vol",
    "volumes",
    "var/lib",
    "var/tmp",
    "run/user",
    "private",
    "storage",
    "shared",
    "datasets",
    "checkpoints",
)
_TLDS = (
    "com",
    "org",
    "net",
    "io",
    "ai",
    "dev",
    "app",
    "cloud",
    "local",
    "localdomain",
    "lan",
    "internal",
    "intranet",
    "corp",
    "home",
    "private",
    "edu",
    "gov",
    "mil",
    "int",
    "co",
    "us",
    "uk",
    "de",
    "fr",
    "nl",
    "se",
    "ch",
    "jp",
    "cn",
    "kr",
    "in",
    "eu",
    "ca",
    "au",
    "info",
    "biz",
    "tech",
    "xyz",
    "lab",
    "cluster",
    "svc",
    # Special-use names (RFC 6761, RFC 8375): home.arpa networks and in-addr.arpa reverse names
    # are private; .test, .example and .invalid hosts exist only where someone made them up.
    "arpa",
    "test",
    "example",
    "invalid",
)

# The start of a line's text: the line's start, or after its indentation of up to eight blanks (a lookbehind
# of each width, since re's are of fixed width: the indentation is kept, not replaced with the key).
_LINE_START = "(?:^|" + "|".join(f"(?<=^{' ' * n})" for n in range(1, 9)) + r"|(?<=^\t)|(?<=^\t\t))"

# (class, pattern), most specific first.
DETECTORS: tuple[tuple[str, str], ...] = (
    (
        "token",
        r"(?i:bearer)\s+[A-Za-z0-9._~+/=-]{8,}"
        r"|" + _B + r"(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}"
        r"|" + _B + r"hf_[A-Za-z0-9]{16,}"
        r"|" + _B + r"gh[pousr]_[A-Za-z0-9]{20,}"
        r"|" + _B + r"AKIA[0-9A-Z]{16}" + _E + r"|" + _B + r"xox[abpr]-[A-Za-z0-9-]{10,}"
        r"|" + _B + r"eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"
        # A PEM private key with its body, its line breaks raw or escaped as in JSON ("\\n"),
        # and an Ed25519 PKCS#8 key's body alone (its DER always starts MC4CAQAwBQYDK2VwBCIEI).
        r"|-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:\\[nr]|\s|[A-Za-z0-9+/=])*+(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?"
        r"|MC4CAQAwBQYDK2VwBCIEI(?:[A-Za-z0-9+/]{43}=?|[A-Za-z0-9_-]{43}=?)"
        # A full body line of any PEM key written over several lines (64 base64 characters alone on
        # their line, at least one of them not a hex digit: a sha256 in hex is not one), or of a key
        # `base64` wrapped (76 columns, as MIME does); indented up to eight blanks (YAML, Markdown),
        # its line ended by LF or CRLF.
        r"|(?m:" + _LINE_START + r"(?=[0-9A-Fa-f]*[G-Zg-z+/])[A-Za-z0-9+/]{64}(?:[A-Za-z0-9+/]{12})?(?=[ \t]*\r?$))",
    ),
    # A scheme may start with a digit here (RFC 3986 says a letter): "0132…5a://h" must be one URL
    # in raw text, or its hex run alone becomes "hex-1" and the output reads "hex-1://h" as a URL.
    # A scheme from the start of its run of scheme characters may be any length (one scan per run);
    # one that starts after a '.', '-' or '+' inside a run ("log-http://h") is bounded, so a long
    # dotted run with no "://" after it costs linear time, not quadratic.
    (
        "url",
        r"(?:(?<![A-Za-z0-9+.-])[A-Za-z0-9][A-Za-z0-9+.-]*+|" + _B + r"[A-Za-z0-9][A-Za-z0-9+.-]{1,62})"
        r"://[^\s\"'<>`]+",
    ),
    ("email", _B + r"[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}" + _E),
    ("gpu", _B + r"(?:GPU|MIG)-(?:GPU-)?" + _H + "{8}-" + _H + "{4}-" + _H + "{4}-" + _H + "{4}-" + _H + r"{12}(?:/[0-9]+/[0-9]+)?" + _E),
    ("uuid", _B + _H + "{8}-" + _H + "{4}-" + _H + "{4}-" + _H + "{4}-" + _H + "{12}" + _E),
    (
        "mac",
        _B
        + _H
        + "{2}(?::"
        + _H
        + "{2}){5}"
        + _E
        + "|"
        + _B
        + _H
        + "{2}(?:-"
        + _H
        + "{2}){5}"
        + _E
        + "|"
        + _B
        + _H
        + r"{4}\."
        + _H
        + r"{4}\."
        + _H
        + "{4}"
        + _E,
    ),  # Cisco: 0242.ac11.0003
    (
        "ip",
        r"(?<![0-9A-Za-z.])(?:" + _OCTET + r"\.){4}(?i:in-addr\.arpa)(?![A-Za-z0-9-]|\.[A-Za-z0-9])"  # reverse DNS
        r"|" + _V6 + r"(?:" + _H + "{1,4}:){7}" + _H + r"{1,4}(?![0-9A-Za-z:])"
        r"|" + _V6 + r"(?:" + _H + "{1,4}:){1,6}:(?:" + _H + "{1,4}:){0,5}" + _H + r"{1,4}(?:%[A-Za-z0-9]+)?(?![0-9A-Za-z:])"
        r"|(?<![0-9A-Za-z:])::(?:" + _H + "{1,4}:){0,5}" + _H + r"{1,4}(?:%[A-Za-z0-9]+)?(?![0-9A-Za-z:.])"
        # "::"-led right after a word ("internal::9f:1"), holding a digit ("Foo::add" is C++, not an
        # address): a name replaced by a pseudonym ending in a digit would make it one in the output.
        r"|(?<=[G-Zg-z_.-])::(?=[0-9A-Fa-f:]*[0-9])(?:" + _H + "{1,4}:){0,5}" + _H + r"{1,4}(?:%[A-Za-z0-9]+)?(?![0-9A-Za-z:.])"
        r"|(?<![0-9A-Za-z.])(?:" + _OCTET + r"\.){3}" + _OCTET + r"(?![0-9A-Za-z]|\.[0-9])",
    ),
    (
        "path",
        r"/(?<![A-Za-z0-9_./~-]/)(?:" + "|".join(_TREES) + r")/" + _PATHCHARS + "+"
        r"|(?<![A-Za-z0-9_./~-])(?:~|\$HOME)/" + _PATHCHARS + "+"
        r"|" + _B + r"[A-Za-z]:\\" + r"[^\s\"'<>|*?]+"
        r"|(?<![A-Za-z0-9\\])\\\\[A-Za-z0-9._-]+\\[^\s\"'<>|*?]+",
    ),
    (
        "host",
        r"(?<![A-Za-z0-9._@-])(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?i:" + "|".join(_TLDS) + r")(?![A-Za-z0-9-]|\.[A-Za-z0-9])"
        # Any name, dotted or not, in aiohttp's connection errors ("Cannot connect to host gpubox7:8000
        # ssl:default [...]"), which a benchmark client records as a failed request's reason.
        r"|(?<=(?i:connect to host) )[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(?=:[0-9]{1,5}(?![0-9]))",
    ),
    ("hex", r"(?<![0-9A-Za-z.])" + _H + r"{7,128}(?![0-9A-Za-z])"),
)

# Words that are public knowledge and never private on their own: the guards against
# redacting architecture names, public hosts and loopback addresses.
PUBLIC_WORDS: frozenset[str] = frozenset(
    """
    localhost 127.0.0.1 0.0.0.0 ::1 255.255.255.255 ::
    huggingface.co hf.co github.com pypi.org docker.io index.docker.io registry-1.docker.io
    nvcr.io ghcr.io quay.io nvidia.com vllm.ai python.org pytorch.org download.pytorch.org
    example.com example.org example.net evidence-kit.invalid
    model models org name host hosts path paths image images gpu gpus value data home root
    tmp opt mnt srv media users user cache hub snapshots blobs refs main huggingface
    transformers vllm sglang tgi trtllm cuda rocm nccl torch pytorch triton
    llama llama2 llama3 mistral mixtral qwen qwen2 qwen3 gemma phi deepseek falcon gpt gpt2
    opt bloom mpt yi glm chatglm baichuan internlm olmo granite nemotron command-r jamba mamba
    attention flash flashinfer flash_attn xformers mla mtp eagle medusa dflash lora awq gptq
    fp8 fp4 fp16 bf16 int8 int4 nvfp4 mxfp4 safetensors config tokenizer
    latest stable nightly none null true false unknown n/a
    v1 api chat completions
    in-addr.arpa ip6.arpa home.arpa
    """.split()
) | frozenset(_TLDS)  # a top-level domain alone names nobody: the names under it are hunted

# Labels whose value is private whatever it looks like (nvidia-smi, env files, docker inspect).
LABELS: dict[str, str] = {
    "serial": "serial",
    "serial number": "serial",
    "serial_number": "serial",
    "serialnumber": "serial",
    "board serial": "serial",
    "hostname": "host",
    "host_name": "host",
    "nodename": "host",
    "node_name": "host",
    "machine_id": "value",
    "machine-id": "value",
    "container_id": "container",
    "containerid": "container",
    "container_name": "container",
    "password": "token",
    "passwd": "token",
    "api_key": "token",
    "apikey": "token",
    "secret": "token",
    "access_token": "token",
    "hf_token": "token",
    "authorization": "token",
    "image": "image",
    # A machine's short name has no dots for the host detector: the fields that carry it.
    "host": "host",
    "node": "host",
    "instance": "host",
    # Secrets as environment variables, flags and headers spell them (a label may follow "_" or
    # "-": POSTGRES_PASSWORD, AWS_SECRET_ACCESS_KEY, X-Api-Key, SLURMD_NODENAME).
    "api-key": "token",
    "secret_access_key": "token",
    "access_key": "token",
    "secret_key": "token",
    "private_key": "token",
    "auth_token": "token",
    "api_token": "token",
    "client_secret": "token",
    "passphrase": "token",
}
_LABEL_TEXT = re.compile(
    r"(?i)(?<![A-Za-z0-9])("
    + "|".join(sorted((re.escape(k) for k in LABELS), key=len, reverse=True))
    + r")[\"'\]]?[ \t]*(?:\.{2,}[ \t]*)?(?:=>|[:=])[ \t]*"
    # The value: a quoted one whole (a passphrase of several words), or one word after an
    # authorization scheme (Basic, Bearer, …: the credentials, not the scheme's name), or one word; the one
    # value of a list (vLLM logs its args as a dict: 'api_key': ['…']).
    r"(?:\[[ \t]*)?(?:\"([^\"\n]+)\"|'([^'\n]+)'|(?:(?:basic|bearer|digest|token|negotiate)[ \t]+)?([^\s\",;'}\]]+))"
)
# A JSON Web Key's private members (RFC 7517/7518, RFC 8037): "d" of an EC, OKP (Ed25519) or RSA key, RSA's
# "p", "q", "dp", "dq", "qi", a symmetric key's "k". Their names are one or two letters and their values any
# base64url, so the value must look like key material (22 or more base64url characters: 16 bytes or more).
# Quoted as JSON, a Python dict, YAML or JSON inside a JSON string writes them (\"d\": \"…\"); pretty-printed
# over several lines, a member still sits on one line, so no "kty" is needed beside it.
# .NET writes an RSA key's parameters as "D", "P", "Q", "DP", "DQ", "InverseQ" (RSAParameters as JSON, and as
# ToXmlString's <RSAKeyValue><D>…</D>…), in standard base64.
JWK_MEMBERS: frozenset[str] = frozenset({"d", "p", "q", "dp", "dq", "qi", "k", "D", "P", "Q", "DP", "DQ", "InverseQ"})
# The name's first letter leads (a set re scans for fast); a quote or bracket before it is any character but
# the word's own, so it needs no place in the match (only the value, group 1, is used).
_JWK_TEXT = re.compile(
    "(?=[" + "".join(sorted({m[0] for m in JWK_MEMBERS})) + "])"
    r"(?<![A-Za-z0-9_\\.-])(?:"
    + "|".join(sorted(JWK_MEMBERS, key=len, reverse=True))
    + r")(?:\\?[\"'\]])?[ \t]*(?:=>|[:=|])[ \t]*(?:\\?[\"'])?([A-Za-z0-9_+/-]{22,}={0,2})(?![A-Za-z0-9_=+/-])"
)
# A member as an HTML form field (name="d" value="…"), as a page saved from a key tool or an OAuth callback holds it.
_JWK_FIELD = re.compile(
    r"""name=["']?(?:"""
    + "|".join(sorted(JWK_MEMBERS, key=len, reverse=True))
    + r""")["']?\s+value=["']?([A-Za-z0-9_+/-]{22,}={0,2})(?![A-Za-z0-9_=+/-])"""
)
# A member of a JWK flattened into dotted keys, as a properties file or a structured logger writes nested ones
# (jwk.d=…, keys.0.d: …); and an RSA key's private parameters as .NET's ToXmlString writes them.
_JWK_FLAT = re.compile(
    r"(?<![A-Za-z0-9_-])(?i:jwks?|keys?|private_?key|signing_?key)(?:\.[A-Za-z0-9_]+)*\.(?:dp|dq|qi|d|p|q|k)"
    r"[\"']?[ \t]*[:=][ \t]*[\"']?([A-Za-z0-9_+/-]{22,}={0,2})(?![A-Za-z0-9_=+/-])"
)
_XML_KEY = re.compile(r"<(D|P|Q|DP|DQ|InverseQ)>\s*([A-Za-z0-9+/_-]{22,}={0,2})\s*</\1>")
# A JSON document in base64 (``{"`` or a brace and a line break encoded: ``ey…``, ``ew…``), as a Kubernetes
# Secret's ``data`` or an environment variable holds a JWK or a JWKS: the whole run is a secret when the JSON
# holds a JWK's private member.
_BASE64_JSON = re.compile(r"(?<![A-Za-z0-9+/_-])e[wy][A-Za-z0-9+/_-]{38,}={0,2}(?![A-Za-z0-9+/_=-])")
# Command-line flags that take a secret: vLLM's --api-key X, --api-key=X, --hf-token, --password.
_FLAG_TEXT = re.compile(r"(?i)(?<![A-Za-z0-9-])--(api-key|hf-token|token|password|secret)(?:[ \t]+|=)([^\s\"',;]+)")


# Cheap tests without which a detector cannot match: each is a necessary condition of its
# pattern (a substring, a count or a literal-led regex that re scans fast), so skipping a
# detector when its test fails never changes what is found. They take the text and its
# lowercase; tests on the lowercase are only for patterns that fold ASCII letters alone.
_PATH_HINT = re.compile("/(?:" + "|".join(_TREES) + ")/")
_HOST_HINT = re.compile(r"\.(?i:" + "|".join(_TLDS) + r")(?![A-Za-z0-9-])")
# One literal-led pattern per form (an alternation with a set-led branch is scanned slowly):
# pairs joined by colons or by dashes, or a Cisco triple (which holds a dot, four hex digits, a dot).
_MAC_HINTS = tuple(
    re.compile(p)
    for p in (
        ":" + _H + "{2}:" + _H + "{2}:" + _H + "{2}:" + _H + "{2}:",
        "-" + _H + "{2}-" + _H + "{2}-" + _H + "{2}-" + _H + "{2}-",
        r"\." + _H + r"{4}\.",
    )
)
_PEM_LINE_HINT = re.compile(r"(?m:[A-Za-z0-9+/]{64}[ \t]*\r?$)")
_IPV4_HINT = re.compile(r"\.[0-9]{1,3}\.[0-9]{1,3}\.")
_Hint = Callable[[str, str], object]
_HINTS: dict[str, _Hint] = {
    "token": lambda text, lowered: (
        "bearer" in lowered
        or "k-" in text
        or "hf_" in text
        or ("gh" in text and "_" in text)
        or "AKIA" in text
        or "xox" in text
        or "eyJ" in text
        or "PRIVATE KEY-----" in text
        or "MC4CAQAwBQYDK2VwBCIEI" in text
        or (len(text) >= 64 and _PEM_LINE_HINT.search(text))
    ),
    "url": lambda text, lowered: "://" in text,
    "email": lambda text, lowered: "@" in text,
    "gpu": lambda text, lowered: "GPU-" in text or "MIG-" in text,
    "uuid": lambda text, lowered: text.count("-") >= 4,
    "mac": lambda text, lowered: any(hint.search(text) for hint in _MAC_HINTS),
    "ip": lambda text, lowered: (text.count(".") >= 3 and _IPV4_HINT.search(text)) or "::" in text or text.count(":") >= 7,
    "path": lambda text, lowered: "\\" in text or "~/" in text or "$HOME/" in text or _PATH_HINT.search(text),
    "host": lambda text, lowered: _HOST_HINT.search(text) or "connect to host " in lowered,
}


class Detectors:
    """The enabled detectors, each run only on text that passes its cheap test."""

    def __init__(self, disabled: frozenset[str] = frozenset()):
        self.enabled = [(rank, cls, re.compile(pattern), _HINTS.get(cls)) for rank, (cls, pattern) in enumerate(DETECTORS) if cls not in disabled]

    def finditer(self, text: str) -> Iterator[tuple[int, int, int, str]]:
        """``(start, end, rank, class)`` of every raw hit, before guards and overlaps."""
        lowered = text.lower()
        for rank, cls, pattern, hint in self.enabled:
            if hint is not None and not hint(text, lowered):
                continue
            for match in pattern.finditer(text):
                yield match.start(), match.end(), rank, cls


def compile_detectors(disabled: frozenset[str] = frozenset()) -> Detectors:
    """The enabled detectors, in priority order."""
    return Detectors(disabled)


def is_public(text: str) -> bool:
    """Public words, public hosts, loopback addresses and the evidence format's own words
    (see :mod:`.vocabulary`) are never private."""
    folded = text.casefold()
    return folded in PUBLIC_WORDS or folded in format_words()


def _nobodys(text: str) -> bool:
    try:
        address = ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return address.is_unspecified or address.is_loopback


def _guarded(cls: str, text: str, start: int, whole: str) -> bool:
    """True when a detector hit is not private after all (numbers, public words)."""
    if cls == "hex":
        if not (re.search(r"[0-9]", text) and re.search(r"[a-fA-F]", text)):
            return True  # all digits is a number; all letters is a word ("deadbeef", "effaced")
        after = whole[start + len(text) : start + len(text) + 2]
        if text[-1] in "eE" and re.match(r"[+-][0-9]", after):
            return True  # the mantissa of a float such as 1.234567e+16
        return False
    if cls == "ip" and ":" in text and not re.search(r"[0-9a-fA-F]{3}", text) and text.count(":") < 7:
        return True  # "12::30"-like fragments, not an address anyone owns
    if cls == "ip" and ":" in text and _nobodys(text):
        return True  # "::000", "::001": the unspecified and the loopback address, however spelled: no one's
    if cls == "mac" and "." in text and not re.search(r"[a-fA-F]", text):
        return True  # 2024.1105.1230: a date or a version in groups of four, not a Cisco-style MAC
    return is_public(text)


def find(detectors: Detectors, text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, class)`` of every detector hit in ``text`` that passes the guards.

    Where hits overlap, the leftmost wins, then the more specific class (a URL
    over the host inside it), then the longer.
    """
    found = []
    for start, end, rank, cls in detectors.finditer(text):
        hit = text[start:end]
        if cls == "url":
            hit = hit.rstrip(".,:;!?)]}'")  # trailing punctuation ends a sentence, not the URL
            end = start + len(hit)
        if not _guarded(cls, hit, start, text):
            found.append((start, rank, -end, cls))
    last = -1
    for start, _, neg_end, cls in sorted(found):
        if start >= last:
            last = -neg_end
            yield start, last, cls


# Substrings every label holds (lowercase). Only a test for ASCII text: re's IGNORECASE
# also lets a few other letters (the Kelvin sign, the long s, dotted and dotless i) stand
# for k, s and i, which lowercasing does not reproduce.
_LABEL_HINTS: tuple[str, ...] = tuple(sorted(LABELS, key=len, reverse=True))
# A label as the pattern needs it: followed by nothing but quotes, blanks and dots before its ":"
# or "=" (matched on lowercased ASCII text, where lowercasing is what IGNORECASE does).
_LABEL_HINT = re.compile("(?:" + "|".join(re.escape(k) for k in _LABEL_HINTS) + r")[\"'\] \t.]*[:=]")


# What a tool writes in a secret's place, or a client's stand-in for "no key" (vLLM's documented api_key="EMPTY",
# a logger's REDACTED, Rails' [FILTERED], ******): no secret, and, learnt as one, a word that the site's own pages,
# styles and schemas hold (`:empty`, "placeholder"), so the site could never be built.
_PLACEHOLDER = re.compile(
    r"(?i)[<\[(]?(?:empty|dummy|fake|placeholder|redacted|filtered|masked|hidden|omitted|removed|changeme|change[-_]me"
    r"|unset|not[-_]?set|undefined|secret|password|none|null|nil|x{3,}|\*+|\u2022+)[>\])]?"
)


def _a_count(value: str) -> bool:
    """A number of fewer than six digits after a label (``"host": 450`` in a receipt's counts,
    ``node: 3``) is a count, never an identity, as everywhere else."""
    return value.isdigit() and len(value) < 6


def find_labelled(text: str) -> Iterator[tuple[int, int, str]]:
    """``(start, end, class)`` of values written after a private label (``Serial Number : X``,
    ``DB_PASSWORD="two words"``, ``--api-key X``)."""
    said = "=" in text or ":" in text  # a label's value follows one of them; a JWK member's, or a table's "|"
    assigned = said or "|" in text
    lowered = text.lower() if assigned else ""
    labelled = said and (not text.isascii() or _LABEL_HINT.search(lowered) is not None)
    for match in _LABEL_TEXT.finditer(text) if labelled else ():
        group = next(g for g in (2, 3, 4) if match.group(g) is not None)
        if _secret_value(match.group(group)):
            yield match.start(group), match.end(group), label_class(match.group(1))
    if assigned:
        for match in _JWK_TEXT.finditer(text):
            yield match.start(1), match.end(1), "token"
        if "value=" in lowered:
            for match in _JWK_FIELD.finditer(text):
                yield match.start(1), match.end(1), "token"
        if "." in text and ("jwk" in lowered or "key" in lowered):
            for match in _JWK_FLAT.finditer(text):
                yield match.start(1), match.end(1), "token"
    if "</" in text:
        for match in _XML_KEY.finditer(text):
            yield match.start(2), match.end(2), "token"
    if len(text) >= 40 and ("ey" in text or "ew" in text):
        for match in _BASE64_JSON.finditer(text):
            if _jwk_inside(match.group()):
                yield match.start(), match.end(), "token"
    if "--" in text:
        for match in _FLAG_TEXT.finditer(text):
            if _secret_value(match.group(2)):
                yield match.start(2), match.end(2), "token"


def _secret_value(value: str) -> bool:
    """Whether the value after a private label or flag is one to hide: not a count, a public word or a placeholder."""
    return len(value) >= 3 and not is_public(value) and not _a_count(value) and not _PLACEHOLDER.fullmatch(value)


def _jwk_inside(run: str) -> bool:
    """Whether base64 (standard or URL-safe, padded or not, cut anywhere) spells JSON holding a JWK's private member."""
    body = run.rstrip("=").replace("-", "+").replace("_", "/")
    body = body[: len(body) - len(body) % 4]
    try:
        text = base64.b64decode(body, validate=True).decode("utf-8", errors="replace")
    except binascii.Error:
        return False
    return (":" in text or "=" in text) and _JWK_TEXT.search(text) is not None


def label_class(label: str) -> str:
    """The class of a label as written (any case, including letters only re folds)."""
    cls = LABELS.get(re.sub(r"[ \t]+", " ", label.lower()))
    if cls is None:  # the long s, the Kelvin sign, dotted or dotless i: match them as re does
        cls = next(c for key, c in LABELS.items() if re.fullmatch(re.escape(key), label, re.IGNORECASE))
    return cls
