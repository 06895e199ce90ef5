"""The leak scan on raw evidence, bundles and site-like folders."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from urllib.parse import quote

from evidence_kit.attest import write_manifest
from evidence_kit.redact import SITE_KNOWN_ONLY, KnownValue, Policy, known_values_from_raw, scan_tree

from . import corpus


def test_raw_evidence_is_flagged_by_class_file_and_line_never_value(raw_trial):
    assert scan_tree(raw_trial)  # the detectors alone find plenty
    findings = scan_tree(raw_trial, known_values=known_values_from_raw(raw_trial))
    text = "\n".join(str(f) for f in findings)
    for canary in corpus.CANARIES:
        assert canary.lower() not in text.lower()
    by_file = {(f.file, f.cls) for f in findings}
    assert ("logs/nvidia-smi-q.txt", "serial") in by_file
    assert ("logs/docker-inspect.json", "token") in by_file
    # A private file name is reported with its private part masked.
    assert ("telemetry/[gpu].jsonl", None, "gpu") in {(f.file, f.line, f.cls) for f in findings}
    assert any(f.file == "logs/[host]-engine.log" and f.line == 2 for f in findings)
    line = next(f.line for f in findings if f.file == "logs/nvidia-smi-q.txt" and f.cls == "serial")
    assert "Serial Number" in (raw_trial / "logs/nvidia-smi-q.txt").read_text().splitlines()[line - 1]


def _site(tmp_path: Path, body: str) -> Path:
    site = tmp_path / "site"
    (site / "evidence").mkdir(parents=True)
    (site / "evidence" / "journal.jsonl").write_text('{"type": "footer"}\n')
    (site / "page.md").write_text(body)
    return site


def test_published_hashes_are_not_private(tmp_path):
    site = _site(tmp_path, "# page\n")
    journal_sha = hashlib.sha256((site / "evidence" / "journal.jsonl").read_bytes()).hexdigest()
    chart = {"source": "evidence/journal.jsonl", "sha256": journal_sha, "short": journal_sha[:12]}
    (site / "chart-data.json").write_text(json.dumps(chart) + "\n")
    (site / "receipt.json").write_text(json.dumps({"schema": "evidence-kit/receipt/v1", "policy_digest": "sha256:" + "ab12" * 16}) + "\n")
    manifest = write_manifest(site)
    payload = base64.b64encode(manifest.model_dump_json(by_alias=True).encode()).decode()
    signature = base64.b64encode(bytes(range(64))).decode()
    (site / "manifest.dsse.json").write_text(json.dumps({"payload": payload, "payloadType": "x", "signatures": [{"keyid": "k", "sig": signature}]}))
    assert scan_tree(site) == []
    foreign = hashlib.sha256(b"a private weights file").hexdigest()
    (site / "page.md").write_text(f"weights {foreign}\n")
    assert [(f.file, f.line, f.cls) for f in scan_tree(site)] == [("page.md", 1, "hex")]


def test_escaped_and_encoded_known_values_are_found(tmp_path):
    escaped = "".join(f"\\u{ord(c):04x}" for c in corpus.SERVED)
    site = _site(tmp_path, "ok\n")
    (site / "search_index.json").write_text('{"docs": [{"text": "' + escaped + '"}, {"u": "' + corpus.MODEL.replace("/", "\\/") + '"}]}\n')
    (site / "sitemap.xml").write_text(f"<loc>/q?m={quote(corpus.MODEL, safe='')}</loc>\n")
    known = [KnownValue("model", corpus.SERVED), KnownValue("model", corpus.MODEL)]
    found = {(f.file, f.cls) for f in scan_tree(site, known_values=known)}
    assert found == {("search_index.json", "model"), ("sitemap.xml", "model")}
    assert scan_tree(site, known_values=[]) == []  # no detector fires on these; only the known values do


def test_policy_values_and_public_words(tmp_path):
    site = _site(tmp_path, "Project Bluebird ran on buildfarm.acme-corp.com\n")
    assert {f.cls for f in scan_tree(site)} == {"host"}
    policy = Policy(private={"value": ["Project Bluebird"]}, public=["buildfarm.acme-corp.com"])
    assert [f.cls for f in scan_tree(site, policy=policy)] == ["value"]


def test_private_numbers_are_found_where_json_keeps_them(tmp_path):
    site = _site(tmp_path, "ok\n")
    (site / "telemetry.jsonl").write_text(json.dumps({"serial": int(corpus.SERIAL), "t": 1.5}) + "\n")
    findings = scan_tree(site, known_values=[KnownValue("serial", corpus.SERIAL)])
    assert [(f.file, f.line) for f in findings] == [("telemetry.jsonl", 1)]


def test_theme_assets_checked_for_known_values_only(tmp_path):
    site = _site(tmp_path, "ok\n")
    assets = site / "assets" / "javascripts"
    assets.mkdir(parents=True)
    (assets / "bundle.5a2b3c4d.min.js").write_text("var a='8f3e2d1c9b';\n")
    assert scan_tree(site) != []
    assert scan_tree(site, known_only=SITE_KNOWN_ONLY) == []
    (assets / "bundle.5a2b3c4d.min.js").write_text(f"var a='{corpus.HOST}';\n")
    assert scan_tree(site, known_only=SITE_KNOWN_ONLY, known_values=[KnownValue("host", corpus.HOST)]) != []


def test_compressed_files_are_unscannable(tmp_path):
    site = _site(tmp_path, "ok\n")
    (site / "logs.tar.gz").write_bytes(b"\x1f\x8b\x08\x00" + bytes(20))
    assert [(f.file, f.source) for f in scan_tree(site)] == [("logs.tar.gz", "unscannable")]


def test_a_value_outside_the_string_literals_of_malformed_json_is_found(tmp_path):
    """JSON is scanned literal by literal; a line or file that does not parse is scanned as text."""
    folder = tmp_path / "evidence"
    folder.mkdir()
    (folder / "events.jsonl").write_text('{"ok": true}\n{"a": "x"} gpu-node-17.lab.acme-corp.internal 10.20.30.40\n')
    (folder / "state.json").write_text('{"a": 1,\n  node7: 10.20.30.41}\n')
    (folder / "fine.json").write_text('{"a": 1,\n  "b": [2, 3.5e-3, null]}\n')
    findings = {(f.file, f.line, f.cls) for f in scan_tree(folder)}
    assert findings == {("events.jsonl", 2, "host"), ("events.jsonl", 2, "ip"), ("state.json", 2, "ip")}
    known = scan_tree(folder, known_values=[("host", "node7")])
    assert ("state.json", 2, "host", "known") in {(f.file, f.line, f.cls, f.source) for f in known}


def test_a_finding_in_a_file_name_holding_a_newline_stays_one_line(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "node7.acme-corp.internal\nverified: all clean.log").write_text("ok\n")
    findings = scan_tree(tmp_path)
    assert findings and all("\n" not in str(f) and "\\n" in str(f) for f in findings), [str(f) for f in findings]
    assert all("node7" not in str(f) for f in findings)  # the private part is shown as its class
