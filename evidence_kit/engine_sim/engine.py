"""The modelled engine: continuous batching over a KV pool measured in token slots.

One asyncio task runs engine steps. Each step admits waiting sequences in arrival order while
a sequence slot is free (``max_num_seqs``) and the pool has the blocks for the sequence's
prompt and whole planned output (no preemption: a sequence never loses its blocks), prefills
the admitted ones (time grows with their input not found in the prefix cache), and decodes one step for the rest: with
speculation each sequence drafts ``k`` tokens, the target verifies them, and each is kept in
turn with the acceptance rate, so a step yields ``1 + accepted`` tokens. What a step costs
(memory- or compute-bound, drafting, drift) is :mod:`.steps`. Model seconds are divided by the
time scale. Counters are updated as tokens are produced, so they are exact sums.

With prefix caching on (``kv_cache.prefix_caching``) a sequence's full prompt blocks are shared and kept
cached in the same pool after it ends (:mod:`.prefix_cache`): an admission takes the blocks its prompt's
cached prefix already fills, needs only the rest, and evicts least recently used free blocks for them.

The clock is injectable: ``start_step`` and ``finish_step`` are the loop's two halves, so a
test can run the same scheduling in modelled time without sleeping.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

from ..aio import cancel_and_wait
from .generation import Plan
from .metrics import EngineMetrics
from .prefix_cache import PrefixCache, block_hashes
from .profile import Profile
from .steps import decode_step_seconds, draw_accepted, drift_factor, prefill_seconds

__all__ = ["Engine", "Sequence"]

_MAX_LAG_S = 0.05


@dataclass(eq=False)
class Sequence:
    """One request inside the engine: its plan, its blocks, and the tokens it has produced."""

    request_id: str
    prompt_tokens: int
    plan: Plan
    spec_rng: random.Random = field(default_factory=lambda: random.Random(0))
    arrival: float = field(default_factory=time.monotonic)
    produced: int = 0
    blocks: int = 0
    admitted_at: float | None = None
    first_token_at: float | None = None
    last_token_at: float | None = None
    finished_at: float | None = None
    finish_reason: str | None = None
    prefilled: bool = False
    paused_until: float = 0.0  # a stalled sequence keeps its slot and blocks but produces nothing
    prompt_ids: tuple[int, ...] = ()  # the prompt's token ids (read only with prefix caching)
    hashes: list[bytes] = field(default_factory=list)  # its prompt's full blocks (with prefix caching)
    held: list[bytes] = field(default_factory=list)  # the cached blocks it holds while it runs
    private: int = 0  # the blocks it holds alone (the rest of its prompt and its planned output)
    cached_tokens: int | None = None  # prompt tokens found in the prefix cache; None with caching off
    outbox: asyncio.Queue[int | None] = field(default_factory=asyncio.Queue)  # tokens per step; None at the end

    @property
    def finished(self) -> bool:
        return self.finish_reason is not None


class Engine:
    """The scheduler and its step loop; ``submit`` a sequence, read its ``outbox``."""

    def __init__(self, profile: Profile, *, time_scale: float = 1.0, clock: Callable[[], float] = time.monotonic):
        if time_scale <= 0:
            raise ValueError("time scale must be positive")
        self.profile = profile
        self.time_scale = time_scale
        self.clock = clock
        self.busy_s = 0.0  # modelled seconds of steps so far, before drift: what drift periods count
        self.total_blocks = profile.num_gpu_blocks
        self.private_blocks = 0  # blocks running sequences hold alone
        self.cache = PrefixCache(profile.scheduler.block_size) if profile.kv_cache.prefix_caching else None
        self.waiting: deque[Sequence] = deque()
        self.running: list[Sequence] = []
        self.steps = 0
        self.aborted = 0  # sequences whose client went away (not a vLLM metric; see /sim/stats)
        self.metrics = EngineMetrics(profile, running=lambda: len(self.running), waiting=lambda: len(self.waiting), kv_usage=self.kv_usage)
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # -- state the metrics read ------------------------------------------------------------
    @property
    def used_blocks(self) -> int:
        """Blocks running sequences hold: their own, and each shared cached block once."""
        return self.private_blocks + (self.cache.in_use if self.cache else 0)

    def kv_usage(self) -> float:
        """Fraction of blocks holding tokens of running sequences now (prompt plus output produced so far;
        a shared block once); cached blocks nobody holds are free, as vLLM counts them."""
        size = self.profile.scheduler.block_size
        held = sum(max(math.ceil((s.prompt_tokens + s.produced) / size) - len(s.held), 0) for s in self.running)
        return (held + (self.cache.in_use if self.cache else 0)) / self.total_blocks

    def blocks_for(self, prompt_tokens: int, output_tokens: int) -> int:
        return math.ceil((prompt_tokens + output_tokens) / self.profile.scheduler.block_size)

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._loop(), name="engine-sim-steps")

    async def stop(self) -> None:
        await cancel_and_wait(self._task)
        self._task = None

    def submit(self, seq: Sequence) -> None:
        seq.blocks = self.blocks_for(seq.prompt_tokens, len(seq.plan))
        if self.cache is not None:
            seq.hashes = block_hashes(seq.prompt_ids, self.profile.scheduler.block_size)
        if seq.blocks > self.total_blocks:
            raise ValueError(f"request needs {seq.blocks} KV blocks, the pool has {self.total_blocks}")
        self.waiting.append(seq)
        self._wake.set()

    def abort(self, seq: Sequence) -> None:
        """The client went away: free the sequence (counted in ``aborted``, not as a finished request)."""
        if seq.finished:
            return
        self.aborted += 1
        if seq in self.waiting:
            self.waiting.remove(seq)
        self._finish(seq, "abort", self.clock())

    # -- the step loop -----------------------------------------------------------------------
    async def _loop(self) -> None:
        # Steps follow a schedule on the monotonic clock (each ends one scaled step after the
        # previous one), so the event loop's own overhead per step does not add up into
        # simulated latency; after a long hiccup the schedule restarts instead of bursting.
        due: float | None = None
        while True:
            if not self.running and not self.waiting:
                self._wake.clear()
                await self._wake.wait()
                due = None
                continue
            admitted, seconds = self.start_step()
            now = self.clock()
            if due is None or now - due > _MAX_LAG_S:
                due = now
            due += seconds / self.time_scale
            await asyncio.sleep(max(0.0, due - self.clock()))
            self.finish_step(admitted)

    def start_step(self) -> tuple[list[Sequence], float]:
        """Admit what fits and price the step: the sequences admitted and the step's modelled seconds."""
        admitted = self._admit()
        seconds = self._step_seconds(admitted)
        period = int(self.busy_s // self.profile.timing.drift_period_s)
        self.busy_s += seconds
        return admitted, seconds * drift_factor(self.profile, period)

    def finish_step(self, admitted: list[Sequence]) -> None:
        """The step's time has passed: its tokens come out."""
        self._produce(admitted)
        self.steps += 1

    def _admit(self) -> list[Sequence]:
        admitted: list[Sequence] = []
        limit = self.profile.scheduler.max_num_seqs
        while self.waiting and len(self.running) < limit:
            head = self.waiting[0]
            if not self._claim(head):
                break  # first come, first served: the head waits for blocks, nobody overtakes it
            self.waiting.popleft()
            head.admitted_at = self.clock()
            self.running.append(head)
            admitted.append(head)
        return admitted

    def _claim(self, seq: Sequence) -> bool:
        """Give ``seq`` its blocks if the pool has room: its prompt's cached prefix (shared), the rest new,
        evicting least recently used free cached blocks for them. False (nothing changed) if it has not."""
        cache = self.cache
        if cache is None:
            if self.used_blocks + seq.blocks > self.total_blocks:
                return False
            self.private_blocks += seq.blocks
            return True
        hit = cache.hit(seq.hashes, seq.prompt_tokens)
        fresh: list[bytes] = []
        for h in seq.hashes[hit:]:
            if h in cache.refs:
                break  # (a block another sequence is filling behind a prefix not cached: not shared)
            fresh.append(h)
        new = seq.blocks - hit
        # The hit blocks cached but free leave the free list for use; the new ones need free room.
        if self.used_blocks + cache.free_among(seq.hashes[:hit]) + new > self.total_blocks:
            return False
        seq.held = seq.hashes[:hit] + fresh
        seq.private = new - len(fresh)
        seq.cached_tokens = hit * self.profile.scheduler.block_size
        cache.hold(seq.held)
        self.private_blocks += seq.private
        cache.evict(self.used_blocks + len(cache.free) - self.total_blocks)
        return True

    def _step_seconds(self, admitted: list[Sequence]) -> float:
        """One pass over every running sequence: decoding ones score 1 + k tokens, admitted ones prefill."""
        now = self.clock()
        decoding = sum(1 for s in self.running if s.prefilled and now >= s.paused_until)
        seconds = decode_step_seconds(self.profile, len(self.running), decoding)
        if admitted:
            computed = sum(s.prompt_tokens - (s.cached_tokens or 0) for s in admitted)
            seconds += prefill_seconds(self.profile.timing, computed)
        return seconds

    def _tokens_this_step(self, seq: Sequence) -> int:
        spec = self.profile.speculation
        remaining = len(seq.plan) - seq.produced
        if not seq.prefilled or not spec.enabled:
            return min(1, remaining)
        accepted = min(draw_accepted(spec, seq.spec_rng), remaining - 1)
        self.metrics.on_draft(spec.k, accepted)
        return 1 + accepted

    def _produce(self, admitted: list[Sequence]) -> None:
        now = self.clock()
        metrics = self.metrics
        for seq in admitted:
            assert seq.admitted_at is not None  # _admit stamps every sequence it admits
            metrics.prompt_tokens.inc(seq.prompt_tokens)
            if seq.cached_tokens is not None:
                metrics.on_prefix_lookup(seq.prompt_tokens, seq.cached_tokens)
            metrics.prompt_hist.observe(seq.prompt_tokens)
            metrics.queue.observe(seq.admitted_at - seq.arrival)
        for seq in list(self.running):
            if now < seq.paused_until:
                continue
            n = self._tokens_this_step(seq)
            if not seq.prefilled:
                assert seq.admitted_at is not None  # only _admit puts a sequence in running, stamped
                seq.prefilled = True
                metrics.prefill.observe(now - seq.admitted_at)
            if n:
                # first_token_at and last_token_at are set together, here only: both None or neither.
                if seq.last_token_at is None:
                    seq.first_token_at = now
                    metrics.ttft.observe(now - seq.arrival)
                else:
                    metrics.itl.observe(now - seq.last_token_at)
                seq.last_token_at = now
                seq.produced += n
                metrics.generation_tokens.inc(n)
                seq.outbox.put_nowait(n)
            if seq.produced >= len(seq.plan):
                self._finish(seq, seq.plan.finish_reason, now)

    def _finish(self, seq: Sequence, reason: str, now: float) -> None:
        seq.finish_reason = reason
        seq.finished_at = now
        if seq in self.running:
            self.running.remove(seq)
            self.private_blocks -= seq.private if self.cache else seq.blocks
            if self.cache:
                # The tail first, as vLLM frees them, so eviction takes a prefix's last blocks before its first.
                self.cache.release(seq.held[::-1])
        metrics = self.metrics
        # vLLM counts a tool call's end as "stop"; a request aborted because its client went away
        # never reaches request_success (measured on vLLM 0.32: its tokens are counted, it is not),
        # nor any per-request histogram observed with it (vllm/v1/engine/output_processor.py: an abort
        # records no finished-request stats): its TTFT, observed at its first token, stays counted.
        if reason != "abort":
            metrics.success["length" if reason == "length" else "stop"].inc()
            metrics.e2e.observe(now - seq.arrival)
            metrics.generation_hist.observe(seq.produced)
            if seq.first_token_at is not None:
                metrics.decode.observe(now - seq.first_token_at)
                if seq.produced > 1:
                    metrics.tpot.observe((now - seq.first_token_at) / (seq.produced - 1))
        seq.outbox.put_nowait(None)
