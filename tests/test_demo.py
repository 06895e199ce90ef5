"""The main job, end to end, as a user runs it: `evidence-kit demo` in a real process, from a checkout and a venv
whose paths hold spaces and a non-ASCII letter, in a shell with no venv activated; then the commands it ends
with, pasted as printed into a fresh shell."""

from __future__ import annotations

import json
import shlex
import subprocess
from pathlib import Path

import httpx
import pytest

from evidence_kit import demo as demo_module
from evidence_kit.analyze import analyze
from evidence_kit.attest.keys import key_id, load_public_key
from evidence_kit.errors import CheckFailed
from evidence_kit.publish.safety import public_copies, scan_site
from evidence_kit.read import load_decision
from evidence_kit.redact import known_values_from_raw, scan_tree
from evidence_kit.redact.rules.guards import guard_of

from .collect.conftest import sim_arm, write_plan
from .printed import fresh_env, run_printed, served_printed
from .redact.leakcheck import survivors
from .redact.nothing_lost import assert_nothing_lost
from .spaced_checkout import spaced_checkout


@pytest.mark.slow
@pytest.mark.timeout(900)  # the demo (about 2 minutes), then two verifications with a site rebuild each
def test_demo_collects_redacts_builds_and_verifies_from_a_path_with_spaces(tmp_path: Path) -> None:
    # `{python}` in the plans' start commands is this checkout's venv, `…/my projects/evidence kit ü/.venv/bin/python`:
    # pasted into /bin/sh unquoted it was `/bin/sh: 1: …/my: not found` in every arm, and the demo a traceback.
    checkout, venv = spaced_checkout(tmp_path)
    out = checkout / "out" / "demo"
    script = venv / "bin" / "evidence-kit"
    proc = subprocess.run([str(script), "demo", "--out", str(out)], capture_output=True, text=True, timeout=900, env=fresh_env(), cwd=checkout)
    assert proc.returncode == 0, proc.stderr[-3000:] + proc.stdout[-3000:]
    assert "Traceback" not in proc.stderr
    for step in ("[1/5] collect", "[2/5] redact", "[3/5] analyze", "[4/5] build", "[5/5] verify"):
        assert step in proc.stderr
    # The decision tables, the verification and where to open the site.
    assert "[SIMULATED" in proc.stdout and "Material latency wins:" in proc.stdout
    assert f"verified: {out / 'site' / 'public'}" in proc.stdout
    # It ends with the commands to open and verify the site, each one line a fresh shell runs as printed.
    *_, open_it, serve, verify_it, by_key, by_id = proc.stdout.rstrip("\n").splitlines()
    assert open_it.startswith("Open the site") and verify_it.startswith("Verify it again")
    assert shlex.split(serve) == [str(script), "serve", str(out / "site")]

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

    # The site answers on 127.0.0.1 when served as the demo says, from a fresh shell.
    with served_printed(serve.strip()) as base:
        index = httpx.get(base, timeout=30)
        assert index.status_code == 200 and "Simulated cache-layout and DFlash scouts" in index.text
    # An auditor with the public key verifies it again, as the demo says, and so does one with its key id.
    key = out / "private" / "signing" / "signing.pub"
    assert shlex.split(by_key)[1:] == ["verify", str(site), "--key", str(key)]
    again = run_printed(by_key.strip())
    assert again.returncode == 0, again.stdout + again.stderr
    # The demo pinned the key it generated, and prints its fingerprint for auditors to pin by id.
    kid = key_id(load_public_key(key))
    assert f"Signing key id (publish it): {kid}" in proc.stdout and "pinned with --key)" in proc.stdout
    assert shlex.split(by_id)[1:] == ["verify", str(site), "--key-id", kid]
    again_by_id = run_printed(by_id.strip())
    assert again_by_id.returncode == 0, again_by_id.stdout + again_by_id.stderr

    # Running it again replaces the earlier demo; a folder holding anything else is refused.
    other = tmp_path / "not-a-demo"
    other.mkdir()
    (other / "keep.txt").write_text("mine")
    refused = subprocess.run([str(script), "demo", "--out", str(other)], capture_output=True, text=True, timeout=60, env=fresh_env())
    assert refused.returncode == 2 and (other / "keep.txt").read_text() == "mine"
    assert refused.stderr.count("\n") == 1


def test_a_demo_trial_that_could_not_run_stops_the_demo_saying_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first trial's engines cannot start (status 127): nothing of it is analysed or published, and the
    # reason is on the screen, not only in logs/.
    plans = tmp_path / "plans"
    plans.mkdir()
    broken = {"start": "exec no-such-engine --port {port}"}
    write_plan(plans / "broken.toml", arms={"original": {**sim_arm("original"), **broken}, "layout": {**sim_arm("layout-candidate"), **broken}})
    monkeypatch.setattr(demo_module, "PLANS", plans)
    monkeypatch.setattr(demo_module, "TRIALS", (("cache-layout", "broken.toml"),))
    said: list[str] = []
    with pytest.raises(CheckFailed) as failed:
        demo_module.run_demo(tmp_path / "demo", say=said.append)
    assert "the cache-layout trial did not run (before arm: check ready failed: start command exited with status 127" in str(failed.value)
    assert "  its engine's log, last lines (" in "\n".join(said) and any("no-such-engine: not found" in line for line in said)
    assert not (tmp_path / "demo" / "evidence").exists() and not (tmp_path / "demo" / "site").exists()
