"""Adversary v9: a node named like a load level (``c256`` of an HPC cluster's ``c001``…``c512``) in a trial at C = 256.

Session 8 left a known value's part spelled like a run id's component alone inside a run id (``r1-8192-c256``)
and hunted it everywhere else. The analysis names its groups with the same word (``~8K/C256``), and every page
of the site shows those labels: the site's leak scan, hunting the node's short name, refused the site built
from a bundle it had just redacted. A group label's load is now left as a run id's component is; the node's
name alone, and a token that only ends like a run id, are still found.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.cli import main
from evidence_kit.redact import KnownValue, redact_bundle, scan_tree
from tests.redact import corpus
from tests.redact.conftest import KEY
from tests.redact.test_leak_classes import plant

NODE = "c256.hpc.zeta-lab.internal"


def _findings(tmp_path: Path, text: str) -> list[str]:
    page = tmp_path / "page"
    page.mkdir(exist_ok=True)
    (page / "index.md").write_text(text)
    return [f.cls for f in scan_tree(page, known_values=[KnownValue("host", NODE)])]


@pytest.mark.parametrize(
    "text",
    [
        "| ~8K/C256 | r1-8192-c256 | 3.2 |\n",
        "Differences under 9.88% (~8K/C256) are not resolvable\n",
        '{"group": "~8K/C256", "run": "r1-8192-c256"}\n',
        "~512/C256, ~131K/C256.\n",
        "~?/C256\n",
        "| candidate | r1-8192-c256 | 8192/C256 | 4/4 | yes |\n",
        "dflash,~6K/C256,8192,\n",
    ],
)
def test_a_group_label_at_c256_is_no_finding_of_a_node_c256(tmp_path: Path, text: str) -> None:
    assert _findings(tmp_path, text) == []


@pytest.mark.parametrize(
    "text",
    [
        "ssh c256 ok\n",
        "8K/C256\n",
        "~8K/ C256\n",
        "~8K/r1/C256\n",
        "~8K/C256.7\n",
        "under 8192/c256/x\n",
        "rack 12/C256\n",
        "port 8192/c256 up\n",
        "~8K/c256\n",  # a label's load is in capitals, after 3 or more digits
        # Longer than the window the matcher looks back over: no run id, only a token that ends like one.
        "x.r1-" + "0" * 28 + "-c256\n",
        "r1-8192-c256-" + "0" * 40 + "\n",
    ],
)
def test_the_node_is_still_found_elsewhere(tmp_path: Path, text: str) -> None:
    assert _findings(tmp_path, text) == ["host"]


@pytest.mark.slow
def test_a_trial_at_c256_on_node_c256_redacts_and_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = corpus.make_trial

    def at_256(trial_id: str = "cache-layout"):  # the corpus trial, its second load C = 256
        trial = plain(trial_id)
        return trial.model_copy(update={"workload": trial.workload.model_copy(update={"concurrency": [1, 256]})})

    monkeypatch.setattr(corpus, "make_trial", at_256)
    raw = corpus.make_raw_decision(tmp_path / "raw")
    for trial in ("cache-layout", "dflash"):
        journal = raw / trial / "journals" / "01-original-before.jsonl"
        lines = journal.read_text().splitlines(keepends=True)
        header = json.loads(lines[0])
        header["private"]["node"] = NODE
        journal.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
        (raw / trial / "logs" / "ssh.log").write_text("ssh c256 ok\n")
    evidence, site, private = tmp_path / "evidence", tmp_path / "site", tmp_path / "private.json"
    assert main(["redact", str(raw), "--out", str(evidence), "--map", str(private)]) == 0
    assert main(["build", str(evidence), "--out", str(site), "--known-values", str(private)]) == 0
    assert b"~6K/C256" in (site / "public" / "search" / "search_index.json").read_bytes()  # the labels are shown
    for root in (evidence, site):
        for path in sorted(root.rglob("*.log")):
            assert "c256" not in path.read_text(), path


def _runs(folder: Path) -> list[str]:
    return sorted(
        {
            json.loads(line)["run"]
            for path in sorted((folder / "journals").glob("*.jsonl"))
            for line in path.read_text().splitlines()
            if '"type": "run"' in line
        }
    )


@pytest.mark.parametrize("folder", ["r1-8192-c4", "R1-8192-C4"])
def test_a_private_path_with_a_folder_named_for_a_run_does_not_rename_the_run(tmp_path: Path, folder: str) -> None:
    """Operators file a run's traces under its id (``/scratch/zeta/out/r1-8192-c4/trace.json``): the folder was
    hunted alone as the path's component, and the journals' run ``r1-8192-c4`` came out as ``path-…``, in a
    bundle the redactor called publishable."""
    private = f"/scratch/zeta-lab/out/{folder}/trace.json"
    raw = plant(corpus.make_raw_trial(tmp_path / "raw"), private={"trace_path": private}, files={"logs/collect.log": f"wrote {private}\n"})
    result = redact_bundle(raw, tmp_path / "out", key=KEY)
    assert result.publishable, [str(f) for f in result.findings]
    assert _runs(result.out) == _runs(raw)
    log = (result.out / "logs" / "collect.log").read_text()
    assert "zeta-lab" not in log and private not in log
