"""verify on trial bundles and decision folders: raw, redacted, signed; unsafe paths; exit codes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from evidence_kit.attest import sign_tree
from evidence_kit.verify import run as verify_run
from evidence_kit.verify.verification import CheckResult


def _lines(result) -> dict[str, str]:
    return {line.split()[1]: line.split()[0] for line in result.out.splitlines() if line[:4] in ("PASS", "FAIL", "SKIP")}


def test_raw_decision_verifies_with_skips(run_cli, reference_decision: Path) -> None:
    result = run_cli("verify", reference_decision, "--allow-unpinned")
    assert result.code == 0, result.out
    assert _lines(result) == {
        "signature": "SKIP",
        "statement": "SKIP",
        "digests": "SKIP",
        "complete": "SKIP",
        "paths": "PASS",
        "contract": "PASS",
        "receipts": "SKIP",
        "figures": "PASS",
        "sources": "SKIP",
        "history": "SKIP",
    }
    last = result.out.splitlines()[-1]
    assert "not authenticated" in last and "not proven: who published it (the folder is not signed)" in last
    assert "nothing lists their hashes: raw evidence" in last


def test_raw_trial_bundle_verifies(run_cli, reference_decision: Path) -> None:
    assert run_cli("verify", reference_decision / "dflash", "--allow-unpinned").code == 0


def test_redacted_decision_and_bundle_verify(run_cli, redacted: Path) -> None:
    result = run_cli("verify", redacted, "--allow-unpinned")
    assert result.code == 0, result.out
    assert _lines(result)["receipts"] == "PASS" and _lines(result)["digests"] == "PASS"
    assert run_cli("verify", redacted / "cache-layout", "--allow-unpinned").code == 0


def test_signed_decision_folder(run_cli, redacted: Path, keypair) -> None:
    sign_tree(redacted, keypair[0])
    result = run_cli("verify", redacted, "--key", keypair[1])
    assert result.code == 0, result.out
    lines = _lines(result)
    assert lines.pop("sources") == "SKIP"  # not a built site folder: no mkdocs.yml or site/ to regenerate
    assert set(lines.values()) == {"PASS"}


def test_signing_is_deterministic(redacted: Path, keypair, tmp_path: Path) -> None:
    import shutil

    twin = Path(shutil.copytree(redacted, tmp_path / "twin"))
    first = sign_tree(redacted, keypair[0]).read_bytes()
    assert sign_tree(twin, keypair[0]).read_bytes() == first
    assert sign_tree(redacted, keypair[0]).read_bytes() == first


def test_flipped_journal_byte_in_bundle(run_cli, redacted: Path) -> None:
    journal = redacted / "dflash" / "journals" / "01-original-before.jsonl"
    data = bytearray(journal.read_bytes())
    data[5] ^= 0x20  # inside '"type"': the line no longer parses either
    journal.write_bytes(bytes(data))
    result = run_cli("verify", redacted)
    assert result.code == 1
    assert "FAIL digests" in result.out and "FAIL contract" in result.out
    assert f"{journal}:1:" in result.out  # the contract failure names file and line


def test_request_times_out_of_order_fail_the_contract(run_cli, reference_decision: Path) -> None:
    journal = reference_decision / "dflash" / "journals" / "01-original-before.jsonl"
    lines = journal.read_text().splitlines(keepends=True)
    i = next(n for n, line in enumerate(lines) if '"type": "request"' in line or '"type":"request"' in line)
    record = json.loads(lines[i])
    record["ttft_content_s"] = record["ttft_s"] / 2  # visible content before the first token
    lines[i] = json.dumps(record) + "\n"
    journal.write_text("".join(lines))
    result = run_cli("verify", reference_decision)
    assert result.code == 1 and "FAIL contract" in result.out
    assert f"{journal}:{i + 1}: ttft_s " in result.out and "greater than ttft_content_s" in result.out


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    """A FIFO outside the folder: opening it for reading would hang the test, so any read is caught."""
    path = tmp_path / "outside.fifo"
    os.mkfifo(path)
    return path


def _add_entry(bundle: Path, path: str) -> None:
    manifest = json.loads((bundle / "manifest.json").read_text())
    manifest["files"].append({"path": path, "size": 1, "sha256": "0" * 64})
    (bundle / "manifest.json").write_text(json.dumps(manifest))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_escaping_entries_rejected_without_reading(run_cli, redacted: Path, fifo: Path, kind: str) -> None:
    bundle = redacted / "cache-layout"
    if kind == "dotdot":
        entry = os.path.relpath(fifo, bundle)
        assert entry.startswith("../..")
    elif kind == "absolute":
        entry = str(fifo)
    else:
        (bundle / "logs").mkdir()
        (bundle / "logs" / "engine.log").symlink_to(fifo)
        entry = "logs/engine.log"
    _add_entry(bundle, entry)
    result = run_cli("verify", redacted)
    assert result.code == 1
    paths = [line for line in result.out.splitlines() if "manifest.json: entry" in line or "symbolic link" in line]
    assert "FAIL paths" in result.out and paths, result.out
    assert any(entry in line for line in paths)


def test_exception_inside_a_check_is_a_failure(run_cli, redacted: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(ctx) -> CheckResult:
        raise ZeroDivisionError("boom")

    checks = [(name, broken if name == "receipts" else check) for name, check in verify_run.CHECKS]
    monkeypatch.setattr(verify_run, "CHECKS", checks)
    result = run_cli("verify", redacted)
    assert result.code == 1
    assert "FAIL receipts  the check itself crashed" in result.out
    assert "ZeroDivisionError: boom" in result.out


def test_unreadable_inputs_exit_2(run_cli, tmp_path: Path, redacted: Path) -> None:
    missing = run_cli("verify", tmp_path / "nope")
    assert missing.code == 2 and missing.err.count("\n") == 1 and "no such file or folder" in missing.err
    (tmp_path / "empty").mkdir()
    empty = run_cli("verify", tmp_path / "empty")
    assert empty.code == 2 and "nothing to verify" in empty.err
    bad_key = tmp_path / "bad.pub"
    bad_key.write_text("not a key")
    key = run_cli("verify", redacted, "--key", bad_key)
    assert key.code == 2 and f"{bad_key}: not a PEM public key" in key.err
    assert "Traceback" not in missing.err + empty.err + key.err


def _edit_journal(journal: Path, edit) -> None:
    lines = [json.loads(line) for line in journal.read_text().splitlines()]
    edit(lines)
    journal.write_text("".join(json.dumps(line) + "\n" for line in lines))


def test_warmup_sharing_a_timed_run_is_caught(run_cli, reference_decision: Path) -> None:
    journal = reference_decision / "dflash" / "journals" / "01-original-before.jsonl"

    def edit(lines: list[dict]) -> None:
        warmup = next(line for line in lines if line.get("warmup") is True)
        warmup["run"] = "r1-8192-c1"

    _edit_journal(journal, edit)
    result = run_cli("verify", reference_decision)
    assert result.code == 1
    assert f"{journal}: warmup requests share run 'r1-8192-c1'" in result.out


def test_run_holding_another_groups_request_is_caught(run_cli, reference_decision: Path) -> None:
    journal = reference_decision / "dflash" / "journals" / "02-dflash2-k3-candidate.jsonl"

    def edit(lines: list[dict]) -> None:
        request = next(line for line in lines if line.get("run") == "r2-8192-c1" and line["type"] == "request")
        request["concurrency"] = 4

    _edit_journal(journal, edit)
    result = run_cli("verify", reference_decision)
    assert result.code == 1
    assert "run 'r2-8192-c1' is recorded as repetition 2, group (8192, 1)" in result.out


def test_receipt_counting_a_file_the_bundle_does_not_hold(run_cli, redacted: Path) -> None:
    from evidence_kit.attest.manifest import write_manifest

    bundle = redacted / "cache-layout"
    receipt = json.loads((bundle / "receipt.json").read_text())
    receipt["counts"]["logs/ghost.log"] = {"host": 2}
    (bundle / "receipt.json").write_text(json.dumps(receipt, indent=2) + "\n")
    write_manifest(bundle)  # the manifests agree with the files: only the receipt is wrong
    write_manifest(redacted)  # the decision folder's own manifest lists the bundle's receipt too
    result = run_cli("verify", redacted)
    assert result.code == 1, result.out
    assert _lines(result)["receipts"] == "FAIL" and _lines(result)["digests"] == "PASS"
    assert "logs/ghost.log" in result.out and "does not hold" in result.out
