"""AIPerf's records name no model, so an import's header has nothing private for the redactor; a failed
request's server message can still name it (vLLM's 404: "The model `org/name` does not exist."). That
message must not reach the evidence or the site: import -> redact -> build, then the published bytes are
searched for it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.cli import main
from tests.importers.chain import run_import

SAMPLES = Path(__file__).resolve().parents[1] / "import_samples" / "aiperf"
MODEL = "acme-internal/falcon-ultra-70b"


def _with_message(tmp_path: Path, message: str) -> Path:
    lines, done = [], False
    for text in (SAMPLES / "faults.jsonl").read_text().splitlines():
        rec = json.loads(text)
        if rec.get("error") is not None and not done:
            rec["error"]["message"] = message
            done = True
        lines.append(json.dumps(rec))
    assert done, "the faults sample holds a failed record"
    bad = tmp_path / "candidate.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    return bad


def _published(root: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())


def test_a_server_message_naming_the_model_reaches_no_bundle_nor_site(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    message = json.dumps({"object": "error", "message": f"The model `{MODEL}` does not exist.", "type": "NotFoundError", "param": None, "code": 404})
    cand = _with_message(tmp_path, message)
    files = {"before": [SAMPLES / "before.jsonl"], "candidate": [cand], "restored": [SAMPLES / "restored.jsonl"]}
    assert run_import(tmp_path, files) == 0
    evidence, site, private = tmp_path / "evidence", tmp_path / "site", tmp_path / "private.json"
    assert main(["redact", str(tmp_path / "raw"), "--out", str(evidence), "--map", str(private)]) == 0
    assert main(["build", str(evidence), "--out", str(site), "--known-values", str(private)]) == 0
    for root in (evidence, site):
        data = _published(root).lower()
        for secret in ("acme-internal", "falcon-ultra"):
            assert secret.encode() not in data, (root, secret)
    # The failure is still journalled as one, with its status.
    journal = (tmp_path / "raw").rglob("*candidate*.jsonl")
    failed = [json.loads(t) for p in journal for t in p.read_text().splitlines() if '"ok":false' in t]
    assert failed and all(r["error"].startswith("HTTP ") for r in failed)
