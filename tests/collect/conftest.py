"""Plans for small trials on the simulator, each arm started by the plan's own start command."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f'"{k}" = {_toml(v)}' for k, v in value.items()) + " }"
    return repr(value)


def sim_arm(profile: str, *, extra: str = "", time_scale: float = 50, **fields: Any) -> dict[str, Any]:
    """An arm that starts ``evidence-kit sim --profile PROFILE`` on the arm's free port."""
    return {
        "base_url": "http://127.0.0.1:{port}",
        "model": "sim-org/sim-model-7b-simulated",
        "start": f"{{python}} -m evidence_kit sim --profile {profile} --port {{port}} --time-scale {time_scale:g} {extra}",
        "ready_url": "{base_url}/health",
        "ready_timeout_s": 30,
        **fields,
    }


def write_plan(
    path: Path,
    *,
    arms: dict[str, dict[str, Any]] | None = None,
    workload: dict[str, Any] | None = None,
    gates: list[str] | None = None,
    sequence: list[str] | None = None,
    telemetry_interval_s: float = 0.2,
    **top: Any,
) -> Path:
    """Write a small, valid simulator plan; keyword arguments override its parts."""
    arms = arms or {"original": sim_arm("original"), "layout": sim_arm("layout-candidate", label="Layout")}
    wl = {
        "input_nominal": [256],
        "concurrency": [1, 3],
        "repetitions": 2,
        "requests_per_run": 3,
        "max_tokens": 48,
        "temperature": 0,
        "warmup_requests": 1,
        "seed": 7,
        **(workload or {}),
    }
    lines = [
        f"{k} = {_toml(v)}"
        for k, v in {
            "trial_id": "t-small",
            "title": "Small simulated trial",
            "engine_kind": "simulated",
            "sequence": sequence or [next(iter(arms)), list(arms)[1], next(iter(arms))],
            **top,
        }.items()
    ]
    lines += ["[decision_rule]", "min_improvement = 0.1", "[workload]"]
    lines += [f"{k} = {_toml(v)}" for k, v in wl.items()]
    lines += [
        "[gates]",
        f"run = {_toml(gates if gates is not None else ['smoke'])}",
        "timeout_s = 20",
        "[telemetry]",
        f"interval_s = {telemetry_interval_s!r}",
    ]
    for name, fields in arms.items():
        lines.append(f"[arms.{name}]")
        lines += [f"{k} = {_toml(v)}" for k, v in fields.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_workload_key_refused(plan: Path, key: str, value: str, said: str) -> None:
    """``[workload] key = value`` (TOML) in ``plan`` is refused by the plan's reader, naming the file and line."""
    from evidence_kit.collect import load_plan
    from evidence_kit.errors import BadInput

    text = plan.read_text().replace("[workload]\n", f"[workload]\n{key} = {value}\n")
    plan.write_text(text)
    line = text.splitlines().index(f"{key} = {value}") + 1
    with pytest.raises(BadInput) as caught:
        load_plan(plan)
    assert str(caught.value).startswith(f"{plan}:{line}: ") and said in str(caught.value)


@pytest.fixture
def python() -> str:
    return sys.executable
