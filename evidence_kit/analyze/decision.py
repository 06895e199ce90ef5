"""A decision's analysis: its trials, and the outcome their predeclared rules give."""

from __future__ import annotations

from ..model.evidence import DecisionEvidence, TrialEvidence
from ..version import __version__
from .report import Analysis, DecisionSummary
from .stats import BOOTSTRAP_LEVEL, BOOTSTRAP_RESAMPLES
from .trial import PERCENTILES, analyze_trial
from .verdicts import REGRESSION_FRACTION_OF_THRESHOLD

__all__ = ["analyze", "DEFINITIONS", "DEFINITIONS_V4", "definitions_for", "statistics_version"]

_SEED = "SplitMix64 seeded by sha256 of 'evidence-kit/bootstrap/v2', trial_id, metric, statistic, method, input_nominal, concurrency, control"

DEFINITIONS: dict[str, str] = {
    "version": "evidence-kit/statistics/v3",
    "timed_request": "a request with warmup false; warmup and failed requests never enter a statistic",
    "pooled_median": "ordinary median of every ok timed request of one group in one arm across repetitions "
    "(mean of the two middle values for an even count)",
    "pooled_percentile": "p90, p99 of a group in one arm: nearest-rank percentile of the same pooled requests",
    "per_run_percentile": "nearest-rank percentile of the ok requests of one run: the value at rank "
    f"ceil(p/100 x n) of the sorted values; p in {', '.join(f'p{p}' for p in PERCENTILES)}",
    "change_pct": "(candidate / control - 1) x 100: for latencies negative is faster; written "
    "'x% faster' when negative and 'x% slower' when positive, x = |change_pct|",
    "improvement_pct": "(control - candidate) / control x 100 = -change_pct",
    "rule": "a group clears the rule when improvement_pct >= min_improvement against each control the rule names "
    "(both-controls: before and restored); its verdict is win when it clears at the rule's confidence; any-group "
    "promotes on one win, all-groups on every group; a trial with incomplete timed requests, a failed gate or a "
    "breached guardrail cannot promote; a decision promotes the trials that promote",
    "confidence": "point: the point estimates clear the threshold (the original rule); significant: and each "
    "run-level interval of the decision metric excludes no change (its high end below 1); bound: and each "
    "interval's high end is at most 1 - min_improvement",
    "verdict": "one per group, the first that applies: win (clears both controls at the rule's confidence); "
    f"regression (slower than both controls by at least {REGRESSION_FRACTION_OF_THRESHOLD:g} x the threshold, "
    "significant: each interval's low end above 1, bound: at least 1 + that fraction); inconclusive, controls "
    "disagree (|control_drift_pct| >= threshold); no-win (against a control the interval's low end is above "
    "1 - min_improvement: a win of the threshold's size is excluded); otherwise inconclusive, unresolved",
    "within_noise": "a point-estimate win (clears both controls) whose run-level interval against a control "
    "includes a ratio of 1, said in words next to it whatever the confidence",
    "guardrail": "a declared bound on a metric's pooled statistic (median, p90, p99) of the candidate against "
    "each control: max_regression (change_pct may be at most the bound) or max_change (|change_pct| at most "
    "the bound); breached when exceeded against both controls, judged on point estimates whatever the "
    "confidence (noise can block a promotion, never excuse one); a breach blocks promotion, and so does a "
    "guardrail that cannot be checked (its statistic missing or zero in an arm); failed gates "
    "always block",
    "client_saturated": "a run whose client exceeded a bound trial.json's client declares: the largest loop lag of "
    "any client process > max_loop_lag_s, the largest send_wait_s of its timed requests > max_send_wait_s, or the "
    "busiest process's loop_cpu_s / wall_s > max_cpu_share; it blocks promotion. A run record without client "
    "health is not recorded and not checked; a value that cannot be derived (no lag sample, wall_s 0, no "
    "send_wait_s) is not judged",
    "achieved_concurrency": "sum of e2e_s of a run's timed requests with t_send_s and e2e_s, divided by the span "
    "from the first t_send_s to the last t_send_s + e2e_s: the time-averaged requests on the wire",
    "control_drift_pct": "(restored / before - 1) x 100 of the decision metric; flagged at |drift| >= threshold",
    "split_verdict": "a group that clears the threshold against one control but not the other",
    "regression": "a group whose verdict is regression",
    "bootstrap_interval": f"{BOOTSTRAP_LEVEL:.0%} seeded bootstrap interval of statistic(candidate) / "
    f"statistic(control), {BOOTSTRAP_RESAMPLES} resamples; {_SEED}; resolvable when the interval excludes 1; not "
    "estimable (null) when an arm holds fewer than two values or, run-level, fewer than two runs with values, and "
    "(run-t) when the interval is unbounded or reaches below 0",
    "interval_method": "run-t (the default, used by every verdict, guardrail and detectable change): the "
    "studentised run-level interval, a bootstrap-t Fieller interval. Per arm, a = the pooled statistic and V = "
    "sum (m_i - mean m)^2 / (k - 1) / k from its k run means m_i (Kalibera & Jones 2013: the runs' own estimate "
    "of the variance of the arm's mean); the interval is every ratio rho with |a_c - rho a_k| / sqrt(V_c + rho^2 "
    "V_k) <= q (Fieller 1954). q is the nearest-rank 95th percentile of the same pivot over the resamples, "
    "|a* - rho0 b*| / sqrt(V_a* + rho0^2 V_b*) at rho0 = mean a* / mean b*, each resample an arm's adjusted "
    "two-stage world (below) with k run slots, slot i holding as many values as run i, each value c + s_b g_i + "
    "r, g_i a Gaussian draw (the sum of 12 uniforms less 6) and r drawn with replacement from all the arm's "
    "rescaled residuals. run (for comparison): the adjusted two-stage percentile bootstrap (Davison & Hinkley "
    "1997, section 3.8), per arm on the linear scale: run means m_i, centre c = mean of m_i, effects e_i = m_i - "
    "c, residuals r_ij = x_ij - m_i; s_w^2 = sum r^2 / (N - k), s_b^2 = max(0, sum e^2 / (k - 1) - s_w^2 / n_h) "
    "(n_h the harmonic mean run size; 0 for one run); effects scaled by sqrt(s_b^2 / (sum e^2 / k)), residuals "
    "by sqrt(s_w^2 / (sum r^2 / N)); each resample draws an arm's runs with replacement and, for each drawn run "
    "i, as many values as it holds, c + e_i + r; ends at the nearest-rank 2.5th and 97.5th percentiles of the "
    "resampled ratios; candidate arm first; request (for comparison, in request_intervals): each arm's requests "
    "with replacement, as if independent, percentile ends; either way each run's values ascending and the runs "
    "in ascending order of those lists, so the journal's line order does not matter",
    "detectable_pct": "the smallest change of the pooled median the group's data resolve with 80% power at "
    "95% confidence: (high - low) / 2 x (z_0.975 + z_0.80) / z_0.975 x 100 of its run-level interval, the "
    "larger of the two controls",
    "slot_change_pct": "(candidate kv_token_slots / before kv_token_slots - 1) x 100",
    "restored_ok": "restoration held: every restored arm's gates and lifecycle checks passed and its kv_token_slots "
    "equal the before arm's (slots not recorded do not count against it); a decision's held when every trial's did",
    "design": "the arms in run order, control A and candidate B: A/B/A, A/B/A/B/A, A/B/B/A, ...; each arm is one "
    "block. The pooled figures, the comparisons, the intervals and the rule take before = the first control block, "
    "candidate = every candidate block pooled, restored = the last control block; control blocks between them "
    "enter the design analysis only",
    "block_median": "pooled median of the decision metric of one group in one arm (one block of the design)",
    "drift_pct_per_arm": "least-squares slope of the control blocks' block medians against their seq, divided by "
    "the first control block's median, x 100: percent per arm position; positive is the control getting slower",
    "corrected_control": "the least-squares line through the control blocks' medians over seq, evaluated at the "
    "mean seq of the candidate blocks that hold values of the group (for A/B/A the mean of before and restored)",
    "change_vs_corrected_pct": "(candidate / corrected_control - 1) x 100, the candidate pooled over every candidate block",
    "change_vs_control_block_pct": "(candidate / block median - 1) x 100 for each control block, the candidate pooled over every candidate block",
    "run_order": "fixed: each repetition runs the groups in plan order; randomised: each repetition's groups "
    "sorted by sha256 of 'evidence-kit/order/v1', seed, repetition, input_nominal, concurrency (joined by "
    "U+001F), the same in every arm; a randomised journal whose run records leave that order is refused",
    "group_label": "median actual prompt tokens of the input group (all arms), to the nearest thousand, and the concurrency: '~6K/C4'",
}


