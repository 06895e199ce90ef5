"""Failed timed requests must block a promotion even when a run holds more requests than the plan has:
before, ``timed_ok >= timed_planned`` summed over the arms was the test, so a run with its planned number of
ok requests plus failed extras (or one arm's extra ok requests against another's failures) promoted with
failures on record ("48/48 ... 2 failed requests")."""

from __future__ import annotations

import json
from pathlib import Path

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from tests.analyze.bundle import G, flat, write_bundle


def test_extra_failed_requests_in_a_run_are_refused_or_block(run_cli, tmp_path: Path) -> None:
    # Every planned request of the candidate ok, plus two failed ones in its first run (6 > requests_per_run 4).
    candidate = flat(1.7)
    candidate[G][0] = [1.7] * 4 + [None, None]
    bundle = write_bundle(tmp_path, "t", "ABA", [flat(2.0), candidate, flat(2.0)], requests_per_run=4)
    result = run_cli("analyze", bundle)
    if result.code == 0:
        trial = analyze(load_trial(bundle)).trials[0]
        assert trial.timed_failed == 2
        assert trial.outcome == "no-promotion", "promoted with failed timed requests on record"
    else:
        assert result.code == 2 and len(result.err.strip().splitlines()) == 1
        assert "candidate.jsonl" in result.err


def test_a_second_run_of_one_repetition_and_group_is_refused(run_cli, tmp_path: Path) -> None:
    # The restored arm runs repetition 1 twice under two run ids: 16 timed requests where 12 are planned,
    # so 4 failures in the before arm would be hidden by the sum.
    bundle = write_bundle(tmp_path, "t", "ABA", [flat(2.0), flat(1.7), flat(2.0)])
    journal = bundle / "journals" / "03-original-restored.jsonl"
    lines = [json.loads(x) for x in journal.read_text().splitlines()]
    footer = lines.pop()
    extra = [dict(x, run="r1-again") for x in lines if x.get("run") == "r1-8192-c1"]
    footer.update(requests=footer["requests"] + 4, timed_requests=footer["timed_requests"] + 4)
    journal.write_text("".join(json.dumps(x) + "\n" for x in [*lines, *extra, footer]))
    result = run_cli("analyze", bundle)
    assert result.code == 2 and len(result.err.strip().splitlines()) == 1, result.out[:200]
    assert "restored.jsonl:" in result.err
