"""A result file whose requests the journal contract refuses only once read back as a trial (send -> end times
that put more requests on the wire than the file's concurrency) is refused, exit 2; the one line must name the
file given, not the importer's temporary journal (deleted by then), and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.importers.chain import refused

SAMPLES = Path(__file__).resolve().parents[1] / "import_samples" / "vllm-bench"


@pytest.mark.parametrize("repetitions", [1, 2])
def test_too_many_in_flight_names_the_result_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], repetitions: int) -> None:
    doc = json.loads((SAMPLES / "candidate.json").read_text())
    doc["start_times"] = [0.0] * len(doc["start_times"])  # every request sent at once, at concurrency 2
    bad = tmp_path / "candidate-2.json"
    bad.write_text(json.dumps(doc))
    files = {"before": [SAMPLES / "before.json"], "candidate": [bad], "restored": [SAMPLES / "restored.json"]}
    if repetitions == 2:  # the damaged file is the second repetition's; the first is sound
        swap = tmp_path / "candidate-1.json"
        swap.write_text(json.dumps(json.loads((SAMPLES / "candidate.json").read_text()), indent=1))
        files = {
            "before": [SAMPLES / "before.json", SAMPLES / "faults.json"],
            "candidate": [swap, bad],
            "restored": [SAMPLES / "restored.json", tmp_path / "restored-2.json"],
        }
        (tmp_path / "restored-2.json").write_text(json.dumps(json.loads((SAMPLES / "restored.json").read_text()), indent=2))
    err = refused(tmp_path, capsys, bad, files)
    assert ".raw." not in err and "on the wire" in err
    if repetitions == 2:
        assert str(tmp_path / "candidate-1.json") not in err
