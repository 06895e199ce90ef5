"""A vllm bench serve file records no base URL, so the importer knows no host to pseudonymise; a failed
request's reason is the client's exception, and aiohttp's names the host bare when it has no dots
("Cannot connect to host gpubox7:8000 ssl:default [...]", a Kubernetes service "vllm-svc:8000" alike).
A bundle publishes a failed request's reason as its code (``refused``), never as written, so import ->
redact -> build publishes neither the machine's name nor its address."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.cli import main
from tests.importers.chain import run_import

SAMPLES = Path(__file__).resolve().parents[1] / "import_samples" / "vllm-bench"
ERROR = (
    "Traceback (most recent call last):\n  ...\naiohttp.client_exceptions.ClientConnectorError: Cannot connect "
    "to host gpubox7:8000 ssl:default [Connect call failed ('192.168.7.7', 8000)]\n"
)


def test_a_bare_host_in_an_imported_error_reaches_no_bundle_nor_site(tmp_path: Path) -> None:
    doc = json.loads((SAMPLES / "faults.json").read_text())
    failed = next(i for i, e in enumerate(doc["errors"]) if e)
    doc["errors"][failed] = ERROR
    cand = tmp_path / "candidate.json"
    cand.write_text(json.dumps(doc))
    files = {"before": [SAMPLES / "before.json"], "candidate": [cand], "restored": [SAMPLES / "restored.json"]}
    assert run_import(tmp_path, files) == 0
    evidence, site, private = tmp_path / "evidence", tmp_path / "site", tmp_path / "private.json"
    assert main(["redact", str(tmp_path / "raw"), "--out", str(evidence), "--map", str(private)]) == 0
    assert main(["build", str(evidence), "--out", str(site), "--known-values", str(private)]) == 0
    for root in (evidence, site):
        data = b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())
        assert b"gpubox7" not in data and b"192.168.7.7" not in data, root
    published = b"".join(p.read_bytes() for p in (evidence / "imported" / "journals").iterdir())
    assert b'"error":"refused"' in published and b"ClientConnectorError" not in published
