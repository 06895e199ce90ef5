"""Unpinned is not verified: only a key the auditor brings (--key, --key-id) authenticates the signer."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from evidence_kit.attest.keys import key_id, load_public_key

from ..resign import resign

pytestmark = pytest.mark.slow  # the session builds a real site once


def _kid(public: Path) -> str:
    return key_id(load_public_key(public))


def _last(result) -> str:
    return result.out.splitlines()[-1]


def _one_line_exit_2(result, *needles: str) -> None:
    assert result.code == 2, result.out + result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err, result.err
    for needle in needles:
        assert needle in result.err, result.err


def test_site_resigned_by_an_attacker_is_not_verified_unpinned(run_cli, site: Path, other_keypair) -> None:
    resign(site, other_keypair[0])
    result = run_cli("verify", site)
    assert result.code == 1, result.out
    assert "PASS signature" in result.out  # integrity holds against the key the folder ships...
    assert _last(result).startswith(f"NOT AUTHENTICATED: {site}: the signer is not authenticated")  # ...and proves nothing
    assert not _last(result).startswith("verified:")


def test_site_rebuilt_unsigned_is_not_verified_unpinned(run_cli, site: Path) -> None:
    from evidence_kit.attest.manifest import write_manifest

    for name in ("manifest.dsse.json", "signing.pub"):
        (site / name).unlink()
    write_manifest(site)
    result = run_cli("verify", site)
    assert result.code == 1 and "who published it (the folder is not signed)" in _last(result), result.out
    allowed = run_cli("verify", site, "--allow-unpinned")
    assert allowed.code == 0, allowed.out
    assert _last(allowed).startswith(f"verified without authentication (--allow-unpinned): {site}: the signer is not authenticated")


def test_key_id_pins_the_folders_own_key(run_cli, site: Path, keypair) -> None:
    kid = _kid(keypair[1])
    result = run_cli("verify", site, "--key-id", kid)
    assert result.code == 0, result.out
    assert _last(result).startswith(f"verified: {site}: authenticated: signed by the publisher's key (key id {kid}, pinned with --key-id)")
    assert run_cli("verify", site, "--key-id", kid.upper()).code == 0  # hex is hex in either case


def test_key_id_of_another_key_fails_closed(run_cli, site: Path, keypair, other_keypair) -> None:
    resign(site, other_keypair[0])
    result = run_cli("verify", site, "--key-id", _kid(keypair[1]), "--allow-unpinned")
    assert result.code == 1, result.out
    assert "FAIL signature not the pinned key" in result.out
    assert f"signing.pub: is key id {_kid(other_keypair[1])}, not {_kid(keypair[1])} pinned with --key-id" in result.out


@pytest.mark.parametrize(
    "given, why",
    [
        ("abc123", "got 6 character(s)"),
        ("0" * 63, "got 63 character(s)"),
        ("0" * 65, "got 65 character(s)"),
        ("g" * 64, "not all hex digits"),
        ("ab\ncd", "not all hex digits"),
    ],
)
def test_malformed_key_id_is_bad_input(run_cli, site: Path, given: str, why: str) -> None:
    _one_line_exit_2(run_cli("verify", site, "--key-id", given), "--key-id", "64 hex digits", why)


def test_shortened_key_id_is_not_a_pin(run_cli, site: Path, keypair) -> None:
    _one_line_exit_2(run_cli("verify", site, "--key-id", _kid(keypair[1])[:16]), "got 16 character(s)")


def test_key_and_key_id_must_agree(run_cli, site: Path, keypair, other_keypair) -> None:
    both = run_cli("verify", site, "--key", keypair[1], "--key-id", _kid(keypair[1]))
    assert both.code == 0, both.out
    _one_line_exit_2(run_cli("verify", site, "--key", keypair[1], "--key-id", _kid(other_keypair[1])), "they must pin the same key")


def test_key_shipped_by_the_site_is_refused(run_cli, site: Path) -> None:
    _one_line_exit_2(run_cli("verify", site, "--key", site / "signing.pub"), "proves nothing", str(site / "signing.pub"))


def test_symlink_into_the_tree_is_refused(run_cli, site: Path, tmp_path: Path) -> None:
    link = tmp_path / "publisher.pub"
    link.symlink_to(site / "signing.pub")
    _one_line_exit_2(run_cli("verify", site, "--key", link), "proves nothing")


def test_hard_link_into_the_tree_is_refused(run_cli, site: Path, tmp_path: Path) -> None:
    link = tmp_path / "publisher.pub"
    os.link(site / "signing.pub", link)
    _one_line_exit_2(run_cli("verify", site, "--key", link), "proves nothing")


def test_key_in_the_site_folder_above_public_is_refused(run_cli, site_folder: Path, keypair) -> None:
    """Verifying SITE/public with a key kept in SITE: SITE is a published tree holding the target."""
    shutil.copy(keypair[1], site_folder / "publisher.pub")
    _one_line_exit_2(run_cli("verify", site_folder / "public", "--key", site_folder / "publisher.pub"), "proves nothing")
    _one_line_exit_2(run_cli("verify", site_folder, "--key", site_folder / "publisher.pub"), "proves nothing")


def test_key_beside_the_site_in_a_repository_pins(run_cli, site_master: Path, tmp_path: Path, keypair) -> None:
    """A repository root holds mkdocs.yml and site/; a key kept in it, outside the site verified, is a pin."""
    repo = tmp_path / "repo"
    (repo / "site").mkdir(parents=True)
    (repo / "mkdocs.yml").write_text("site_name: x\n")
    built = Path(shutil.copytree(site_master, repo / "out" / "site", symlinks=True))
    (repo / "keys").mkdir()
    shutil.copy(keypair[1], repo / "keys" / "publisher.pub")
    assert run_cli("verify", built, "--key", repo / "keys" / "publisher.pub").code == 0


def test_a_copy_of_the_key_outside_the_tree_pins(run_cli, site: Path, tmp_path: Path, keypair) -> None:
    """An auditor's own copy is a pin: what matters is where it came from, which verify cannot see (docs say so)."""
    copy = tmp_path / "elsewhere" / "publisher.pub"
    copy.parent.mkdir()
    shutil.copy(keypair[1], copy)
    assert run_cli("verify", site, "--key", copy).code == 0


