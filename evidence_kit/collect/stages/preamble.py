"""The preamble of an arm's journal: calibration, header, engine-kind check, gates, warmup.

It is committed as one unit: an arm interrupted before its first run starts again from
the header on ``collect --resume``.
"""

from __future__ import annotations

from ..calibration import calibrate
from ..gates import run_gate
from ..lifecycle import Identity, collector_info
from ..prompts import Calibration, PromptBook
from ..runs import request_body, request_record, send_all
from .context import ArmContext

__all__ = ["calibrated", "write_header", "engine_kind_ok", "gates_pass", "warmup"]


async def calibrated(arm: ArmContext) -> Calibration:
    """The trial's prompt calibration: an earlier arm's, else measured on this arm's engine."""
    if arm.result.calibration is None:
        wl = arm.setup.plan.workload
        arm.result.calibration = await calibrate(arm.client, arm.base, arm.cfg.model, wl.instruction, wl.seed)
    return arm.result.calibration


def write_header(arm: ArmContext, identity: Identity, calibration: Calibration) -> None:
    """Queue the header: the engine's public KV capacity, the prompts, the private identity."""
    private = {**identity.private, "model": arm.cfg.model}
    if arm.routed:
        private["routed_endpoint"] = arm.routed
    trace = arm.setup.plan.trace
    if trace is not None:
        # Private evidence: which trace was replayed, by its digest (the file itself never enters the bundle).
        private["trace_sha256"] = trace.sha256
    engine = {"kv_token_slots": identity.kv_token_slots, **identity.engine}
    arm.header(engine=engine, collector=collector_info(), prompts=calibration.as_record(), private=private)


def engine_kind_ok(arm: ArmContext, identity: Identity) -> bool:
    """Check the engine is what the plan declares; False (no timed work) for a simulator
    declared as a real engine, whose numbers would otherwise be published unlabelled."""
    declared = arm.setup.plan.engine_kind
    if identity.simulated and declared != "simulated":
        detail = (
            f'the engine reports it is simulated (/version "simulated": true) but the plan declares '
            f'engine_kind "{declared}"; no gate or timed request ran on it'
        )
        arm.check("engine-kind", False, detail)
        arm.result.problems.append(detail)
        return False
    dialect = identity.dialect
    if dialect.prefix and identity.dialect_metrics is False:
        spoken = f'engine_kind "{declared}"' + (f' with dialect "{dialect.name}"' if declared == "simulated" else "")
        arm.check(
            "engine-kind",
            False,
            f"the plan declares {spoken} but /metrics holds no {dialect.prefix} series (its counters are not reconcilable)",
            level="warning",
        )
    elif declared == "simulated" and not identity.simulated:
        arm.check(
            "engine-kind",
            False,
            'the plan declares engine_kind "simulated" but /version does not say the engine is simulated (its results are labelled simulated anyway)',
            level="warning",
        )
    else:
        arm.check("engine-kind", True, f'the engine is consistent with engine_kind "{declared}"')
    return True


async def gates_pass(arm: ArmContext) -> bool:
    """Run the plan's gates on the arm's endpoint (and its route, if any); whether all passed."""
    s, gp = arm.setup, arm.setup.plan.gates
    opts = {"timeout_s": gp.timeout_s, "max_tokens": gp.max_tokens, "needle_words": gp.needle_words, "seed": s.plan.workload.seed}
    targets = [("direct", arm.base, arm.cfg.model)]
    if arm.routed:
        targets.append(("routed", arm.routed, arm.cfg.routed_model or arm.cfg.model))
    all_ok = True
    for target, base, model in targets:
        for name in gp.run:
            ok, detail = await run_gate(name, arm.client, base, model, opts)
            arm.writer.add({"type": "gate", "name": name, "target": target, "ok": ok, "detail": detail})
            s.progress.note(f"  gate {name} ({target}): {'ok' if ok else 'FAILED'} ({detail})")
            if not ok:
                all_ok = False
                arm.result.problems.append(f"gate {name} ({target}) failed: {detail}")
    return all_ok


async def warmup(arm: ArmContext, book: PromptBook) -> None:
    """Send the plan's warmup requests at the lowest concurrency (one at a time in an open-loop workload,
    labelled with its lowest rate); journalled, never measured."""
    wl = arm.setup.plan.workload
    if not wl.warmup_requests:
        return
    conc = min(wl.concurrency) if wl.concurrency else 1
    rate = min(wl.rate) if wl.rate else None
    keys = [f"warmup/{i}" for i in range(wl.warmup_requests)]
    inputs = wl.input_nominal or []  # a trace's median input, once load_plan has read it
    sizes = [inputs[i % len(inputs)] for i in range(wl.warmup_requests)]
    bodies = [request_body(wl, arm.cfg.model, book, k, n) for k, n in zip(keys, sizes)]
    outcomes = await send_all(
        arm.client, f"{arm.base}/v1/chat/completions", bodies, concurrency=conc, clock=arm.setup.clock, timeout=wl.request_timeout_s
    )
    for i, outcome in enumerate(outcomes):
        arm.writer.add(
            request_record(
                outcome,
                run="warmup",
                repetition=0,
                input_nominal=sizes[i],
                concurrency=None if rate else conc,
                rate=rate,
                index=i,
                warmup=True,
                key=keys[i],
                t0=arm.t0,
            )
        )
    failed = sum(not o.ok for o in outcomes)
    arm.setup.progress.note(f"  warmup: {len(outcomes) - failed}/{len(outcomes)} ok")
