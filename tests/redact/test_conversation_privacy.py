"""What a conversation holds stays out of what is published. The streamed answers re-sent as history,
the prompts' text and the session ids (sent in a header named like a credential, `Authorization`) are in no file
of the raw bundle, the redacted bundle or the built site; and that header's name is no secret to the redactor (the
build is not failed closed by it)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from evidence_kit.collect.conversations import session_id
from evidence_kit.read import load_trial
from evidence_kit.redact import redact_bundle
from tests.multiturn_trial import CONVERSATIONS, SESSION_HEADER

KEY = b"adversary-v10-key-0123456789abcdef"


def _texts(root: Path) -> dict[Path, str]:
    return {p: p.read_bytes().decode("utf-8", "replace") for p in sorted(root.rglob("*")) if p.is_file()}


def test_no_answer_prompt_or_session_id_reaches_the_bundle_or_the_site(multiturn_trial: Path, tmp_path: Path, run_cli) -> None:
    truth = [json.loads(line) for line in (multiturn_trial.parent.parent / "truth.jsonl").read_text().splitlines()]
    received = [t for t in truth if t.get("messages")]
    answers = {t["content"] for t in received if t.get("content")}
    prompts = {m["content"] for t in received for m in t["messages"] if m["role"] == "user"}
    headers = {t["headers"].get(SESSION_HEADER.lower()) for t in received} - {None}
    assert not headers  # only x- headers are in the ground truth: compute the ids the collector sent instead
    trial = load_trial(multiturn_trial)
    ids = {session_id(trial.trial.workload.seed or 0, run.run, c) for arm in trial.arms for run in arm.runs for c in range(CONVERSATIONS)}
    assert answers and prompts and len(ids) == 2 * CONVERSATIONS
    # Long enough pieces to be the answers' and prompts' own words, not a word any file may hold.
    needles = {a[:40] for a in answers if len(a) >= 40} | {p[-60:] for p in prompts} | ids
    assert len(needles) > len(ids)

    raw = tmp_path / "raw"
    shutil.copytree(multiturn_trial, raw / "chat")
    (raw / "decision.toml").write_text('id = "2026-12-02-chat"\ndate = "2026-12-02"\ntitle = "Chat"\ntrials = ["chat"]\n')
    redacted = redact_bundle(raw, tmp_path / "decision", key=KEY)
    assert redacted.publishable, [str(f) for f in redacted.findings]
    built = run_cli("build", tmp_path / "decision", "--out", tmp_path / "site")
    assert built.code == 0, built.err
    for root in (multiturn_trial, tmp_path / "decision", tmp_path / "site"):
        for path, text in _texts(root).items():
            found = [n for n in needles if n in text]
            assert not found, (path, found[:3])
    assert SESSION_HEADER in (tmp_path / "decision" / "chat" / "trial.json").read_text()  # the name is public


def test_the_per_turn_table_builds_the_same_bytes_and_verify_catches_its_rows_reordered(multiturn_trial: Path, tmp_path: Path, run_cli) -> None:
    raw = tmp_path / "raw"
    shutil.copytree(multiturn_trial, raw / "chat")
    (raw / "decision.toml").write_text('id = "2026-12-02-chat"\ndate = "2026-12-02"\ntitle = "Chat"\ntrials = ["chat"]\n')
    decision = redact_bundle(raw, tmp_path / "decision", key=KEY).out
    sites = [tmp_path / "one", tmp_path / "two"]
    for site in sites:
        assert run_cli("build", decision, "--out", site).code == 0
    one, two = (_texts(site / "public") for site in sites)
    assert [p.relative_to(sites[0]) for p in one] == [p.relative_to(sites[1]) for p in two]
    assert list(one.values()) == list(two.values())  # same evidence, same bytes
    public = sites[0] / "public"
    assert "PASS figures" in run_cli("verify", public).out
    html = public / "decisions" / "2026-12-02-chat" / "index.html"
    page = html.read_text()
    # Swap the turn numbers of turns 2 and 3 (their figures stay): a reader would read turn 2's times as turn 3's.
    rows = re.findall(r"<tr>\s*<td>~\d+/C2</td>\s*<td>([23])</td>", page)
    assert rows == ["2", "3"], rows
    swapped = re.sub(r"(<tr>\s*<td>~\d+/C2</td>\s*<td>)([23])(</td>)", lambda m: m.group(1) + {"2": "3", "3": "2"}[m.group(2)] + m.group(3), page)
    html.write_text(swapped)
    result = run_cli("verify", public)
    assert result.code == 1 and "FAIL figures" in result.out, result.out
