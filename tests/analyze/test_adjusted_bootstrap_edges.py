"""The adjusted two-stage bootstrap on degenerate inputs: a resampled control statistic below zero (the
rescaled values can fall below zero) gave an interval reaching below -100 %; values near 1e308 raised
OverflowError in fsum; tiny values squared to zero and gave a zero-width interval from spread data, or a
ZeroDivisionError; the scale now never changes the interval."""

from __future__ import annotations

import pytest

from evidence_kit.analyze import stats
from evidence_kit.analyze.stats import bootstrap_ratio_interval


def test_negative_resampled_control_is_not_estimable() -> None:
    assert bootstrap_ratio_interval([[5, 5, 5], [5, 5, 6]], [[0.1, 0.1, 0.1], [10, 10, 10]], 1) is None
    assert bootstrap_ratio_interval([[0.1, 0.1, 0.1], [10, 10, 10]], [[5, 5, 5], [5, 5, 6]], 1) is None


@pytest.mark.parametrize("scale", [2.0**-1000, 1e-300, 1e-160, 1e300, 2.0**1000])
def test_interval_does_not_depend_on_the_scale(scale: float) -> None:
    cand, ctrl = [[10, 12], [11, 14]], [[10, 11], [13, 10]]
    plain = bootstrap_ratio_interval(cand, ctrl, 1)
    scaled = bootstrap_ratio_interval([[v * scale for v in r] for r in cand], [[v * scale for v in r] for r in ctrl], 1)
    assert plain is not None and plain[0] < plain[1]
    assert scaled == pytest.approx(plain, rel=1e-12)


def test_huge_values_do_not_crash() -> None:
    result = bootstrap_ratio_interval([[1e308, 1e308], [1e308, 1e308]], [[1e308, 1e308], [1e308, 1.1e308]], 1)
    assert result is None or all(v == v for v in result)


@pytest.mark.parametrize("x", [3.2e-162, 4e-162])
def test_subnormal_squares_do_not_crash(x: float) -> None:
    bootstrap_ratio_interval([[1, 2], [3, 4]], [[0, x], [0, 0]], 1)


def test_components_bit_identical_to_unscaled_on_ordinary_data() -> None:
    runs = [[0.1234, 0.2, 0.37], [0.5, 0.61], [0.05, 0.07, 0.09, 0.11]]
    centre, effects, residuals = stats._adjusted_components(runs)
    doubled = stats._adjusted_components([[v * 2 for v in r] for r in runs])
    assert doubled == (centre * 2, [e * 2 for e in effects], [r * 2 for r in residuals])
