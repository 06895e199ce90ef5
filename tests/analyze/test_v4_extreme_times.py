"""Statistics v4 on journal times the contract allows (finite, at least 0) however small or large: a launch-level
interval squared each block's statistic, so a control of 1e-200 s divided by an underflowed 0 and ``analyze``
died with a traceback (ZeroDivisionError), and one of 1e200 s overflowed to an interval of NaN (adv24)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.analyze.bundle import write_bundle, write_decision


def _spread(value: float, runs: int = 3, requests: int = 4) -> dict[tuple[int, int], list[list[float]]]:
    """Runs and requests that differ (a few percent), all scaled by ``value``."""
    return {(8192, 1): [[value * (1 + 0.03 * r + 0.01 * i) for i in range(requests)] for r in range(runs)]}


def _refuse(constant: str) -> None:
    raise ValueError(f"not JSON: {constant}")


@pytest.mark.parametrize("scale", [1e-200, 1e200])
def test_a_v4_trial_of_extreme_times_analyses_to_json_without_a_traceback(run_cli, tmp_path: Path, scale: float) -> None:
    write_bundle(
        tmp_path, "t", "ABA", [_spread(2 * scale), _spread(1.5 * scale), _spread(2.04 * scale)], rule={"min_improvement": 0.1, "statistics": 4}
    )
    write_decision(tmp_path, ["t"])
    result = run_cli("analyze", "--json", tmp_path)
    assert result.code == 0 and result.err == ""
    doc = json.loads(result.out, parse_constant=_refuse)
    interval = doc["trials"][0]["groups"][0]["intervals"][0]
    assert interval["ratio"] == pytest.approx(0.75, rel=0.02)
    assert interval["low"] is None or interval["low"] <= 0.75 <= interval["high"]
