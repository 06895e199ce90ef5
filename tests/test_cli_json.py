"""`--json` on the commands that write or scan: one JSON object on stdout, the same exit code."""

from __future__ import annotations

import json
from pathlib import Path

from .conftest import REPO

SAMPLES = REPO / "tests" / "import_samples" / "guidellm"


def test_import_redact_scan_and_build_print_one_json_object(tmp_path: Path, run_cli) -> None:
    args = [a for p in ("before", "candidate", "restored") for a in (f"--{p}", str(SAMPLES / f"{p}.json"))]
    imported = run_cli("import", *args, "--out", tmp_path / "raw", "--json")
    doc = json.loads(imported.out)
    assert imported.code == 0 and doc["schema"] == "evidence-kit/import-result/v1" and Path(doc["trial"]).is_dir()
    redacted = run_cli("redact", tmp_path / "raw", "--out", tmp_path / "ev", "--map", tmp_path / "map.json", "--json")
    doc = json.loads(redacted.out)
    assert redacted.code == 0 and doc["schema"] == "evidence-kit/redact-result/v1" and doc["publishable"] is True and doc["findings"] == []
    assert doc["pseudonyms"] > 0 and isinstance(doc["key_id"], str)  # the files name the model: pseudonymised
    scanned = run_cli("scan", tmp_path / "raw", "--map", tmp_path / "map.json", "--json")
    doc = json.loads(scanned.out)
    # The raw folder holds the private values the map names: found, the exit code still 1, no stderr prose.
    assert scanned.code == 1 and doc["clean"] is False and doc["findings"] and scanned.err == ""
    assert run_cli("keygen", "--out", tmp_path / "key").code == 0
    built = run_cli(
        "build",
        tmp_path / "ev",
        "--out",
        tmp_path / "site",
        "--known-values",
        tmp_path / "map.json",
        "--sign",
        tmp_path / "key" / "signing.key",
        "--json",
    )
    doc = json.loads(built.out)
    assert built.code == 0 and doc["schema"] == "evidence-kit/build-result/v1" and Path(doc["index"]).is_file()
    assert doc["signed"].endswith("manifest.dsse.json") and len(doc["key_id"]) == 64 and doc["scanned_known_values"] is True
