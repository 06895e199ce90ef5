"""The bootstrap's faster kernels give the very bits the ones they replaced gave (the cumsum sum, the rank
dictionary, the broadcast ``n``): a published interval recomputed by a newer verifier must not move by one ulp."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from evidence_kit.analyze.stats import _below, _rank_index
from evidence_kit.analyze.studentised import _last

_LOW32 = np.uint64(0xFFFFFFFF)


def _last_before(values: np.ndarray, axis: int) -> np.ndarray:
    total: np.ndarray = np.take(np.cumsum(values, axis=axis), -1, axis=axis)
    return total


def _rank_index_before(counts: np.ndarray, p: float) -> np.ndarray:
    ranks = {int(c): max(1, math.ceil(round(p * int(c), 9) / 100)) - 1 for c in np.unique(counts)}
    return np.array([ranks[int(c)] for c in counts], dtype=np.int64)


def _below_before(z: np.ndarray, n: np.ndarray) -> np.ndarray:
    n = n.astype(np.uint64)
    high: np.ndarray = ((z >> np.uint64(32)) * n + (((z & _LOW32) * n) >> np.uint64(32))) >> np.uint64(32)
    return high


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """The same bytes, every NaN counted as one: which NaN a sum of NaNs returns depends on the operand order of
    the machine's add (x86 keeps the first operand's payload and sign), and no NaN reaches a figure: a resample
    that holds one has no finite ratio, so no interval."""
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        a, b = np.where(np.isnan(a), np.nan, a), np.where(np.isnan(b), np.nan, b)
    return a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


# Every double: NaNs, infinities, -0.0, subnormals, the largest and smallest normals.
DOUBLES = st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True, width=64)
SIGNALLING_NAN = float(np.uint64(0x7FF0000000000001).view(np.float64))
SPECIAL = st.sampled_from(
    [
        SIGNALLING_NAN,
        0.0,
        -0.0,
        math.inf,
        -math.inf,
        math.nan,
        5e-324,
        -5e-324,
        2.2250738585072014e-308,
        1.7976931348623157e308,
        -1.7976931348623157e308,
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    hnp.arrays(np.float64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=14), elements=DOUBLES | SPECIAL),
    st.data(),
)
def test_the_in_order_sum_is_the_cumsum_bit_for_bit(values: np.ndarray, data: st.DataObject) -> None:
    axis = data.draw(st.integers(0, values.ndim - 1))
    with np.errstate(over="ignore", invalid="ignore"):
        assert _same_bits(np.asarray(_last(values, axis)), np.asarray(_last_before(values, axis)))


def test_the_in_order_sum_keeps_a_view_unchanged_and_a_sliced_axis_in_order() -> None:
    # _World sums a reshaped, strided view: the sum must read it, not write through it.
    base = np.array([[1e16, 1.0, -1e16, 1.0], [0.1, 0.2, 0.3, 0.4]])
    view = base[:, ::-1]
    before = view.copy()
    assert _same_bits(_last(view, axis=1), _last_before(view, axis=1))
    assert _same_bits(view, before)


@settings(max_examples=300, deadline=None)
@given(
    hnp.arrays(np.int64, st.integers(0, 40), elements=st.integers(1, 10**7) | st.sampled_from([1, 2, 3, 99, 100, 101, 2**31 - 1])),
    st.sampled_from([50.0, 90.0, 95.0, 99.0, 99.9, 0.1, 100.0]) | st.floats(0.0, 100.0),
)
def test_the_rank_index_is_the_dictionary_one(counts: np.ndarray, p: float) -> None:
    assert _same_bits(_rank_index(counts, p), _rank_index_before(counts, p))


U64 = st.integers(0, 2**64 - 1) | st.sampled_from([0, 1, 2**32 - 1, 2**32, 2**63, 2**64 - 1])
N = st.integers(1, 2**32 - 1) | st.sampled_from([1, 2, 2**31, 2**32 - 2, 2**32 - 1])


@settings(max_examples=300, deadline=None)
@given(hnp.arrays(np.uint64, hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6), elements=U64), N)
def test_one_n_for_every_element_draws_what_a_full_array_of_it_drew(z: np.ndarray, n: int) -> None:
    assert _same_bits(_below(z, n), _below_before(z, np.full(z.shape, n)))


@settings(max_examples=200, deadline=None)
@given(hnp.arrays(np.uint64, (3, 4, 5), elements=U64), hnp.arrays(np.int64, (3, 4), elements=N))
def test_an_array_of_n_broadcast_against_z_draws_as_before(z: np.ndarray, sizes: np.ndarray) -> None:
    assert _same_bits(_below(z, sizes[:, :, None]), _below_before(z, sizes[:, :, None]))
