"""Median, nearest-rank and the bootstrap against brute force and their definitions."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from evidence_kit.analyze.stats import (
    SplitMix64,
    bootstrap_ratio_interval,
    change,
    median,
    nearest_rank,
    seed_for,
)

finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(st.lists(finite, min_size=1, max_size=60))
def test_median_splits_the_values_in_half(values: list[float]) -> None:
    m = median(values)
    below = sum(v < m for v in values)
    above = sum(v > m for v in values)
    assert below <= len(values) / 2 and above <= len(values) / 2
    ordered = sorted(values)
    if len(values) % 2 == 0:
        assert m == (ordered[len(values) // 2 - 1] + ordered[len(values) // 2]) / 2
    else:
        assert m == ordered[len(values) // 2]


@given(st.lists(finite, min_size=1, max_size=60), st.integers(min_value=1, max_value=100))
def test_nearest_rank_is_the_smallest_value_with_p_percent_at_or_below(values: list[float], p: int) -> None:
    got = nearest_rank(values, p)
    # Brute force from the definition, in exact arithmetic.
    candidates = [v for v in sorted(values) if Fraction(sum(x <= v for x in values), len(values)) >= Fraction(p, 100)]
    assert got == candidates[0]


def test_nearest_rank_known_values() -> None:
    assert nearest_rank([4, 1, 3, 2], 50) == 2  # rank ceil(2) = 2, not an interpolated 2.5
    assert nearest_rank([4, 1, 3, 2], 90) == 4
    assert nearest_rank(list(range(1, 101)), 99) == 99
    assert nearest_rank([], 50) is None and median([]) is None


def test_change_sign_convention() -> None:
    assert math.isclose(change(12.404, 11.355), 0.0923822, rel_tol=1e-6)  # slower: positive
    assert change(4.962, 5.807) < 0  # faster: negative
    assert change(1.0, 0) is None and change(None, 1.0) is None


def test_splitmix64_reference_sequence() -> None:
    # First outputs for seed 0 from the published SplitMix64 reference implementation.
    rng = SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]


def test_bootstrap_is_seeded_and_resolves_clear_differences() -> None:
    fast = [1.0 + 0.01 * i for i in range(12)]
    slow = [1.5 + 0.01 * i for i in range(12)]
    seed = seed_for("t", 1)
    first = bootstrap_ratio_interval(fast, slow, seed)
    assert first == bootstrap_ratio_interval(fast, slow, seed)
    assert first != bootstrap_ratio_interval(fast, slow, seed_for("t", 2))
    low, high = first
    assert high < 1  # a third faster with twelve samples each is resolvable
    same_low, same_high = bootstrap_ratio_interval(fast, list(reversed(fast)), seed)
    assert same_low <= 1 <= same_high
    assert bootstrap_ratio_interval([], slow, seed) is None
