"""A node named like a load (``c256``) and a private path with a folder named for a run (``r1-8192-c4``):
the evidence's own names for runs, loads and groups are never hunted (the guard ``run-word``), so the
site, whose labels read ``~8K/C256``, builds; the node's whole name is still hunted, and pseudonymised in
its own field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.cli import main
from evidence_kit.redact import KnownValue, redact_bundle, scan_tree
from tests.redact import corpus
from tests.redact.conftest import KEY

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
        "| candidate | r1-8192-c256 | 8192/C256 | 4/4 | yes |\n",
    ],
)
def test_a_group_label_at_c256_is_no_finding_of_a_node_c256(tmp_path: Path, text: str) -> None:
    assert _findings(tmp_path, text) == []


@pytest.mark.parametrize("text", ["ssh c256.hpc.zeta-lab.internal ok\n", "on hpc.zeta-lab.internal\n"])
def test_the_nodes_whole_name_is_still_found(tmp_path: Path, text: str) -> None:
    assert _findings(tmp_path, text) == ["host"]


def _with_private(raw: Path, extra: dict[str, str]) -> None:
    for journal in sorted((raw / "journals").glob("*.jsonl")):
        lines = journal.read_text().splitlines(keepends=True)
        header = json.loads(lines[0])
        header["private"].update(extra)
        journal.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))


@pytest.mark.slow
def test_a_trial_at_c256_on_node_c256_redacts_and_builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = corpus.make_trial

    def at_256(trial_id: str = "cache-layout"):  # the corpus trial, its second load C = 256
        trial = plain(trial_id)
        return trial.model_copy(update={"workload": trial.workload.model_copy(update={"concurrency": [1, 256]})})

    monkeypatch.setattr(corpus, "make_trial", at_256)
    raw = corpus.make_raw_decision(tmp_path / "raw")
    for trial in ("cache-layout", "dflash"):
        _with_private(raw / trial, {"node": NODE})
        (raw / trial / "logs" / "ssh.log").write_text("ssh c256 ok\n")
    evidence, site, private = tmp_path / "evidence", tmp_path / "site", tmp_path / "private.json"
    assert main(["redact", str(raw), "--out", str(evidence), "--map", str(private)]) == 0
    assert main(["build", str(evidence), "--out", str(site), "--known-values", str(private)]) == 0
    assert b"~6K/C256" in (site / "public" / "search" / "search_index.json").read_bytes()  # the labels are shown
    assert not list(evidence.rglob("*.log"))  # raw text is withheld


@pytest.mark.parametrize("folder", ["r1-8192-c4", "R1-8192-C4"])
def test_a_private_path_with_a_folder_named_for_a_run_leaves_the_runs_alone(tmp_path: Path, folder: str) -> None:
    private = f"/scratch/zeta-lab/out/{folder}/trace.json"
    raw = corpus.make_raw_trial(tmp_path / "raw")
    _with_private(raw, {"trace_path": private})
    result = redact_bundle(raw, tmp_path / "out", key=KEY, map_out=tmp_path / "map.json")
    assert result.publishable, [str(f) for f in result.findings]
    runs = [json.loads(line)["run"] for line in (result.out / "journals/01-original-before.jsonl").read_text().splitlines() if '"type":"run"' in line]
    assert runs and all(run.startswith("r") and "path" not in run for run in runs)
    assert scan_tree(result.out, known_values=[KnownValue("path", private)]) == []
