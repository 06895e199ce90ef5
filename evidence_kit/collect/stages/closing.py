"""The checks that close an arm, after its last run, and those only a restored arm makes.

Every arm: ``process-stable`` (which engine processes measured it, across every
collector that ran it), ``resumed``, ``prefix-cache`` and ``spec-decode-active``. A
restored arm also checks that it is the arm it restores (``identity-equality``), that the
candidate no longer serves (``candidate-removed``) and that its route admits it again
(``readmission``).
"""

from __future__ import annotations

from ...model import Run
from ..lifecycle import Identity, capture_identity
from ..metrics import shared_prefix_hits
from ..process_starts import RunStarts
from .context import ArmContext
from .engine import ArmEngine
from .watch import EngineWatch

__all__ = ["closing_checks", "restoration_checks"]


def closing_checks(arm: ArmContext, watch: EngineWatch, engine: ArmEngine, identity: Identity) -> None:
    """Queue the checks every arm makes once its runs are done."""
    resume = arm.setup.resume
    _process_stable(arm, watch, engine)
    if resume.done_runs:
        # open_for_resume keeps runs only behind a header (it refuses a journal without one).
        assert resume.header is not None
        arm.check(
            "resumed",
            identity.fingerprint == resume.header.private.config_fingerprint,
            f"collection resumed after {len(resume.done_runs)} completed run(s); configuration fingerprint compared with the header's",
        )
    _prefix_cache(arm, watch, identity)
    if arm.cfg.speculative:
        accepted = watch.delta("spec_decode_accepted_tokens")
        drafts = watch.delta("spec_decode_drafts")
        arm.check(
            "spec-decode-active",
            bool(accepted and accepted > 0),
            "engine exposes no spec-decode counters"
            if accepted is None
            else f"{drafts or 0:g} drafts, {accepted:g} accepted tokens during timed runs",
        )


def _prefix_cache(arm: ArmContext, watch: EngineWatch, identity: Identity) -> None:
    """The ``prefix-cache`` warning: hits the workload cannot explain, as an earlier arm's prompts left in an
    engine that was not restarted would give. Runs of unique prompts may hit the shared instruction's whole
    blocks; a request of a shared-prefix group may hit its prefix, not half into its own words."""
    hits = watch.delta("prefix_cache_hits", unique_only=True)
    shared = watch.timed_sent - watch.unique_sent
    parts: list[str] = []
    sound = True
    if hits is not None and watch.unique_sent:
        calibration = arm.result.calibration
        allowed = shared_prefix_hits(watch.unique_sent, calibration.overhead_tokens if calibration else 0, identity.block_size)
        where = "timed runs without shared prefixes" if shared else "timed runs"
        sound = hits <= allowed
        parts.append(
            f"{hits:g} prefix-cache hit tokens during {where}" + (f" (the shared instruction's whole blocks allow {allowed})" if allowed else "")
        )
    if watch.shared_reported:
        sound = sound and not watch.suffix_hits
        kind, prefix = ("conversation turn(s)", "history") if watch.conversations else ("shared-prefix request(s)", "prefix")
        parts.append(f"{watch.suffix_hits} of {watch.shared_reported} {kind} hit the cache beyond their {prefix}, half into their own words")
    if parts:
        arm.check("prefix-cache", sound, "; ".join(parts), level="warning")


def _process_stable(arm: ArmContext, watch: EngineWatch, engine: ArmEngine) -> None:
    """Which engine processes measured the arm, across every collector session that ran it.

    A new process where a resumed collector started the plan's engine is a known event
    (failed at level warning: shown, the arm stands); one anywhere else, a dead engine or
    an unanswered /metrics fails the arm.
    """
    earlier = [RunStarts.of(r) for r in arm.setup.resume.records if isinstance(r, Run)]
    history = watch.history(earlier, restarts_on_resume=bool(arm.cfg.start))
    lost = f"; /metrics went unanswered in {watch.unanswered_runs} run(s)" if watch.unanswered_runs else ""
    fate = engine.fate()
    if fate is not None:
        sound, state = fate
        detail = f"started engine {state}; {history.describe()}{lost}"
    elif history.starts:
        sound, detail = True, f"{history.describe()}{lost}"
    else:
        return
    sound = sound and not history.unexplained and not watch.unanswered_runs
    arm.check("process-stable", sound and history.stable, detail, **({} if not sound or history.stable else {"level": "warning"}))


async def restoration_checks(arm: ArmContext) -> None:
    """Queue the checks of a restored arm against the before and candidate arms (if this is one)."""
    before = arm.setup.before
    if before is None:
        return
    result = arm.result
    same_config = before.fingerprint == result.fingerprint
    same_slots = before.kv_token_slots == result.kv_token_slots
    arm.check(
        "identity-equality",
        same_config and same_slots,
        f"configuration fingerprint {'matches' if same_config else 'DIFFERS from'} the before arm; "
        f"KV token slots {result.kv_token_slots} vs {before.kv_token_slots}",
    )
    await _candidate_removed(arm)
    if arm.routed:
        routed_ok = not any("(routed)" in p for p in result.problems)
        identity, _ = await capture_identity(arm.client, arm.routed, arm.setup.plan.metrics_dialect(), log_path=None, engine=None)
        listed = (arm.cfg.routed_model or arm.cfg.model) in identity.models
        arm.check(
            "readmission",
            routed_ok and listed,
            f"routed gates {'passed' if routed_ok else 'failed'}; the route {'lists' if listed else 'does NOT list'} the restored arm's model",
        )


async def _candidate_removed(arm: ArmContext) -> None:
    """The candidate no longer serves: its endpoint is gone, or serves another configuration.

    A failure only where the collector managed the candidate's engine (start/stop
    commands); for an endpoint someone else runs it is a warning.
    """
    cand = arm.setup.candidate
    if cand is None or cand.base_url is None or cand.fingerprint is None:
        return
    if cand.base_url == arm.base:
        gone = arm.result.fingerprint != cand.fingerprint
        detail = "the shared endpoint now serves " + ("another configuration than the candidate's" if gone else "the candidate's configuration STILL")
    else:
        identity, scraped = await capture_identity(arm.client, cand.base_url, arm.setup.plan.metrics_dialect(), log_path=None, engine=None)
        answered = bool(identity.models) or scraped is not None
        gone = not answered or identity.fingerprint != cand.fingerprint
        detail = (
            "the candidate's endpoint no longer answers"
            if not answered
            else "the candidate's endpoint answers with another configuration"
            if gone
            else "the candidate's endpoint STILL serves the candidate's configuration"
        )
    arm.check("candidate-removed", gone, detail, **({} if cand.managed else {"level": "warning"}))