# Statistics v4 (a rule that declares ``statistics = 4``): v3's definitions, with these in place of or beside them.
DEFINITIONS_V4: dict[str, str] = {
    **DEFINITIONS,
    "version": "evidence-kit/statistics/v4",
    "statistics": "the version a trial's rule declares (statistics = 4); a trial that declares none is judged by v3, "
    "as every trial before v4 was, and recomputes as it always did",
    "confidence": "bound (v4's default): each judged interval lies wholly beyond the threshold (its high end at most "
    "1 - min_improvement), tested with Holm's step-down over the trial's groups; significant: the point estimates "
    "clear it and each interval excludes no change; point: the point estimates clear it (no error control: a true "
    "change under the threshold wins often)",
    "interval_method": "launch-t (v4): per block (arm) of the design, its statistic s pooled over its runs and the "
    "relative variance v = var(run statistics) / k / s^2 (k - 1 degrees of freedom); the block variance B = SS / d "
    "from the blocks' disagreement, SS the squared relative residuals of the control blocks about their "
    "least-squares line over seq (three or more control blocks; two: about their mean) and of the candidate blocks "
    "about their mean, d their degrees of freedom (A/B/A 1, A/B/B/A 2, A/B/A/B/A 2); for the pooled candidate a "
    "(n_B blocks) against a control b = sum w_j s_j (one block, or the line's value at the candidate blocks' mean "
    "seq): V_a = a^2 (v_a + B / n_B), V_b = B sum w_j^2 s_j^2, the interval {rho : (a - rho b)^2 <= q^2 (V_a + rho^2 "
    "V_b)} (Fieller 1954), q the t quantile at Satterthwaite's degrees of freedom of a - rho b at rho = a / b, the "
    "block part weighted by d / m_d (m_d = d (1 - 2 / (9 d))^3, the chi-square median) in that count, rounded down",
    "p_value": "one-sided: the t tail (same degrees of freedom) of (a - rho0 b) / sqrt(V_a + rho0^2 V_b) in the "
    "improving direction, rho0 = 1 - min_improvement (goodput: 1 + min_improvement); a group's p-value is the larger "
    "over the controls it is judged against",
    "family": "bound under v4: Holm's step-down over the trial's groups at alpha = 2.5% / T, T the decision's trials "
    "(the p-values ascending, the j-th from 0 tested at alpha / (m - j), stopping at the first above its level): the "
    "chance that a decision promotes any group whose true improvement is below the threshold is at most 2.5%",
    "judged_against": "A/B/A: both controls, the before and the restored; a longer design: the drift-corrected "
    "control (corrected_control), its before and restored intervals shown beside it",
    "verdict": "one per group, the first that applies: win (the point estimates clear the threshold against the "
    "judged controls and the rule's confidence holds; bound: and Holm's step-down admits it); regression (slower "
    f"than the judged controls by at least {REGRESSION_FRACTION_OF_THRESHOLD:g} x the threshold at the same "
    "confidence); inconclusive, controls disagree (A/B/A: |control_drift_pct| >= threshold); likely, not resolved "
    "(the point estimates clear the threshold, the interval or the family does not: never a win); no-win (an "
    "interval's low end above 1 - min_improvement); otherwise inconclusive, unresolved",
    "detectable_pct": "the smallest observed improvement (against each judged control, rounded up to 0.01%) the rule "
    "would call a win at the group's precision: the candidate's blocks scaled alike, every block's spread, the launch "
    "variance and the degrees of freedom as observed, bound admitted at Holm's strictest level alpha / groups; that "
    "figure is a win and 0.01% less is not (a statement about the data, not a power); null when no interval can be "
    "drawn or no improvement would be a win",
}


