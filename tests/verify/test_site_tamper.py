"""A signed, built site verifies; every kind of tampering fails with what and where."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from evidence_kit.attest.keys import key_id, load_public_key

pytestmark = pytest.mark.slow  # the session builds a real site once (MkDocs, charts)

DECISION = "decisions/2026-11-01-reference-reconstruction"
JOURNAL = f"{DECISION}/evidence/cache-layout/journals/01-original-before.jsonl"


def _verify(run_cli, site: Path, *extra: str):
    return run_cli("verify", site, *extra)


def _failed(result) -> dict[str, list[str]]:
    """check name -> its problem lines, from the text report."""
    out: dict[str, list[str]] = {}
    current = None
    for line in result.out.splitlines():
        match = re.match(r"^(PASS|FAIL|SKIP) (\w+)", line)
        if match:
            current = match.group(2) if match.group(1) == "FAIL" else None
            if current:
                out[current] = []
        elif current and line.startswith("     "):
            out[current].append(line.strip())
    return out


def edit_first_figure(page: Path) -> str:
    """Publish 0.001 for the first three-decimal figure of a table in ``page``; return the figure it replaced."""
    html = page.read_text()
    first = re.search(r"<td>(\d+\.\d{3})</td>", html)
    assert first, page
    page.write_text(html.replace(first.group(0), "<td>0.001</td>", 1))
    return first.group(1)


def _flip(path: Path, offset: int | None = None) -> None:
    data = bytearray(path.read_bytes())
    i = len(data) // 2 if offset is None else offset
    data[i] ^= 0x01
    path.write_bytes(bytes(data))


def test_signed_site_verifies_with_pinned_key(run_cli, site: Path, keypair) -> None:
    result = _verify(run_cli, site, "--key", keypair[1])
    assert result.code == 0, result.out
    assert [line.split()[0] for line in result.out.splitlines()[:8]] == ["PASS"] * 8
    assert "given with --key" in result.out
    kid = key_id(load_public_key(keypair[1]))
    assert result.out.splitlines()[-1].startswith(
        f"verified: {site}: authenticated: signed by the publisher's key (key id {kid}, pinned with --key); "
    )


def test_built_site_folder_verifies_its_public_folder(run_cli, site_master: Path, keypair) -> None:
    result = _verify(run_cli, site_master, "--key", keypair[1])
    assert result.code == 0, result.out
    assert f"verified: {site_master / 'public'}" in result.out


def test_json_report(run_cli, site: Path, keypair) -> None:
    result = _verify(run_cli, site, "--json", "--key", keypair[1])
    doc = json.loads(result.out)
    assert result.code == 0 and doc["verified"] is True
    assert doc["authenticated"] is True and doc["pin"] == {"by": "--key", "key_id": key_id(load_public_key(keypair[1]))}
    assert [c["check"] for c in doc["checks"]] == [
        "signature",
        "statement",
        "digests",
        "complete",
        "paths",
        "contract",
        "receipts",
        "figures",
        "sources",
        "history",
    ]
    assert _verify(run_cli, site, "--json", "--key", keypair[1]).out == result.out  # deterministic


@pytest.mark.parametrize(
    "rel, offset, expect",
    [
        (JOURNAL, None, {"digests", "figures"}),  # its sha256 is printed on the pages
        (f"{DECISION}/cache-layout/per-run.json", None, {"digests", "figures"}),
        ("manifest.json", None, {"digests"}),
        (f"{DECISION}/index.html", None, {"digests"}),
        ("manifest.dsse.json", None, {"signature"}),
    ],
    ids=["journal", "chart-data", "manifest", "page", "envelope"],
)
def test_one_flipped_byte_is_caught(run_cli, site: Path, rel: str, offset: int | None, expect: set[str]) -> None:
    target = site / rel
    if rel == "manifest.dsse.json":
        # Flip a byte inside the base64 signature so the JSON stays readable.
        doc = json.loads(target.read_text())
        sig = bytearray(doc["signatures"][0]["sig"].encode())
        sig[10] = ord("A") if sig[10] != ord("A") else ord("B")
        doc["signatures"][0]["sig"] = sig.decode()
        target.write_text(json.dumps(doc))
    else:
        _flip(target, offset)
    result = _verify(run_cli, site)
    assert result.code == 1, result.out
    failed = _failed(result)
    assert expect <= set(failed), result.out
    if rel != "manifest.dsse.json":
        assert any(rel in line for line in failed["digests"]), result.out
    else:
        assert "statement" in failed  # an unverified payload is never examined


def test_hand_edited_number_in_a_page(run_cli, site: Path) -> None:
    page = site / DECISION / "index.html"
    html = page.read_text()
    assert html.count("1.735") == 1
    page.write_text(html.replace("1.735", "1.705"))
    result = _verify(run_cli, site)
    failed = _failed(result)
    assert result.code == 1 and {"digests", "figures"} <= set(failed)
    assert any("index.html" in line and "published 1.705, recomputed 1.735" in line for line in failed["figures"]), result.out


def test_edited_page_and_resigned_manifest_still_caught(run_cli, site: Path, keypair) -> None:
    """A publisher who edits a figure and re-signs passes every hash check, never the recomputation."""
    from ..resign import resign

    figure = edit_first_figure(site / DECISION / "cache-layout" / "summary.html")
    resign(site, keypair[0])
    result = _verify(run_cli, site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and set(failed) == {"figures"}, result.out
    assert any(f"published 0.001, recomputed {figure}" in line for line in failed["figures"])


def test_analysis_json_edit_caught_field_by_field(run_cli, site: Path) -> None:
    path = site / DECISION / "analysis.json"
    doc = json.loads(path.read_text())
    doc["trials"][0]["wins"] = 3
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    failed = _failed(_verify(run_cli, site))
    assert any("trials[0].wins: published 3, recomputed 0" in line for line in failed["figures"])


def test_deleted_file_caught(run_cli, site: Path) -> None:
    (site / DECISION / "cache-layout" / "per-run.csv").unlink()
    result = _verify(run_cli, site)
    failed = _failed(result)
    assert result.code == 1
    assert any("per-run.csv" in line and "missing" in line for line in failed["complete"]), result.out


def test_deleted_journal_caught(run_cli, site: Path) -> None:
    (site / JOURNAL).unlink()
    failed = _failed(_verify(run_cli, site))
    assert any("01-original-before.jsonl" in line and "missing" in line for line in failed["complete"])
    assert "contract" in failed


def test_added_file_caught(run_cli, site: Path) -> None:
    (site / DECISION / "extra.html").write_text("<p>unlisted</p>")
    failed = _failed(_verify(run_cli, site))
    assert any("extra.html" in line and "not listed" in line for line in failed["complete"])


def test_wrong_key_caught(run_cli, site: Path, other_keypair) -> None:
    result = _verify(run_cli, site, "--key", other_keypair[1])
    failed = _failed(result)
    assert result.code == 1 and "signature" in failed and "statement" in failed
    assert any("manifest.dsse.json" in line for line in failed["signature"])


def test_resigned_by_another_key_caught_only_when_pinned(run_cli, site: Path, keypair, other_keypair) -> None:
    from ..resign import resign

    resign(site, other_keypair[0])
    # Integrity holds against the key the folder names, but that proves nothing about who signed:
    # unpinned is not verified, and only --allow-unpinned accepts it, saying so in the last line.
    unpinned = _verify(run_cli, site)
    assert unpinned.code == 1 and "the signer is not authenticated" in unpinned.out.splitlines()[-1]
    allowed = _verify(run_cli, site, "--allow-unpinned")
    assert allowed.code == 0 and "the signer is not authenticated" in allowed.out.splitlines()[-1]
    assert _verify(run_cli, site, "--key", keypair[1]).code == 1


def test_missing_envelope_with_key_fails(run_cli, site: Path, keypair) -> None:
    (site / "manifest.dsse.json").unlink()
    result = _verify(run_cli, site, "--key", keypair[1])
    assert result.code == 1 and "signature" in _failed(result)
    # Unpinned too: the folder still carries signing.pub, so a stripped signature is not "unsigned".
    unpinned = _verify(run_cli, site)
    assert unpinned.code == 1 and "signature" in _failed(unpinned)
    (site / "signing.pub").unlink()
    manifest = json.loads((site / "manifest.json").read_text())
    manifest["files"] = [f for f in manifest["files"] if f["path"] != "signing.pub"]
    (site / "manifest.json").write_text(json.dumps(manifest))
    # A truly unsigned site: integrity only, so unpinned it is not verified; --allow-unpinned accepts it
    # with the signer named as not authenticated, and a pinned key refuses it.
    assert _verify(run_cli, site).code == 1
    allowed = _verify(run_cli, site, "--allow-unpinned")
    assert allowed.code == 0 and "who published it (the folder is not signed)" in allowed.out.splitlines()[-1]
    assert _verify(run_cli, site, "--key", keypair[1]).code == 1


def test_subject_not_bound_to_the_files(run_cli, site: Path, keypair) -> None:
    """A valid signature over a statement whose subjects are not the files on disk is caught."""
    from evidence_kit.attest.dsse import IN_TOTO_PAYLOAD_TYPE, sign_envelope
    from evidence_kit.attest.keys import load_private_key
    from evidence_kit.attest.statement import folder_predicate, statement_bytes
    from evidence_kit.canonical import canonical_json

    manifest = json.loads((site / "manifest.json").read_text())
    subjects = [(e["path"], e["sha256"]) for e in manifest["files"] if not e["path"].endswith("index.html")]
    payload = statement_bytes(subjects, folder_predicate(site))  # leaves out the manifest and the pages
    envelope = sign_envelope(payload, IN_TOTO_PAYLOAD_TYPE, load_private_key(keypair[0]))
    (site / "manifest.dsse.json").write_bytes(canonical_json(envelope))
    result = _verify(run_cli, site, "--key", keypair[1])
    failed = _failed(result)
    assert result.code == 1 and "complete" in failed, result.out
    assert any("not signed" in line for line in failed["complete"])
    assert any("manifest itself is not a signed subject" in line for line in failed["complete"])


@pytest.mark.parametrize("claim", ["mkdocs-plugin", "bundle"])
def test_a_statement_that_misstates_how_the_site_was_published_fails(run_cli, site: Path, keypair, claim) -> None:
    """The signed statement says how the folder was published (``build --sign``: a site). Re-signed claiming a
    plugin's prefix folder (whose pages are compared as a host's articles), or anything else, it fails."""
    from ..resign import resign, signed_predicate

    assert signed_predicate(site)["publication"] == "site"
    resign(site, keypair[0], publication=claim)
    failed = _failed(_verify(run_cli, site, "--key", keypair[1]))
    assert set(failed) == {"figures"} and any(
        f"laid out as a built site, but the signed statement says it was published as '{claim}'" in line for line in failed["figures"]
    ), failed
