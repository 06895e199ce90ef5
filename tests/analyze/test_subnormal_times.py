"""A journal time the contract allows (finite, at least 0) must not make the analysis write JSON that is not
JSON: a subnormal control time (5e-324 s) made every change and ratio infinite, ``analyze --json`` printed
``Infinity`` and ``NaN`` (exit 0, with a numpy overflow warning) and the tables "inf% slower", "nan%"."""

from __future__ import annotations

import json
from pathlib import Path

from tests.analyze.bundle import flat, write_bundle, write_decision


def _refuse(constant: str) -> None:
    raise ValueError(f"not JSON: {constant}")


def test_a_subnormal_control_time_gives_no_infinity(run_cli, tmp_path: Path) -> None:
    write_bundle(
        tmp_path,
        "t",
        "ABA",
        [flat(5e-324), flat(1.0), flat(5e-324)],
        rule={"min_improvement": 0.1, "guardrails": [{"metric": "ttft_s", "max_regression": 0.1}]},
    )
    write_decision(tmp_path, ["t"])
    result = run_cli("analyze", "--json", tmp_path)
    assert result.code == 0 and result.err == ""
    json.loads(result.out, parse_constant=_refuse)
    text = run_cli("analyze", tmp_path).out
    assert "inf" not in text and "nan%" not in text