def definitions_for(versions: set[int]) -> dict[str, str]:
    """The definitions an analysis of trials judged by these statistics versions states."""
    return DEFINITIONS_V4 if 4 in versions else DEFINITIONS


def statistics_version(versions: set[int]) -> str:
    """'evidence-kit/statistics/v4' when any trial declares 4, else v3's."""
    return definitions_for(versions)["version"]


def _definitions(trials: list[TrialEvidence]) -> dict[str, str]:
    return definitions_for({t.trial.decision_rule.version for t in trials})


def analyze(evidence: DecisionEvidence | TrialEvidence) -> Analysis:
    """The analysis document of a decision folder or a single trial bundle."""
    if isinstance(evidence, TrialEvidence):
        trials = [evidence]
        meta = None
    else:
        trials = evidence.trials
        meta = evidence.decision
    analyses = [analyze_trial(t, decision_trials=len(trials)) for t in trials]
    promoted = [t.trial_id for t in analyses if t.outcome == "promote"]
    return Analysis(
        tool_version=__version__,
        definitions=_definitions(trials),
        decision=DecisionSummary(
            id=meta.id if meta else None,
            title=meta.title if meta else None,
            date=meta.date if meta else None,
            outcome="promote" if promoted else "no-promotion",
            promoted=promoted,
            trials=[t.trial_id for t in analyses],
            simulated=any(t.simulated for t in analyses),
            timed_ok=sum(t.timed_ok for t in analyses),
            timed_planned=sum(t.timed_planned for t in analyses),
            pooled_n_min=min(t.pooled_n_min for t in analyses),
            pooled_n_max=max(t.pooled_n_max for t in analyses),
            restored_ok=all(t.restored_ok for t in analyses),
        ),
        trials=analyses,
    )
