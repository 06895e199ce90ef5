"""Synthetic trials held in memory: known values per run, for the statistics' tests and benchmarks.

:func:`synthetic_trial` builds the :class:`~evidence_kit.model.evidence.TrialEvidence`
the loader would hand to ``analyze`` for one workload group, with the decision
metric of every timed request given run by run; the other metrics are derived from
it. Nothing is written to disk and nothing is measured: ``engine_kind`` is
``simulated``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..model import PHASES, Header, Request, Trial
from ..model.evidence import ArmEvidence, TrialEvidence

__all__ = ["synthetic_trial"]


def synthetic_trial(
    trial_id: str,
    runs: Mapping[str, Sequence[Sequence[float]]],
    *,
    min_improvement: float = 0.10,
    confidence: str = "point",
    input_nominal: int = 8192,
    concurrency: int = 4,
) -> TrialEvidence:
    """One A/B/A trial of one group whose ``e2e_s`` values are ``runs[phase][repetition][request]``.

    Every phase must hold the same number of runs (the workload's repetitions); a run
    may hold fewer requests than the largest (``requests_per_run``), as if some failed.
    """
    shapes = {len(runs[phase]) for phase in PHASES}
    if len(shapes) != 1 or not next(iter(shapes)):
        raise ValueError("every phase needs the same, positive number of runs")
    repetitions = shapes.pop()
    per_run = max(len(run) for phase in PHASES for run in runs[phase])
    labels = {"before": "original", "candidate": "candidate", "restored": "original"}
    trial = Trial.model_validate(
        {
            "schema": "evidence-kit/trial/v1",
            "trial_id": trial_id,
            "title": f"Synthetic trial {trial_id}",
            "engine_kind": "simulated",
            "decision_rule": {
                "metric": "e2e_s",
                "statistic": "median",
                "min_improvement": min_improvement,
                "against": "both-controls",
                "promote_if": "any-group",
                "confidence": confidence,
            },
            "workload": {
                "input_nominal": [input_nominal],
                "concurrency": [concurrency],
                "repetitions": repetitions,
                "requests_per_run": max(per_run, 1),
                "max_tokens": 256,
                "temperature": 0,
            },
            "arms": [
                {
                    "seq": seq,
                    "arm": labels[phase],
                    "role": "candidate" if phase == "candidate" else "control",
                    "phase": phase,
                    "journal": f"journals/0{seq}-{labels[phase]}-{phase}.jsonl",
                }
                for seq, phase in enumerate(PHASES, start=1)
            ],
        }
    )
    arms = []
    for ref in trial.arms:
        header = Header.model_validate(
            {
                "type": "header",
                "schema": "evidence-kit/journal/v1",
                "trial_id": trial_id,
                "arm": ref.arm,
                "phase": ref.phase,
                "seq": ref.seq,
                "started_at": "2026-12-01T00:00:00Z",
            }
        )
        arm = ArmEvidence(ref=ref, header=header, footer=None, sha256="", size=0)
        for repetition, values in enumerate(runs[ref.phase], start=1):
            run = f"r{repetition}-{input_nominal}-c{concurrency}"
            arm.requests.extend(
                Request(
                    type="request",
                    run=run,
                    repetition=repetition,
                    input_nominal=input_nominal,
                    concurrency=concurrency,
                    index=index,
                    warmup=False,
                    ok=True,
                    prompt_tokens=input_nominal,
                    completion_tokens=100,
                    e2e_s=value,
                    ttft_s=value / 10,
                    ttft_content_s=value / 10,
                )
                for index, value in enumerate(values)
            )
        arms.append(arm)
    return TrialEvidence(trial=trial, arms=arms, source=f"synthetic:{trial_id}")
