"""The signing key's seed pasted into a host page as ``openssl pkey -text`` prints it.

``openssl pkey -in key.pem -text -noout`` is how an operator looks at an Ed25519 key: the seed in hex, its bytes
joined by colons, fifteen to a line, indented. Pasted into a runbook (a console block that Pygments highlights
into spans), it is the key's secret published; the plugin's post-build check must find it as it finds the seed's
plain hex, delete the page and fail unsigned. So must its PEM body wrapped over two lines of a paragraph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization as ser

from evidence_kit.attest.keys import generate_keypair, load_private_key
from tests.plugin_host import build_host, write_host
from tests.test_mkdocs_plugin import plugin_decision  # noqa: F401

pytestmark = pytest.mark.slow  # one real MkDocs build


def _openssl_text(seed: bytes) -> str:
    """The ``priv:`` block as OpenSSL 3 writes it (``openssl pkey -text -noout``)."""
    pairs = [f"{b:02x}" for b in seed]
    rows = [":".join(pairs[i : i + 15]) for i in range(0, len(pairs), 15)]
    return "ED25519 Private-Key:\npriv:\n" + ":\n".join("    " + row for row in rows) + "\n"


def test_the_seed_pasted_as_openssl_prints_it_fails_the_build(tmp_path: Path, plugin_decision: Path) -> None:  # noqa: F811
    private, _, _ = generate_keypair(tmp_path / "keys")
    seed = load_private_key(private).private_bytes(ser.Encoding.Raw, ser.PrivateFormat.Raw, ser.NoEncryption())
    config = write_host(
        tmp_path,
        {"decisions": [str(plugin_decision)], "signing_key": str(private)},
        extra={"markdown_extensions": ["pymdownx.highlight", "pymdownx.superfences"]},
    )
    (tmp_path / "docs" / "ops.md").write_text(
        "# Ops\n\nOur signing key:\n\n```console\n$ openssl pkey -in key.pem -text -noout\n" + _openssl_text(seed) + "```\n"
    )
    # And its PEM body, wrapped by an editor at 40 columns inside a paragraph: Markdown keeps the line break.
    body = private.read_text().splitlines()[1]
    (tmp_path / "docs" / "wrapped.md").write_text(f"# Wrapped\n\nThe key body is {body[:40]}\n{body[40:]} for the record.\n")
    done = build_host(config)
    assert done.returncode != 0 and "copy of the signing key" in done.stderr, done.stderr[-800:]
    assert (tmp_path / "site" / "runbook" / "index.html").exists()  # only the files that hold it are deleted
    assert not (tmp_path / "site" / "ops" / "index.html").exists()
    assert not (tmp_path / "site" / "wrapped" / "index.html").exists()
    assert not (tmp_path / "site" / "decisions" / "manifest.dsse.json").exists()
