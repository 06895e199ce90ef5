"""Times the contract allows (finite, at least 0) up to the largest float: the median of an even count added its two
middle values before halving, so two values above 9e307 s made a pooled median of ``inf``, written as null in
``analysis.json`` while the terminal's table printed ``inf``; the candidate was then "100% faster" (ratio 0.0,
p-value 0) than a control whose median was lost, and the verdict said its point estimates cleared the threshold.
``power`` on the same pilot died with a traceback (``OverflowError`` summing a run's values). Adversary adv24,
statistics v4 (issue 24, threat 6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evidence_kit.analyze.stats import median
from tests.analyze.bundle import write_bundle, write_decision

RULE = {"min_improvement": 0.1, "statistics": 4}


def _spread(value: float, runs: int = 3, requests: int = 4) -> dict[tuple[int, int], list[list[float]]]:
    """Runs and requests that differ (a few tenths of a percent), all scaled by ``value``."""
    return {(8192, 1): [[value * (1 + 0.004 * r + 0.001 * i + 0.0007 * r * i) for i in range(requests)] for r in range(runs)]}


def _refuse(constant: str) -> None:
    raise ValueError(f"not JSON: {constant}")


def test_the_median_of_two_values_near_the_largest_float_is_finite() -> None:
    assert median([1.7e308, 1.7e308]) == 1.7e308
    assert median([1.0e308, 1.2e308]) == pytest.approx(1.1e308)
    # Below the limit nothing moves: the same bits as the sum halved, subnormals included.
    assert median([5e-324, 5e-324]) == 5e-324
    assert median([1.0, 2.0, 3.0, 4.0]) == 2.5


@pytest.mark.parametrize("scale", [1.0e308, 1.6e308])
def test_a_v4_trial_of_times_near_the_float_limit_is_judged_on_its_figures(run_cli, tmp_path: Path, scale: float) -> None:
    # The candidate 5 % *slower* than both controls: no improvement, let alone one past the threshold.
    design = "ABABA"
    arms = [_spread(scale / 1.05) if letter == "A" else _spread(scale) for letter in design]
    write_bundle(tmp_path, "t", design, arms, rule=RULE)
    write_decision(tmp_path, ["t"])
    result = run_cli("analyze", "--json", tmp_path)
    assert result.code == 0 and result.err == ""
    group = json.loads(result.out, parse_constant=_refuse)["trials"][0]["groups"][0]
    assert all(group["pooled"]["e2e_s"][phase]["median"] is not None for phase in ("before", "candidate", "restored"))
    corrected = next(i for i in group["intervals"] if i["control"] == "corrected")
    assert corrected["ratio"] == pytest.approx(1.05, rel=1e-3)
    assert not group["verdict"]["point_win"] and group["verdict"]["verdict"] != "likely"
    text = run_cli("analyze", tmp_path)
    assert text.code == 0 and " inf " not in text.out


def test_power_on_a_pilot_of_times_near_the_float_limit_plans_without_a_traceback(run_cli, tmp_path: Path) -> None:
    design = "ABABA"
    write_bundle(tmp_path, "t", design, [_spread(1.0e308 if letter == "A" else 0.8e308) for letter in design], rule=RULE)
    result = run_cli("power", tmp_path / "t")
    assert result.code == 0, result.err
    assert "Traceback" not in result.err and "request-to-request" in result.out
