"""The fast reader of /metrics gives prometheus_client's answer: the same samples, named and typed the same,
on every exposition the tests know (the simulator's, each dialect's fixture) and on the format's corners."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from evidence_kit.collect import metrics_text
from evidence_kit.collect.metrics_text import samples
from evidence_kit.engine_sim.server import simulator_process

FIXTURES = Path(__file__).parent / "fixtures"

CORNERS = {
    "counter-without-total": "# TYPE jobs counter\njobs 3\n",
    "counter-with-total": "# HELP jobs_total Jobs.\n# TYPE jobs_total counter\njobs_total 3\n",
    "histogram": '# TYPE lat histogram\nlat_bucket{le="0.1"} 1\nlat_bucket{le="+Inf"} 2\nlat_sum 0.3\nlat_count 2\n',
    "summary": '# TYPE s summary\ns{quantile="0.5"} 1\ns_sum 4\ns_count 2\n',
    "info": '# TYPE build info\nbuild_info{version="1.2",commit="abc"} 1\n',
    "untyped-singletons": "a 1\nb 2 1700000000000\n",
    "a-sample-outside-its-family": "# TYPE g gauge\ng 1\nh 2\ng 3\n",
    "help-then-type": '# HELP g Gauge g.\n# TYPE g gauge\ng{x="1"} 1.5e3\ng{x="2"} NaN\n',
    "special-values": "a +Inf\nb -Inf\nc nan\n",
    "comments-and-blank-lines": "# a comment\n\n#another\n   \nx 1\n",
    "crlf": "# TYPE g gauge\r\ng 1\r\n",
    "trailing-comma-and-spaces": 'g{a="1", b="2",} 1\n',
    "escaped-label": 'g{path="C:\\\\x",q="say \\"hi\\""} 1\n',
    "exemplar": 'c_total 3 # {trace_id="a"} 1\n',
    "odd-type": "# TYPE g gaugehistogram\ng_bucket 1\n",
}
BROKEN = {
    "no-value": "g\n",
    "underscore-value": "g 1_000\n",
    "bad-value": "g one\n",
    "type-without-kind": "# TYPE g\ng 1\n",
    "bad-name": "# TYPE 9g gauge\n",
    "name-twice": 'g{__name__="h"} 1\n',
}


def _reference(text: str) -> list[tuple[str, str, dict[str, str], float]]:
    return [(f.type, s.name, s.labels, float(s.value)) for f in text_string_to_metric_families(text) for s in f.samples]


def _same(text: str) -> None:
    ours, theirs = list(samples(text)), _reference(text)
    assert [(t, n, labels) for t, n, labels, _ in ours] == [(t, n, labels) for t, n, labels, _ in theirs]
    assert [repr(v) for *_, v in ours] == [repr(v) for *_, v in theirs]  # NaN included


@pytest.mark.parametrize("case", sorted(CORNERS))
def test_each_corner_of_the_format_reads_as_prometheus_client_reads_it(case: str) -> None:
    _same(CORNERS[case])


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_malformed_exposition_is_refused_as_prometheus_client_refuses_it(case: str) -> None:
    with pytest.raises(ValueError):
        _reference(BROKEN[case])
    with pytest.raises(ValueError):
        list(samples(BROKEN[case]))


@pytest.mark.parametrize("fixture", ["sglang-metrics.txt", "llamacpp-metrics.txt"])
def test_each_dialects_exposition_reads_the_same(fixture: str) -> None:
    _same((FIXTURES / fixture).read_text())


@pytest.mark.parametrize("dialect", ["vllm", "sglang", "llama.cpp"])
def test_the_simulators_exposition_in_every_dialect_is_read_plainly_and_the_same(dialect: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with simulator_process("original", time_scale=50, extra=["--dialect", dialect]) as url:
        body = {"model": "sim-org/sim-model-7b-simulated", "messages": [{"role": "user", "content": "Hi."}], "max_tokens": 4}
        httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30)  # counters and histograms with values
        text = httpx.get(f"{url}/metrics").text
    _same(text)
    # The plain grammar covers what engines write: the fast path reads it, prometheus_client is not asked.
    monkeypatch.setattr(metrics_text, "text_string_to_metric_families", None)
    assert list(samples(text))
