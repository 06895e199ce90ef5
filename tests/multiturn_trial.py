"""Shared multi-turn evidence: one real multi-turn trial collected from `evidence-kit sim` over HTTP (two
conversations of three turns per run, one request in five failing on the candidate so some conversations end
early), collected once per test session and copied by each test that forges it."""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from evidence_kit.collect import collect_trial
from tests.collect.conftest import sim_arm, write_plan

TURNS, CONVERSATIONS = 3, 2
SESSION_HEADER = "Authorization"
Record = dict[str, Any]


@pytest.fixture(scope="session")
def multiturn_trial(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("adv10")
    # The original arm's engine writes what it received and answered (its ground truth, with bodies): what the
    # privacy test looks for in the bundle and the site. The session header is named like a credential.
    truth = root / "truth.jsonl"
    arms = {
        "original": sim_arm("original", time_scale=100, extra=f"--ground-truth {shlex.quote(str(truth))} --ground-truth-bodies"),
        "layout": sim_arm("layout-candidate", time_scale=100, extra="--fault http-500=0.2", label="Layout"),
    }
    plan = write_plan(
        root / "plan.toml",
        trial_id="chat",
        arms=arms,
        gates=[],
        workload={
            "concurrency": [2],
            "repetitions": 2,
            "requests_per_run": CONVERSATIONS,
            "max_tokens": 8,
            "turns": TURNS,
            "session_header": SESSION_HEADER,
            "warmup_requests": 0,
        },
    )
    collect_trial(plan, root / "raw" / "chat")
    return root / "raw" / "chat"


def journals(bundle: Path) -> list[Path]:
    return sorted((bundle / "journals").glob("*.jsonl"))


def forge(bundle: Path, out: Path, edit: Callable[[list[Record]], list[Record]], journal: int = 0) -> Path:
    """A copy of ``bundle`` whose ``journal``-th journal's records went through ``edit``, its run records' and
    footer's counts made to agree again (as a forger would)."""
    shutil.copytree(bundle, out)
    path = journals(out)[journal]
    records = edit([json.loads(line) for line in path.read_text().splitlines()])
    timed = [r for r in records if r["type"] == "request" and not r["warmup"]]
    for r in records:
        if r["type"] == "run":
            mine = [q for q in timed if q["run"] == r["run"]]
            r["requests"], r["ok"] = len(mine), sum(q["ok"] for q in mine)
        if r["type"] == "footer":
            r["requests"] = sum(1 for q in records if q["type"] == "request")
            r["timed_requests"] = len(timed)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out
