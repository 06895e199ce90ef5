"""`evidence-kit power` on a multi-turn pilot. Before this session it planned "N repetitions of 2
requests" for runs of 2 conversations of 3 turns (6 requests), from a request-to-request spread made mostly of
the turns' systematic differences (turn 3 re-sends two answers' history), and its own model at the pilot's shape
disagreed with the analysis by a factor (48% against 105% on a 4 x 4 pilot): advice in the wrong unit. It is now
refused, one line, exit 2."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.analyze.power import power_trial
from evidence_kit.read import load_trial


def test_power_refuses_a_multiturn_pilot_with_one_line(multiturn_trial: Path, run_cli) -> None:
    result = run_cli("power", multiturn_trial)
    assert result.code == 2 and result.out == "", result
    assert result.err.strip().count("\n") == 0 and "Traceback" not in result.err
    assert str(multiturn_trial) in result.err and "is multi-turn (2 conversations of 3 turns a run)" in result.err
    with pytest.raises(ValueError, match="multi-turn"):
        power_trial(load_trial(multiturn_trial), 0.1)
