"""Client health values the journal contract accepts (finite, at least 0) make ``analyze --json`` print
``Infinity``/``NaN`` (not JSON), exit 0: the ratio and over-percentage overflow. The timing branch fixed the
same failure for histograms (a89570c); the client's figures were not given the same guard.

Expected: exit 2 with one located line, or finite figures (null where a ratio overflows); never Infinity."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.analyze.health_bundle import health_bundle, process, refuse_constant


def _every_run(health: dict[str, Any]):
    return lambda seq, run: health


CASES = {
    # loop_cpu_s / wall_s overflows: loop_cpu_share and over_pct Infinity
    "cpu-share-overflow": dict(client=_every_run({"wall_s": 1e-300, "processes": [process(cpu_s=1e308, loop_cpu_s=1e308)]})),
    # two processes' CPU seconds summed: runs[].client.cpu_s Infinity (and the run is judged healthy)
    "cpu-sum-overflow": dict(client=_every_run({"wall_s": 1.0, "processes": [process(cpu_s=1e308), process(cpu_s=1e308)]})),
    # a finite lag far over its bound: over_pct = (value / limit - 1) * 100 overflows
    "lag-over-pct-overflow": dict(client=_every_run({"wall_s": 1.0, "processes": [process(loop_lag_p50_s=1e308, loop_lag_max_s=1e308)]})),
    # a tiny declared bound in trial.json (gt=0 accepts it) against an ordinary lag
    "tiny-declared-bound": dict(client=_every_run({"wall_s": 1.0, "processes": [process()]}), trial_client={"max_loop_lag_s": 5e-324}),
    # achieved concurrency: a send time and an e2e near the float limit make the span inf, inf / inf = NaN
    "achieved-concurrency-nan": dict(
        client=_every_run({"wall_s": 1.0, "processes": [process()]}),
        request=lambda seq, r: r.update(t_send_s=1e308, e2e_s=1e308) if r["index"] == 0 and seq == 1 else None,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_client_health_never_prints_infinity(run_cli, tmp_path: Path, case: str) -> None:
    folder = health_bundle(tmp_path / "d", **CASES[case])
    result = run_cli("analyze", "--json", folder)
    if result.code == 2:  # refused: one located line
        assert result.err.count("\n") == 1 and ".jsonl:" in result.err or "trial.json" in result.err, result.err
        return
    assert result.code == 0, result.err
    json.loads(result.out, parse_constant=refuse_constant)  # raises on Infinity / NaN
    text = run_cli("analyze", folder).out
    # a word, not a substring: the saturated run's sentence says its timings may be "inflated"
    assert not re.search(r"\b(inf|infinity|nan)\b", text.lower()), text
