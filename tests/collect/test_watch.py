"""The process/counter watcher of an arm, against a /metrics endpoint whose answers the test sets."""

from __future__ import annotations

import asyncio

import httpx

from evidence_kit.collect.stages.watch import EngineWatch

BASE = "http://engine.test"


class Engine:
    """A /metrics endpoint: counters that grow with the requests served, its start time, up or down."""

    def __init__(self, start: float = 1700000000.0):
        self.start, self.served, self.hits, self.up = start, 0, 0.0, True

    def handle(self, request: httpx.Request) -> httpx.Response:
        if not self.up:
            return httpx.Response(503, text="metrics unavailable\n")
        return httpx.Response(
            200,
            text=(
                f'vllm:request_success_total{{finished_reason="stop"}} {self.served}\n'
                f"vllm:prompt_tokens_total {self.served * 10}\n"
                f"vllm:generation_tokens_total {self.served * 5}\n"
                f"vllm:prefix_cache_hits_total {self.hits}\n"
                f"process_start_time_seconds {self.start}\n"
            ),
        )


def _records(n: int) -> list[dict]:
    return [{"ok": True, "prompt_tokens": 10, "completion_tokens": 5}] * n


async def _run(watch: EngineWatch, client: httpx.AsyncClient, engine: Engine, run: str, *, up_after: bool = True, hits: float = 0.0):
    before = await watch.before_run(client, BASE)
    engine.served += 2
    engine.hits += hits
    engine.up = up_after
    around = await watch.after_run(client, BASE, run, before, _records(2))
    engine.up = True
    return around


def _watch_runs(watch: EngineWatch, engine: Engine, plan: list[dict]) -> list:
    async def go():
        async with httpx.AsyncClient(transport=httpx.MockTransport(engine.handle)) as client:
            return [await _run(watch, client, engine, f"r{i}", **kw) for i, kw in enumerate(plan, 1)]

    return asyncio.run(go())


def test_each_run_keeps_the_start_time_and_reconciles_its_counters() -> None:
    engine = Engine()
    watch = EngineWatch(opening=engine.start, answered=True)
    first, second = _watch_runs(watch, engine, [{"hits": 16}, {"hits": 32}])
    assert first.verdict is True and second.verdict is True and first.mismatches == []
    assert first.starts == second.starts == (engine.start,)
    assert watch.timed_sent == 4 and watch.delta("prefix_cache_hits") == 48
    assert watch.delta("spec_decode_drafts") is None  # an engine without the counter: unknown, not zero
    assert watch.history([], restarts_on_resume=False).stable and watch.unanswered_runs == 0


def test_only_the_first_run_of_a_resumed_collector_is_marked_resumed() -> None:
    engine = Engine()
    watch = EngineWatch(opening=engine.start, resuming=True, answered=True)
    runs = _watch_runs(watch, engine, [{}, {}])
    assert [r.resumed for r in runs] == [True, False]


def test_metrics_lost_after_the_engine_reported_its_start_is_an_unanswered_run() -> None:
    engine = Engine()
    watch = EngineWatch(opening=engine.start, answered=True)
    answered, lost = _watch_runs(watch, engine, [{}, {"up_after": False}])
    assert answered.verdict is True
    assert lost.verdict is None and lost.mismatches == ["no /metrics after the run"]
    assert lost.starts == (engine.start,)  # the scrape before the run still saw it
    assert watch.unanswered_runs == 1
