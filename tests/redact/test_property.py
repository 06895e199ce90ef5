"""The redactor's promise as a property: private values planted anywhere, in any spelling, never survive.

Hypothesis builds a JSON document and a log with the values of a trial's
``private`` block planted at random places (values, keys, inside longer strings)
in random variants: letter case, URL and JSON escapes, shell escapes, zero-width
and soft-hyphen characters, full-width letters, base64 at any alignment, a host's
short name, padded and hex addresses, a serial as digits. The output is checked by
a decoder written here, independent of the redactor, and every number outside
``private`` must be exactly what it was.
"""

from __future__ import annotations

import base64
import json
import re
import unicodedata
from pathlib import Path
from urllib.parse import quote, unquote

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from evidence_kit.redact import redact_bundle

HOST = "gpu-07.cluster.acme-corp.internal"
MODEL = "acme-labs/falcon-secret-70b"
PATH = "/srv/projects/Project Bluebird/ckpt-falcon-secret"
IP = "10.20.30.40"
SERIAL = 1322021012345
PRIVATE = {"host": HOST, "model": MODEL, "checkpoint_dir": PATH, "peer_ip": IP, "gpu_serial": SERIAL, "per_host": {"dgx-b200-rack4": {"gpus": 8}}}
# What must not be readable anywhere in the output, in any decoding.
SECRETS = ("gpu-07", "acme-corp", "falcon-secret", "acme-labs", "bluebird", "ckpt-falcon", IP, str(SERIAL), "dgx-b200-rack4")


def _zero_width(text: str) -> str:
    return "\u200b".join(text[i : i + 3] for i in range(0, len(text), 3))


def _full_width(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


def _base64_in(text: str, pad: int) -> str:
    return base64.b64encode(b"x" * pad + text.encode() + b" tail").decode()


SPELLINGS = [
    lambda v: v,
    str.upper,
    lambda v: quote(v, safe=""),
    lambda v: v.replace("-", "\\u002d").replace("/", "\\/"),
    _zero_width,
    lambda v: v.replace("-", "-\u00ad"),
    _full_width,
    lambda v: _base64_in(v, 0),
    lambda v: _base64_in(v, 1),
    lambda v: _base64_in(v, 2),
]
VALUES = [HOST, MODEL, PATH, IP, str(SERIAL), "dgx-b200-rack4"]
EXTRA = [
    "gpu-07",
    "ssh gpu-07 uptime",
    "Bluebird/ckpt-falcon-secret",
    "cd /srv/projects/Project\\ Bluebird/x",
    "010.020.030.040",
    "0x0a.0x14.0x1e.0x28",
    "SN1322021012345",
    "40.30.20.10.in-addr.arpa",
]

planted = st.one_of(
    st.builds(lambda spell, value: spell(value), st.sampled_from(SPELLINGS), st.sampled_from(VALUES)),
    st.sampled_from(EXTRA),
)
words = st.text(st.sampled_from(list("abcxyz019 .:=_-/")), max_size=8)
strings = st.one_of(words, st.builds(lambda a, p, b: a + p + b, words, planted, words))
scalars = st.one_of(st.none(), st.booleans(), st.integers(-(10**15), 10**15), st.floats(allow_nan=False, allow_infinity=False), strings)
documents = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(strings, inner, max_size=4)), max_leaves=16)


def _numbers(value: object) -> list[object]:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return []
    if isinstance(value, (int, float)):
        return [value]
    if isinstance(value, dict):
        return [n for item in value.values() for n in _numbers(item)]
    return [n for item in value for n in _numbers(item)]  # type: ignore[union-attr]


def _found(secret: str, reading: str) -> bool:
    """Whether ``secret`` is in ``reading``; a short one only as a whole word (``gpu-07`` is not in ``gpu-070``),
    a number only as a whole number (a serial followed by more digits is another number)."""
    if secret[0].isdigit():  # a serial, an address: more digits make another one, after "0." a fraction
        return re.search(r"(?<![0-9])(?<![0-9]\.)" + re.escape(secret) + r"(?![0-9])(?!\.[0-9])", reading) is not None
    if len(secret) >= 8:
        return secret in reading
    return re.search(r"(?<![a-z0-9])" + re.escape(secret) + r"(?![a-z0-9])", reading) is not None


def _readings(text: str) -> list[str]:
    """The ways a reader could read ``text``: as is, unescaped, URL-decoded, normalised, base64-decoded."""
    unescaped = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), text).replace("\\/", "/")
    shown = [text, unescaped, unquote(text), unquote(unescaped)]
    shown += [unicodedata.normalize("NFKC", re.sub("[\u00ad\u200b-\u200f\u2060\ufeff]", "", t)) for t in shown]
    octet = r"(?:0x[0-9a-fA-F]{1,2}|[0-9]{1,3})"
    shown.append(
        re.sub(
            r"(?<![0-9.])" + octet + r"(?:\." + octet + r"){3}(?![0-9])",
            lambda m: ".".join(str(int(o, 0) if o.lower().startswith("0x") else int(o)) for o in m.group().split(".")),
            text,
        )
    )
    for token in re.findall(r"[A-Za-z0-9+/_-]{12,}={0,2}", text):
        for start in range(4):
            piece = token[start:]
            try:
                shown.append(base64.b64decode(piece + "=" * (-len(piece) % 4), altchars=b"-_").decode("latin-1"))
            except ValueError:
                pass
    return [t.lower() for t in shown]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(documents, st.lists(strings, min_size=1, max_size=8), st.sampled_from([None, b"property-test-key-0123456789"]))
# Found by this property: a URL whose host holds fullwidth characters NFKC turns into '/' made urlsplit raise, and
# redaction stopped with a traceback.
@example(
    document=None,
    log=[
        "a0://\uff41\uff43\uff4d\uff45\uff0d\uff4c\uff41\uff42\uff53\uff0f\uff46\uff41\uff4c\uff43"
        "\uff4f\uff4e\uff0d\uff53\uff45\uff43\uff52\uff45\uff54\uff0d\uff17\uff10\uff42"
    ],
    key=None,
)
# And a pseudonym ending in a digit before an input's "::000" made "1::000", an address to the output's scan.
@example(document=None, log=["gpu-07.cluster.acme-corp.internal::000"], key=None)
@example(document=None, log=["0gpu-07.cluster.acme-corp.internal::000"], key=None)
@example(document=None, log=["gpu-07::001"], key=None)
@example(document=None, log=["gpu-07.cluster.acme-corp.internal::009"], key=None)
def test_planted_private_values_never_survive_and_numbers_stay(
    tmp_path_factory: pytest.TempPathFactory, document: object, log: list[str], key: bytes | None
) -> None:
    raw = tmp_path_factory.mktemp("raw") / "trial"
    raw.mkdir()
    (raw / "trial.json").write_text(json.dumps({"trial_id": "t", "private": PRIVATE}) + "\n")
    (raw / "data.json").write_text(json.dumps({"doc": document}) + "\n")
    (raw / "run.log").write_text("\n".join(log) + "\n")
    result = redact_bundle(raw, tmp_path_factory.mktemp("out") / "bundle", key=key)
    assert result.publishable, [str(f) for f in result.findings]
    for path in sorted(Path(result.out).rglob("*")):
        if path.is_file():
            for reading in _readings(path.relative_to(result.out).as_posix() + "\n" + path.read_text()):
                for secret in SECRETS:
                    assert not _found(secret.lower(), reading), (path.name, secret)
    after = json.loads((result.out / "data.json").read_text())
    assert _numbers(after) == _numbers({"doc": document})
