"""A private value's part spelled like a word of a run id (a folder ``c256`` of a private path) is left where the
evidence writes it as its own (a run id ``r1-8192-c256``, a group label ``~8K/C256``): replacing it there renamed
every run and the build then refused the site for holding it. Everywhere else it is hunted (it may name a node)."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.redact import known_values_from_raw, redact_bundle, scan_tree
from tests.redact import corpus
from tests.redact.conftest import KEY
from tests.redact.test_leak_classes import _texts, plant

PRIVATE = "/srv/bench-zeta/c256/rate2.0/r12/plan-zeta.toml"


def _runs(folder: Path) -> list[str]:
    return sorted(
        {
            json.loads(line)["run"]
            for path in sorted((folder / "journals").glob("*.jsonl"))
            for line in path.read_text().splitlines()
            if '"run"' in line and '"type":"run"' in line.replace(" ", "")
        }
    )


def test_a_private_folder_named_like_a_run_id_word_leaves_the_run_ids_alone(tmp_path: Path) -> None:
    raw = corpus.make_raw_trial(tmp_path / "raw")
    for journal in (raw / "journals").glob("*.jsonl"):  # the runs at C = 4 as if at 256: r1-8192-c256
        journal.write_text(journal.read_text().replace('-c4"', '-c256"'))
    raw = plant(raw, private={"plan_path": PRIVATE}, files={"logs/collect.log": f"plan {PRIVATE} loaded\n"})
    before = _runs(raw)
    assert any(run.endswith("-c256") for run in before)
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert _runs(result.out) == before
    out = _texts(result.out)
    assert PRIVATE not in out and "bench-zeta" not in out and "plan-zeta" not in out
    # The scan the site builder runs, with every raw value, finds nothing in the bundle, nor in a page naming
    # the group and the run as the site does.
    known = known_values_from_raw(raw)
    assert scan_tree(result.out, known_values=known) == []
    page = tmp_path / "page"
    page.mkdir()
    (page / "index.md").write_text("| ~8K/C256 | r1-8192-c256 | 8192/C256 |\n")
    assert scan_tree(page, known_values=known) == []
    (page / "index.md").write_text("ran on c256\n")  # the folder's name alone: it may be a node's
    assert scan_tree(page, known_values=known) != []
    (page / "index.md").write_text("the plan was /srv/bench-zeta/c256/rate2.0/r12/plan-zeta.toml\n")
    assert scan_tree(page, known_values=known) != []


def test_the_same_word_outside_a_run_id_is_still_hunted(tmp_path: Path) -> None:
    """A node named like a run id's word (c256 of c256.hpc.zeta-lab.internal) is still found alone in a log:
    only a whole component of a run id token is left."""
    raw = corpus.make_raw_trial(tmp_path / "raw")
    for journal in (raw / "journals").glob("*.jsonl"):
        journal.write_text(journal.read_text().replace('-c4"', '-c256"'))
    raw = plant(
        raw,
        private={"node": "c256.hpc.zeta-lab.internal", "plan_path": PRIVATE},
        files={"logs/ssh.log": "ssh c256 ok; c256: up; see /srv/x/c256 and c256-r1-8192, r1-8192-c256.c256\n"},
    )
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    log = (result.out / "logs" / "ssh.log").read_text()
    assert "c256" not in log, log
    assert any(run.endswith("-c256") for run in _runs(result.out))
