"""The main job, end to end, as a user runs it: `evidence-kit demo` in a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.attest.keys import key_id, load_public_key
from evidence_kit.publish.safety import public_copies, scan_site
from evidence_kit.read import load_decision
from evidence_kit.redact import known_values_from_raw, scan_tree
from evidence_kit.redact.rules.guards import guard_of

from .redact.leakcheck import survivors
from .redact.nothing_lost import assert_nothing_lost


@pytest.mark.slow
def test_demo_collects_redacts_builds_and_verifies(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    proc = subprocess.run([sys.executable, "-m", "evidence_kit", "demo", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    assert "Traceback" not in proc.stderr
    for step in ("[1/5] collect", "[2/5] redact", "[3/5] analyze", "[4/5] build", "[5/5] verify"):
        assert step in proc.stderr
    # The decision tables, the verification and where to open the site.
    assert "[SIMULATED" in proc.stdout and "Material latency wins:" in proc.stdout
    assert f"verified: {out / 'site' / 'public'}" in proc.stdout
    assert f"evidence-kit serve {out / 'site'}" in proc.stdout

    raw = next((out / "raw").iterdir())
    evidence = next((out / "evidence").iterdir())
    site = out / "site"
    assert (site / "public" / "index.html").is_file() and (site / "public" / "manifest.dsse.json").is_file()

    # Every trial collected complete, reconciled and gated; the slot changes the profiles are for.
    analysis = analyze(load_decision(evidence))
    slots = {t.trial_id: t.slots.change_pct for t in analysis.trials}
    assert slots["cache-layout"] > 30 and slots["dflash"] < -30
    # The layout trial's six groups (two of them shared-prefix), the DFlash trial's four: all reconciled.
    planned = {"cache-layout": (216, 54), "dflash": (144, 36)}
    for trial in analysis.trials:
        requests, runs = planned[trial.trial_id]
        assert trial.simulated and trial.timed_ok == trial.timed_planned == requests
        assert trial.runs_reconciled == trial.runs_total == runs
        assert all(a.gates_total == a.gates_passed == 6 for a in trial.arms)
        assert all(all(a.checks.values()) for a in trial.arms)
        restored = trial.arms[2]
        assert restored.checks.get("identity-equality") is True
        # Telemetry was sampled in every arm, and each footer's summary is what its samples give.
        assert all(a.telemetry and a.telemetry.samples > 0 and a.telemetry.gpu == "absent" for a in trial.arms)
        assert "telemetry-mismatch" not in [f.kind for f in trial.findings]

    # The layout's extra KV slots keep more shared prefixes cached than either control, the difference
    # the unique-prompt groups cannot show (they hit only the instruction's whole blocks, alike in every arm).
    # (One at a time the margin is fixed by the pools; at C4 requests interleave, so it only has a sign.)
    layout = next(t for t in analysis.trials if t.trial_id == "cache-layout")
    margins = []
    for group in layout.groups:
        rates = {phase: hits.hit_rate_pct for phase, hits in (group.cache_hits or {}).items()}
        assert len(rates) == 3 and all(h.reporting == h.requests for h in group.cache_hits.values())
        if group.shared_prefix:
            margins.append(rates["candidate"] - max(rates["before"], rates["restored"]))
        else:
            assert rates["candidate"] == rates["before"] == rates["restored"] < 5
    assert len(margins) == 2 and min(margins) > 0 and max(margins) > 5
    assert "Prefix-cache hit rate" in proc.stdout
    assert "Prefix-cache hit rate" in next((site / "site" / "decisions").glob("*/index.md")).read_text()

    # Nothing public was lost: every number, timestamp, token count and date of the raw evidence is in the bundle.
    assert assert_nothing_lost(raw, evidence) > 10_000

    # Nothing private from the raw evidence reached the bundle or the site, in any spelling.
    known = known_values_from_raw(raw)
    assert len(known) > 5
    assert scan_tree(evidence, known_values=known) == []
    scan_site([site / "site", site / "public"], known, shown_as=site)  # raises on any finding
    # And independently of the redactor's code: a plain search for every raw value, escapes undone.
    # (Values a guard keeps out of the hunt -- ordinary words, short numbers, version strings -- are left out.)
    private = [k.value for k in known if guard_of(k.value) is None]
    assert len(private) > 10
    assert survivors(evidence, private) == []
    # Exact copies of third-party files (the Vega bundle, Material's theme) hold nothing of the evidence.
    copies = [f"{part}/{rel}" for part in ("site", "public") for rel in public_copies(site / part)]
    assert "public/assets/vega-bundle.js" in copies
    assert survivors(site, private, skip=copies) == []

    # The published analysis is what analyze recomputes from the published evidence.
    published = json.loads(next((site / "public").rglob("analysis.json")).read_text())
    assert published == analysis.model_dump(mode="json", by_alias=True)

    # An auditor with the public key verifies it again, as the demo says.
    key = out / "private" / "signing" / "signing.pub"
    again = subprocess.run(
        [sys.executable, "-m", "evidence_kit", "verify", str(site), "--key", str(key)], capture_output=True, text=True, timeout=300
    )
    assert again.returncode == 0, again.stdout
    # The demo pinned the key it generated, and prints its fingerprint for auditors to pin by id.
    kid = key_id(load_public_key(key))
    assert f"Signing key id (publish it): {kid}" in proc.stdout and "pinned with --key)" in proc.stdout
    by_id = subprocess.run([sys.executable, "-m", "evidence_kit", "verify", str(site), "--key-id", kid], capture_output=True, text=True, timeout=300)
    assert by_id.returncode == 0, by_id.stdout

    # Running it again replaces the earlier demo; a folder holding anything else is refused.
    other = tmp_path / "not-a-demo"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    refused = subprocess.run([sys.executable, "-m", "evidence_kit", "demo", "--out", str(other)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2 and (other / "keep.txt").read_text() == "mine"
    assert refused.stderr.count("\n") == 1
