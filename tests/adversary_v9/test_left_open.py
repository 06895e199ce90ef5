"""Adversary v9: what is still open, each a strict xfail that says why (it passes the day it is fixed)."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from evidence_kit.redact import KnownValue, known_values_from_raw, redact_bundle, scan_tree
from tests.redact import corpus
from tests.redact.conftest import KEY
from tests.redact.test_leak_classes import _texts, plant

D = base64.urlsafe_b64encode(bytes(range(40, 72))).decode().rstrip("=")  # 43 characters, as an Ed25519 "d"


def test_dotnet_rsa_parameters_are_redacted(tmp_path: Path) -> None:
    """.NET's RSAParameters as JSON ("D", "InverseQ", in standard base64) and as ToXmlString's XML (fixed since)."""
    plus = base64.b64encode(bytes(range(200, 240))).decode()  # standard base64, with '+' and '/'
    other = base64.b64encode(bytes(range(100, 140))).decode()
    modulus = base64.b64encode(bytes(range(1, 65))).decode()
    xml = f"<RSAKeyValue><Modulus>{modulus}</Modulus><Exponent>AQAB</Exponent><P>{plus}</P><DQ>{other}</DQ></RSAKeyValue>"
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"),
        files={
            "logs/net.log": json.dumps({"D": D, "Exponent": "AQAB", "InverseQ": D[::-1]}) + "\n",
            "logs/net.xml": xml + "\n",
            "logs/net.json": json.dumps({"DP": plus, "Modulus": "AQAB"}),
        },
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    out = _texts(result.out)
    assert D not in out and D[::-1] not in out and plus not in out and other not in out
    assert "<Modulus>" + modulus + "</Modulus>" in out  # the public modulus stays


def test_a_flattened_jwk_member_is_redacted(tmp_path: Path) -> None:
    """A member under a dotted key (jwk.d=…, keys.0.d: …), as a flattened log or a properties file writes it
    (fixed since); a dotted name that is no key's (x.d=…) is left to the other detectors."""
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"), files={"logs/flat.log": f"jwk.kty=OKP jwk.d={D}\n", "logs/keys.properties": f"keys.0.d: {D[::-1]}\n"}
    )
    out = _texts(redact_bundle(raw, tmp_path / "out", key=KEY).out)
    assert D not in out and D[::-1] not in out


@pytest.mark.xfail(
    strict=True,
    reason="text is read line by line: a YAML list of env variables gives the name "
    "and the value on two lines (- name: VLLM_API_KEY / value: …); JSON's {name, value} is handled",
)
def test_a_secret_in_a_yaml_env_list_is_redacted(tmp_path: Path) -> None:
    text = "env:\n  - name: VLLM_API_KEY\n    value: token-qzv81kdwpx\n"
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/pod.yaml": text})
    assert "token-qzv81kdwpx" not in _texts(redact_bundle(raw, tmp_path / "out", key=KEY).out)


@pytest.mark.xfail(
    strict=True,
    reason="a symmetric JWK's k shorter than 22 characters (a key of under 16 bytes) "
    'is not told from any one-letter name\'s value, even beside "kty": "oct" on the same line',
)
def test_a_short_symmetric_jwk_is_redacted(tmp_path: Path) -> None:
    k = base64.urlsafe_b64encode(b"hs256-secret").decode().rstrip("=")
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/oct.log": json.dumps({"kty": "oct", "k": k, "alg": "HS256"}) + "\n"})
    assert k not in _texts(redact_bundle(raw, tmp_path / "out", key=KEY).out)


@pytest.mark.xfail(
    strict=True,
    reason="a labelled secret is learnt and hunted in the whole site; one that is an "
    "ordinary word (api_key: search, secret: default) is a word of the site's own template, so the "
    "build fails closed (safe, but the operator must rename the secret or drop the file)",
)
def test_a_labelled_secret_that_is_a_common_word_does_not_stop_the_site(tmp_path: Path) -> None:
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), files={"logs/client.env": "api_key: search\n"})
    assert redact_bundle(raw, tmp_path / "out", key=KEY).publishable
    page = tmp_path / "page"
    page.mkdir()
    (page / "index.html").write_text('<input aria-label="Search" placeholder="Search">\n')
    assert scan_tree(page, known_values=known_values_from_raw(raw)) == []


def test_a_node_named_only_by_a_load_word_folder_is_hunted(tmp_path: Path) -> None:
    """A private path's folder named like a load level (/nfs/c256/…) is hunted alone (fixed since: the matcher
    leaves the word only where the evidence writes it as its own, in a run id or a group label)."""
    raw = plant(
        corpus.make_raw_trial(tmp_path / "raw"), private={"scratch_dir": "/nfs/c256/scratch/zeta"}, files={"logs/ssh.log": "ssh c256 uptime\n"}
    )
    assert "c256" not in (redact_bundle(raw, tmp_path / "out", key=KEY).out / "logs" / "ssh.log").read_text()


def test_known_value_guard_still_finds_the_node_when_it_is_known(tmp_path: Path) -> None:
    """The open case above is about what is known: a node declared as one is found alone."""
    page = tmp_path / "page"
    page.mkdir()
    (page / "ssh.log").write_text("ssh c256 uptime\n")
    assert scan_tree(page, known_values=[KnownValue("host", "c256.hpc.zeta-lab.internal")]) != []
