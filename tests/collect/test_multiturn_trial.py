"""A multi-turn trial end to end on the simulator over real HTTP: conversations of three turns whose
histories the engine's prefix cache serves, every run reconciled, redacted, built, signed and verified, and a
hand-edited per-turn figure caught by verify (issue 15's "a multi-turn trial reconciles, publishes and
verifies")."""

from __future__ import annotations

import json
import re
import shutil
import statistics
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.collect import collect_trial
from evidence_kit.read import load_decision, load_trial
from evidence_kit.redact import redact_bundle

from .conftest import sim_arm, write_plan

pytestmark = pytest.mark.slow

DECISION = "2026-12-26-multi-turn"
TURNS, CONVERSATIONS = 3, 2


def test_a_multiturn_trial_reconciles_publishes_and_verifies(tmp_path: Path, run_cli) -> None:
    caching = "--prefix-caching"
    arms = {"original": sim_arm("original", extra=caching, label="Original"), "layout": sim_arm("layout-candidate", extra=caching, label="Layout")}
    plan = write_plan(
        tmp_path / "plan.toml",
        trial_id="chat",
        arms=arms,
        workload={
            "concurrency": [2],
            "repetitions": 2,
            "requests_per_run": CONVERSATIONS,
            "max_tokens": 24,
            "turns": TURNS,
            "session_header": "X-Session-Id",
        },
    )
    raw = tmp_path / "raw"
    result = collect_trial(plan, raw / "chat")
    assert result.ok, result.problems
    evidence = load_trial(raw / "chat")
    assert evidence.trial.workload.turns == TURNS
    keys = []
    for arm in evidence.arms:
        assert len(arm.runs) == 2 and all(run.reconciled is True for run in arm.runs)  # every turn counted
        assert all(run.requests == run.ok == CONVERSATIONS * TURNS for run in arm.runs)
        timed = arm.timed
        assert [(r.conversation, r.turn) for r in timed if r.run == arm.runs[0].run] == [
            (c, t) for c in range(CONVERSATIONS) for t in range(1, TURNS + 1)
        ]
        keys.append([r.key for r in timed])
        for r in timed:  # each later turn's prompt holds its history, which the fresh engine cached in this arm
            if r.turn > 1:
                earlier = next(q for q in timed if q.run == r.run and q.conversation == r.conversation and q.turn == r.turn - 1)
                assert r.prompt_tokens > earlier.prompt_tokens + earlier.completion_tokens
                assert r.cached_tokens >= earlier.prompt_tokens // 2
        check = next(c for c in arm.checks if c.name == "prefix-cache")
        assert check.ok and "conversation turn(s) hit the cache beyond their history" in check.detail
    assert keys[0] == keys[1] == keys[2]  # the same conversations in every arm
    # ... and, the simulated engines answering alike, the same histories: every turn's prompt is as long.
    lengths = [[r.prompt_tokens for r in arm.timed] for arm in evidence.arms]
    assert lengths[0] == lengths[1] == lengths[2]
    assert "r1-256-c2/1/turn3" in keys[0]

    trial = analyze(evidence).trials[0]
    group = trial.groups[0]
    assert trial.timed_planned == trial.timed_ok == 3 * 2 * CONVERSATIONS * TURNS
    assert group.turns is not None and [t.turn for t in group.turns] == [1, 2, 3]
    for turn in group.turns:  # each per-turn figure is the median of that turn's requests, by hand
        for phase, arm in (("before", 0), ("candidate", 1), ("restored", 2)):
            ttfts = [r.ttft_s for r in evidence.arms[arm].timed if r.turn == turn.turn]
            assert turn.pooled["ttft_s"][phase].median == statistics.median(ttfts)
            assert turn.pooled["ttft_s"][phase].n == 2 * CONVERSATIONS
    rates = [t.cache_hits["before"].hit_rate_pct for t in group.turns]
    assert rates[0] < 20 < rates[1] and rates[2] > 50  # history re-sent: the cache serves the later turns
    # The group is labelled by its conversations' first prompts; the rule judges every turn pooled.
    assert group.input_tokens_max == group.turns[0].input_tokens_max < group.turns[2].input_tokens_min
    assert group.pooled["e2e_s"]["before"].n == 2 * CONVERSATIONS * TURNS

    (raw / "decision.toml").write_text(f'id = "{DECISION}"\ndate = "2026-12-26"\ntitle = "Multi-turn on the simulator"\ntrials = ["chat"]\n')
    redacted = redact_bundle(raw, tmp_path / "decision", key=b"multi-turn-test-key-0123456789abc").out
    assert load_decision(redacted).trials[0].arms[0].timed[5].turn == 3
    assert run_cli("keygen", "--out", tmp_path / "keys").code == 0
    site = tmp_path / "site"
    built = run_cli("build", redacted, "--out", site, "--sign", tmp_path / "keys" / "signing.key")
    assert built.code == 0, built.err
    page = (site / "site" / "decisions" / DECISION / "index.md").read_text()
    assert "Per turn: each conversation's turn k+1 re-sends" in page and "Simulated: these times" in page
    assert "conversations of 3 turns" in page and "(groups marked history)" in page
    assert "Prefix-cache hit rate before / candidate / restored" in page
    public = site / "public"
    key = ["--key", tmp_path / "keys" / "signing.pub"]
    ok = run_cli("verify", public, *key)
    assert ok.code == 0, ok.out

    html = public / "decisions" / DECISION / "index.html"
    original = html.read_text()
    row = re.search(r"<td>~\d+/C2</td>\s*<td>3</td>\s*<td>[^<]*</td>\s*<td>([0-9.]+)</td>", original)
    assert row, "no per-turn row for turn 3 on the page"
    edited = original[: row.start(1)] + "0.000001" + original[row.end(1) :]
    html.write_text(edited)
    bad = run_cli("verify", public, *key)  # the recomputation catches it, not only the signature
    assert bad.code == 1 and f"published 0.000001, recomputed {row.group(1)}" in bad.out, bad.out
    html.write_text(original)

    path = public / "decisions" / DECISION / "analysis.json"
    doc = json.loads(path.read_text())
    doc["trials"][0]["groups"][0]["turns"][2]["pooled"]["ttft_s"]["candidate"]["median"] *= 0.5
    path.write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    bad = run_cli("verify", public, *key)
    assert bad.code == 1 and "trials[0].groups[0].turns[2].pooled.ttft_s.candidate.median: published" in bad.out, bad.out
    shutil.rmtree(site)
