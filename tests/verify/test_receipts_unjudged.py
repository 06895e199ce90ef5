"""When the contract check cannot load a folder's evidence, its trials are unknown: the receipts and history lines
say what they could not judge, and never that receipts are missing when they are there, nor that none were needed."""

from __future__ import annotations

import re
from pathlib import Path

from .test_site_tamper import JOURNAL


def _break(journal: Path) -> None:
    lines = journal.read_text().splitlines(keepends=True)
    lines[2] = '{"bad": 1}\n'
    journal.write_text("".join(lines))


def _line(out: str, check: str) -> str:
    return next(line for line in out.splitlines() if re.match(rf"^(PASS|FAIL|SKIP) {check}\b", line))


def test_a_signed_site_whose_evidence_does_not_load_names_no_receipt_missing(run_cli, site: Path, keypair) -> None:
    _break(site / JOURNAL)
    result = run_cli("verify", site, "--key", keypair[1])
    assert result.code == 1, result.out
    assert "named by the signed predicate but not present" not in result.out, result.out
    receipts = _line(result.out, "receipts")
    assert receipts.startswith("SKIP receipts") and "not checked: which trials 1 evidence folder(s) hold" in receipts, receipts
    assert "3 receipt(s) there compared only with the signed predicate" in receipts, receipts
    assert "their decisions are not named" in _line(result.out, "history")


def test_an_unsigned_folder_whose_evidence_does_not_load_does_not_pass_receipts(run_cli, redacted: Path) -> None:
    _break(next(redacted.rglob("03-original-restored.jsonl")))
    result = run_cli("verify", redacted, "--allow-unpinned")
    receipts = _line(result.out, "receipts")
    assert result.code == 1 and receipts.startswith("SKIP receipts") and "not examined" in receipts, result.out
    assert "every redacted folder has its receipt" not in result.out


def test_a_receipt_edited_in_a_folder_that_does_not_load_still_fails(run_cli, site: Path, keypair) -> None:
    _break(site / JOURNAL)
    receipt = next(site.rglob("receipt.json"))
    receipt.write_text(receipt.read_text() + " ")
    result = run_cli("verify", site, "--key", keypair[1])
    receipts = _line(result.out, "receipts")
    assert receipts.startswith("FAIL receipts") and "sha256 differs from the one the signed predicate names" in result.out, result.out
