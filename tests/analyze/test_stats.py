"""Median, nearest-rank and the bootstrap against brute force and their definitions."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from evidence_kit.analyze.stats import (
    Z_LEVEL,
    Z_POWER,
    SplitMix64,
    _nearest_rank_of,
    bootstrap_ratio_interval,
    bootstrap_ratios,
    change,
    detectable_change,
    median,
    nearest_rank,
    seed_for,
    splitmix64_block,
    statistic,
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
    fast = [[1.0 + 0.01 * i for i in range(4)], [1.04 + 0.01 * i for i in range(4)], [1.08 + 0.01 * i for i in range(4)]]
    slow = [[v + 0.5 for v in run] for run in fast]
    seed = seed_for("t", 1)
    for method in ("run-t", "run", "run-plain", "request"):
        first = bootstrap_ratio_interval(fast, slow, seed, method=method)
        assert first == bootstrap_ratio_interval(fast, slow, seed, method=method)
        assert first != bootstrap_ratio_interval(fast, slow, seed_for("t", 2), method=method)
        low, high = first
        assert high < 1  # a third faster with twelve samples each is resolvable
        same_low, same_high = bootstrap_ratio_interval(fast, list(reversed(fast)), seed, method=method)
        assert same_low <= 1 <= same_high
        assert bootstrap_ratio_interval([], slow, seed, method=method) is None
        assert bootstrap_ratio_interval([[]], slow, seed, method=method) is None


def test_splitmix64_block_is_the_generator_one_by_one() -> None:
    for seed in (0, 1, 2**64 - 1, seed_for("x")):
        rng = SplitMix64(seed)
        assert [int(z) for z in splitmix64_block(seed, 50)] == [rng.next() for _ in range(50)]


def test_splitmix64_block_is_the_generator_across_its_scratch_blocks() -> None:
    # Mixed 16384 outputs at a time: every block boundary, and a start inside one, gives the same sequence.
    rng = SplitMix64(seed_for("y"))
    expected = [rng.next() for _ in range(40_000)]
    assert splitmix64_block(seed_for("y"), 40_000).tolist() == expected
    assert splitmix64_block(seed_for("y"), 20_000, 16_000).tolist() == expected[16_000:36_000]
    assert splitmix64_block(seed_for("y"), 0).tolist() == []


@given(st.lists(st.sampled_from([0.0, -0.0, 1.0, -1.0, 2.5, math.inf, -math.inf, math.nan]), min_size=1, max_size=40), st.floats(0.5, 100))
def test_the_nearest_rank_of_an_array_is_the_element_the_list_gives(values: list[float], p: float) -> None:
    # Bit for bit: the sign of a zero (numpy's stable sort keeps equal values in order, as sorted does) and NaN.
    got, expected = _nearest_rank_of(np.array(values), p), nearest_rank(values, p)
    assert struct.pack("<d", got) == struct.pack("<d", expected)


def _reference_adjusted(runs):
    """The adjusted bootstrap's centre, rescaled effects and residuals, from their definitions, scalar."""
    k = len(runs)
    n_total = sum(len(r) for r in runs)
    means = [math.fsum(r) / len(r) for r in runs]
    centre = math.fsum(means) / k
    effects = [m - centre for m in means]
    residuals = [x - m for r, m in zip(runs, means) for x in r]
    ss_e, ss_r = math.fsum(e * e for e in effects), math.fsum(x * x for x in residuals)
    s_w = ss_r / (n_total - k) if n_total > k else 0.0
    s_b = max(0.0, ss_e / (k - 1) - s_w / (k / math.fsum(1 / len(r) for r in runs))) if k > 1 else 0.0
    e_factor = math.sqrt(s_b / (ss_e / k)) if ss_e and s_b else 0.0
    r_factor = math.sqrt(s_w / (ss_r / n_total)) if ss_r and s_w else 0.0
    return centre, [e * e_factor for e in effects], [x * r_factor for x in residuals]


def _reference_ratios(cand_runs, ctrl_runs, seed, method, stat, resamples):
    """The documented draw layout, one number at a time with the scalar generator."""
    of = statistic(stat)

    def arm(rng, runs):
        runs = [r for r in runs if r]
        if method == "request":
            runs = [[v for r in runs for v in r]]
        width = max(len(r) for r in runs)
        chosen = [rng.below(len(runs)) for _ in runs] if method != "request" else [0]
        out = []
        if method == "run":
            centre, effects, residuals = _reference_adjusted(runs)
            for slot in chosen:
                picks = [rng.below(len(residuals)) for _ in range(width)]
                out += [(centre + effects[slot]) + residuals[j] for j in picks[: len(runs[slot])]]
            return out
        for slot in chosen:
            run = runs[slot]
            picks = [rng.below(len(run)) for _ in range(width)]
            out += [run[i] for i in picks[: len(run)]]
        return out

    rng = SplitMix64(seed)
    ratios = []
    for _ in range(resamples):
        c = of(arm(rng, cand_runs))
        k = of(arm(rng, ctrl_runs))
        ratios.append(None if k <= 0 or c < 0 else c / k)  # rescaled values can fall below zero
    return None if None in ratios else ratios


