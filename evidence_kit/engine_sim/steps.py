"""What one engine step costs in modelled seconds, and what speculative decoding yields per step.

A decode step is one forward pass of the target model over the running batch. Its time is a
roofline: the larger of its memory time (``decode_base_s`` to read the weights, plus
``decode_per_seq_s`` per running sequence to read its KV) and its compute time
(``verify_per_token_s`` for every token the pass scores: ``k + 1`` per speculating sequence, the
drafted tokens and the one after them, and one per sequence otherwise). Small batches are
memory-bound, so verifying drafts is nearly free there; compute binds once enough tokens are scored.

Drafting adds ``k`` draft passes per step. Each costs ``draft_step_s``; a separate draft model
(``draft_kv_bytes_per_token`` > 0) also reads its own KV for every speculating sequence in each pass,
priced like the target's per-sequence read scaled by the bytes per token (:func:`draft_per_seq_s`),
so drafting grows with the batch. An MTP head's small KV is part of the target's.

Each drafted token is kept in turn with ``acceptance_rate`` (the first rejection ends the run), so a
step yields ``1 + accepted`` tokens per sequence, ``1 + a + a² + … + a^k`` on average.

Speed drift: with ``drift`` > 0 every step's time is multiplied by a factor from ``[1, 1 + drift)``,
drawn afresh for every ``drift_period_s`` of modelled busy time from the profile's seed and name, so
runs of one group differ a little, as runs on a real engine do, and the same profile drifts the
same way each time it runs.
"""

from __future__ import annotations

import random

from .generation import request_rng
from .profile import Profile, Speculation, Timing

__all__ = [
    "expected_tokens_per_step",
    "draw_accepted",
    "draft_per_seq_s",
    "target_seconds",
    "draft_seconds",
    "prefill_seconds",
    "decode_step_seconds",
    "decode_speedup",
    "drift_factor",
]


def expected_tokens_per_step(spec: Speculation) -> float:
    """Mean tokens one sequence gains per decode step: 1 + a + a² + … + a^k (1 without speculation)."""
    if not spec.enabled:
        return 1.0
    return sum(spec.acceptance_rate**i for i in range(spec.k + 1))


def draw_accepted(spec: Speculation, rng: random.Random) -> int:
    """Drafted tokens kept this step: each in turn with the acceptance rate, until the first rejection."""
    accepted = 0
    while accepted < spec.k and rng.random() < spec.acceptance_rate:
        accepted += 1
    return accepted


def draft_per_seq_s(profile: Profile) -> float:
    """Seconds one draft pass spends reading one sequence's draft KV (0 without a separate draft model)."""
    return profile.timing.decode_per_seq_s * profile.speculation.draft_kv_bytes_per_token / profile.kv_cache.bytes_per_token


def target_seconds(timing: Timing, batch: int, scored: int) -> float:
    """The target's pass over ``batch`` sequences scoring ``scored`` tokens: memory time or compute time, the larger."""
    return max(timing.decode_base_s + timing.decode_per_seq_s * batch, timing.verify_per_token_s * scored)


def draft_seconds(profile: Profile, speculating: int) -> float:
    """``k`` draft passes over ``speculating`` sequences (0 when none speculates)."""
    spec = profile.speculation
    if not spec.enabled or speculating == 0:
        return 0.0
    return spec.k * (spec.draft_step_s + draft_per_seq_s(profile) * speculating)


def prefill_seconds(timing: Timing, prompt_tokens: int) -> float:
    return timing.prefill_base_s + timing.prefill_per_token_s * prompt_tokens


def decode_step_seconds(profile: Profile, batch: int, decoding: int) -> float:
    """A pass over ``batch`` running sequences of which ``decoding`` decode (the rest prefill or stall).

    Each decoding sequence scores one token, and with speculation drafts and verifies ``k`` more.
    """
    speculating = decoding if profile.speculation.enabled else 0
    scored = decoding + profile.speculation.k * speculating
    return target_seconds(profile.timing, batch, scored) + draft_seconds(profile, speculating)


def decode_speedup(profile: Profile, batch: int) -> float:
    """Steady-state decode speed with speculation over speed without, every one of ``batch`` sequences decoding."""
    with_spec = expected_tokens_per_step(profile.speculation) / decode_step_seconds(profile, batch, batch)
    return with_spec * target_seconds(profile.timing, batch, batch)


def drift_factor(profile: Profile, period: int) -> float:
    """The slowdown factor of busy period ``period``: from [1, 1 + drift), fixed by seed, name and period."""
    drift = profile.timing.drift
    if drift == 0:
        return 1.0
    return 1.0 + drift * request_rng("drift", profile.seed, profile.name, period).random()