def test_json_report_says_what_was_proven(run_cli, site: Path, keypair) -> None:
    unpinned = json.loads(run_cli("verify", site, "--json").out)
    assert unpinned["verified"] is False and unpinned["checks_passed"] is True
    assert unpinned["authenticated"] is False and unpinned["pin"] == {"by": None, "key_id": None}
    assert unpinned["signer_key_id"] == _kid(keypair[1])
    assert any(item.startswith("who signed it") for item in unpinned["not_proven"])
    assert "the signer is not authenticated" in unpinned["summary"]
    pinned = json.loads(run_cli("verify", site, "--json", "--key-id", _kid(keypair[1])).out)
    assert pinned["verified"] is True and pinned["authenticated"] is True and pinned["not_proven"] == []
    assert pinned["pin"] == {"by": "--key-id", "key_id": _kid(keypair[1])}


def test_unsigned_redacted_folder_cannot_be_authenticated(run_cli, redacted: Path, keypair) -> None:
    pinned = run_cli("verify", redacted, "--key", keypair[1])
    assert pinned.code == 1 and "FAIL signature not signed" in pinned.out, pinned.out
    bare = run_cli("verify", redacted)
    assert bare.code == 1 and "who published it (the folder is not signed)" in _last(bare), bare.out
    allowed = run_cli("verify", redacted, "--allow-unpinned")
    assert allowed.code == 0 and "not authenticated" in _last(allowed), allowed.out


def test_key_file_holding_two_keys_is_bad_input(run_cli, site: Path, tmp_path: Path, keypair, other_keypair) -> None:
    """A PEM reader takes the first block it finds: a file holding the publisher's key and another would
    pin whichever came first. Either order is refused, in one line naming the file."""
    for first, second in ((keypair[1], other_keypair[1]), (other_keypair[1], keypair[1])):
        both = tmp_path / "two.pub"
        both.write_bytes(first.read_bytes() + second.read_bytes())
        _one_line_exit_2(run_cli("verify", site, "--key", both), str(both), "holds 2 PEM blocks", "exactly one public key")


@pytest.mark.parametrize("around", [b"a comment\n{}", b"{}trailing text\n", b"{}{}"])
def test_key_file_holding_text_besides_its_key_is_bad_input(run_cli, site: Path, tmp_path: Path, keypair, around: bytes) -> None:
    pem = keypair[1].read_bytes()
    given = tmp_path / "key.pub"
    given.write_bytes(around.replace(b"{}", pem, 1).replace(b"{}", b""))
    if around == b"{}{}":
        given.write_bytes(pem + b"\n\n")  # whitespace around the one block is fine
        assert run_cli("verify", site, "--key", given).code == 0
        return
    _one_line_exit_2(run_cli("verify", site, "--key", given), str(given), "exactly one public key")


def test_key_id_differing_in_its_last_digit_is_not_the_pin(run_cli, site: Path, keypair) -> None:
    """The whole id is compared: one that shares 63 digits with the folder's key is another key."""
    kid = _kid(keypair[1])
    near = kid[:-1] + ("0" if kid[-1] != "0" else "1")
    result = run_cli("verify", site, "--key-id", near, "--allow-unpinned")
    assert result.code == 1 and "not the pinned key" in result.out
    _one_line_exit_2(run_cli("verify", site, "--key-id", f" {kid}"), "--key-id", "got 65 character(s)")
    _one_line_exit_2(run_cli("verify", site, "--key-id", f"sha256:{kid}"), "--key-id", "not all hex digits")