runs_strategy = st.lists(st.lists(st.floats(min_value=0.01, max_value=100, allow_nan=False), min_size=1, max_size=7), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(
    runs_strategy,
    runs_strategy,
    st.integers(min_value=0, max_value=2**64 - 1),
    st.sampled_from(["run", "run-plain", "request"]),
    st.sampled_from(["median", "p90", "p99"]),
)
def test_vectorised_bootstrap_is_the_documented_scalar_layout(cand, ctrl, seed, method, stat) -> None:
    got = bootstrap_ratios(cand, ctrl, seed, method=method, statistic_name=stat, resamples=40)
    if any(sum(map(len, arm)) < 2 or (method != "request" and len(arm) < 2) for arm in (cand, ctrl)):
        assert got is None  # one value, or one run, says nothing of the variation an interval is about
        return
    assert (None if got is None else got.tolist()) == _reference_ratios(cand, ctrl, seed, method, stat, 40)


def test_run_level_interval_is_wider_when_runs_differ() -> None:
    # Runs that differ from each other by more than their requests do: resampling requests as if
    # independent understates the uncertainty; resampling runs does not.
    cand = [[1.00, 1.01, 1.02, 1.03], [1.20, 1.21, 1.22, 1.23], [0.90, 0.91, 0.92, 0.93]]
    ctrl = [[1.05, 1.06, 1.07, 1.08], [0.95, 0.96, 0.97, 0.98], [1.25, 1.26, 1.27, 1.28]]
    seed = seed_for("width")
    run_low, run_high = bootstrap_ratio_interval(cand, ctrl, seed, method="run")
    req_low, req_high = bootstrap_ratio_interval(cand, ctrl, seed, method="request")
    assert run_high - run_low > 1.3 * (req_high - req_low)


def test_detectable_change_scales_the_half_width() -> None:
    assert math.isclose(detectable_change(0.9, 1.1), 0.1 * (Z_LEVEL + Z_POWER) / Z_LEVEL)
    assert detectable_change(1.0, 1.0) == 0


def test_adjusted_components_match_the_variance_components() -> None:
    from evidence_kit.analyze.stats import _adjusted_components

    runs = [[1.0, 1.2, 1.1, 1.3], [2.0, 2.1], [1.5, 1.4, 1.6]]
    centre, effects, residuals = _adjusted_components(runs)
    means = [sum(r) / len(r) for r in runs]
    assert math.isclose(centre, sum(means) / 3)
    ss_r = sum((x - m) ** 2 for r, m in zip(runs, means) for x in r)
    within = ss_r / (9 - 3)
    between = sum((m - centre) ** 2 for m in means) / 2 - within / (3 / sum(1 / len(r) for r in runs))
    # A value drawn uniformly from the rescaled sets has the estimated component as its variance.
    assert math.isclose(sum(e * e for e in effects) / 3, between)
    assert math.isclose(sum(r * r for r in residuals) / 9, within)
    assert math.isclose(sum(effects), 0, abs_tol=1e-12) and math.isclose(sum(residuals), 0, abs_tol=1e-12)


def test_adjusted_degenerate_arms() -> None:
    from evidence_kit.analyze.stats import _adjusted_components

    # One run: no between-run estimate; its effect is 0 and its residuals keep the within variance.
    centre, effects, residuals = _adjusted_components([[1.0, 2.0, 3.0]])
    assert (centre, effects) == (2.0, [0.0]) and math.isclose(sum(r * r for r in residuals) / 3, 1.0)
    # Runs of one value each: no within estimate; the run means' variance is the between component.
    centre, effects, residuals = _adjusted_components([[1.0], [2.0], [3.0]])
    assert residuals == [0.0, 0.0, 0.0] and math.isclose(sum(e * e for e in effects) / 3, 1.0)
    # No spread at all: every resample is the centre, so the interval is a point.
    assert _adjusted_components([[2.0, 2.0], [2.0, 2.0]]) == (2.0, [0.0, 0.0], [0.0] * 4)
    assert bootstrap_ratio_interval([[2.0, 2.0], [2.0, 2.0]], [[4.0], [4.0]], seed_for("flat")) == (0.5, 0.5)
    # Runs that differ less than their requests imply: the between component is 0, effects vanish.
    _, effects, _ = _adjusted_components([[1.0, 3.0], [1.1, 2.9]])
    assert effects == [0.0, 0.0]


def test_plain_two_level_counts_the_request_noise_twice() -> None:
    # Ten runs of four that differ only by request noise: the plain two-level bootstrap adds the request
    # noise on top of run means that already carry it, so its intervals are wider than the adjusted
    # bootstrap's, on average over datasets (one dataset's estimated between component can be large).
    import numpy as np

    rng = np.random.default_rng(7)
    widths = {"run": 0.0, "run-plain": 0.0}
    for index in range(20):
        cand = [list(1 + 0.05 * rng.standard_normal(4)) for _ in range(10)]
        ctrl = [list(1 + 0.05 * rng.standard_normal(4)) for _ in range(10)]
        for method in widths:
            low, high = bootstrap_ratio_interval(cand, ctrl, seed_for("twice", index), method=method, resamples=400)
            widths[method] += high - low
    assert widths["run-plain"] > 1.1 * widths["run"]


def test_unknown_method_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown interval method"):
        bootstrap_ratios([[1.0]], [[1.0]], 0, method="adjusted")


def test_chunked_resamples_draw_the_same_numbers_as_one_block(monkeypatch) -> None:
    import evidence_kit.analyze.stats as stats

    runs = [[1.0 + 0.01 * i + 0.1 * r for i in range(7)] for r in range(5)]
    other = [[1.2 + 0.02 * i + 0.05 * r for i in range(6)] for r in range(4)]
    whole = bootstrap_ratios(runs, other, 11, resamples=333)
    monkeypatch.setattr(stats, "CHUNK_VALUES", 97)  # a few resamples per chunk, the last one short
    chunked = stats.bootstrap_ratios(runs, other, 11, resamples=333)
    assert whole is not None and chunked is not None and whole.tolist() == chunked.tolist()
    assert [int(z) for z in splitmix64_block(5, 4, 3)] == [int(z) for z in splitmix64_block(5, 7)][3:]


def _reference_studentised(cand_runs, ctrl_runs, seed, stat, resamples):
    """The studentised interval from its documented definition and draw layout, one number at a time."""
    from evidence_kit.analyze.stats import _adjusted_components

    of = statistic(stat)
    rng = SplitMix64(seed)

    def scaled(runs):
        runs = [[float(v) for v in r] for r in runs if r]
        exponent = math.frexp(max(abs(v) for r in runs for v in r))[1]
        return exponent, [[math.ldexp(v, -exponent) for v in r] for r in runs]

    def variance_of_mean(means):
        total = means[0]
        for m in means[1:]:
            total += m
        centre = total / len(means)
        square = (means[0] - centre) * (means[0] - centre)
        for m in means[1:]:
            square += (m - centre) * (m - centre)
        return square / (len(means) - 1) / len(means)

    arms = [scaled(cand_runs), scaled(ctrl_runs)]
    for _, runs in arms:
        means = [math.fsum(r) / len(r) for r in runs]
        if all(m == means[0] for m in means) and any(v != runs[0][0] for r in runs for v in r):
            return None  # runs of one mean whose values vary: their variance estimate is 0, not the noise
    worlds = []
    for _, runs in arms:
        centre, effects, residuals = _adjusted_components(runs)
        worlds.append((runs, centre, math.sqrt(math.fsum(e * e for e in effects) / len(runs)), residuals))
    draws = {0: [], 1: []}
    for _ in range(resamples):
        for side, (runs, centre, spread, residuals) in enumerate(worlds):
            width = max(len(r) for r in runs)
            effects = []
            for _slot in runs:
                g = 0.0
                for j in range(12):
                    u = (rng.next() >> 11) * 2.0**-53
                    g = u if j == 0 else g + u
                effects.append(centre + spread * (g - 6))
            values, means = [], []
            for slot, run in zip(effects, runs):
                picks = [rng.below(len(residuals)) for _ in range(width)][: len(run)]
                slot_values = [slot + residuals[j] for j in picks]
                total = slot_values[0]
                for v in slot_values[1:]:
                    total += v
                values += slot_values
                means.append(total / len(run))
            draws[side].append((of(values), variance_of_mean(means)))
    a_star, b_star = [a for a, _ in draws[0]], [b for b, _ in draws[1]]
    rho0 = math.fsum(a_star) / math.fsum(b_star)
    pivots = []
    for (a, va), (b, vb) in zip(draws[0], draws[1]):
        spread = math.sqrt(va + rho0 * rho0 * vb)
        pivots.append(abs(a - rho0 * b) / spread if spread > 0 else (0.0 if a - rho0 * b == 0 else math.inf))
    q = nearest_rank(pivots, 95)
    (ea, ra), (eb, rb) = arms
    a, b = of([v for r in ra for v in r]), of([v for r in rb for v in r])
    va = math.fsum((m - math.fsum(ms) / len(ms)) ** 2 for ms in [[math.fsum(r) / len(r) for r in ra]] for m in ms)
    va = va / (len(ra) - 1) / len(ra)
    means_b = [math.fsum(r) / len(r) for r in rb]
    vb = math.fsum((m - math.fsum(means_b) / len(means_b)) ** 2 for m in means_b) / (len(rb) - 1) / len(rb)
    denominator = b * b - q * q * vb
    if not math.isfinite(q) or denominator <= 0:
        return None
    root = math.sqrt(a * a * vb + va * denominator)
    low, high = (a * b - q * root) / denominator, (a * b + q * root) / denominator
    return None if low < 0 else (math.ldexp(low, ea - eb), math.ldexp(high, ea - eb))


@settings(max_examples=40, deadline=None)
@given(runs_strategy, runs_strategy, st.integers(min_value=0, max_value=2**64 - 1), st.sampled_from(["median", "p90", "p99"]))
@example([[1.0], [1.0]], [[3.0], [1.0, 5.0]], 0, "median")  # the control's runs share one mean: CI found it
@example([[1.0, 2.0], [1.5, 1.2]], [[3.0], [1.0, 5.0, 2.0]], 7, "p90")
def test_studentised_interval_is_its_documented_definition(cand, ctrl, seed, stat) -> None:
    got = bootstrap_ratio_interval(cand, ctrl, seed, method="run-t", statistic_name=stat, resamples=40)
    if any(sum(map(len, arm)) < 2 or sum(1 for r in arm if r) < 2 for arm in (cand, ctrl)):
        assert got is None
        return
    assert got == _reference_studentised(cand, ctrl, seed, stat, 40)


def test_studentised_is_the_default_and_widens_with_few_runs_of_run_noise() -> None:
    """Three runs of mostly run-to-run noise: the percentile interval is as wide as the runs' spread, the
    studentised one as wide as their two degrees of freedom call for (docs/benchmarks.md: 91 % against 95 %
    coverage)."""
    import numpy as np

    rng = np.random.default_rng(3)
    widths = {"run-t": 0.0, "run": 0.0}
    for index in range(12):
        arms = [[list(5 * math.exp(rng.normal(0, 0.05)) * np.exp(rng.normal(0, 0.02, 4))) for _ in range(3)] for _ in range(2)]
        assert bootstrap_ratio_interval(*arms, seed_for("w", index)) == bootstrap_ratio_interval(*arms, seed_for("w", index), method="run-t")
        for method in widths:
            low, high = bootstrap_ratio_interval(*arms, seed_for("w", index), method=method, resamples=500)
            widths[method] += high - low
    assert widths["run-t"] > 1.15 * widths["run"]


def test_studentised_degenerate_arms() -> None:
    # No spread at all: the interval is the point.
    assert bootstrap_ratio_interval([[2.0, 2.0], [2.0, 2.0]], [[4.0], [4.0]], seed_for("flat")) == (0.5, 0.5)
    # A control not resolved from zero (two runs far apart, one degree of freedom): unbounded, so not estimable.
    assert bootstrap_ratio_interval([[1.0, 1.1], [1.2, 1.3]], [[0.1, 0.1], [9.0, 9.0]], seed_for("wide")) is None
    # The ratio the other way round is the reciprocal interval (Fieller's is symmetric in the two arms; only the
    # resampled quantile q differs, drawn from other numbers).
    cand = [[1.00, 1.02, 1.01], [1.10, 1.12, 1.11], [0.95, 0.97, 0.96]]
    ctrl = [[1.20, 1.22, 1.21], [1.05, 1.07, 1.06], [1.15, 1.17, 1.16]]
    low, high = bootstrap_ratio_interval(cand, ctrl, seed_for("swap"))
    back_low, back_high = bootstrap_ratio_interval(ctrl, cand, seed_for("swap"))
    assert low < 1 < high and math.isclose(back_low, 1 / high, rel_tol=0.03) and math.isclose(back_high, 1 / low, rel_tol=0.03)
    # Units do not matter: the same runs in milliseconds give the same interval (power-of-two scaling is exact,
    # and the other factor only moves the last bits).
    ms = bootstrap_ratio_interval([[v * 1024 for v in r] for r in cand], [[v * 1024 for v in r] for r in ctrl], seed_for("swap"))
    assert ms == (low, high)
    with pytest.raises(ValueError, match="unknown interval method"):
        bootstrap_ratios(cand, ctrl, 0, method="run-t")  # a studentised interval has no percentile ratios
