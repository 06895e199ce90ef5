"""How the analysis is shown: formats, sentences and table rows, one set for every reader.

The terminal report (:mod:`evidence_kit.text_report`) and the site
(:mod:`evidence_kit.render`, whose templates get every name below as a global)
show the same figures in the same words because they take them from here, and
the auditor regenerates the pages with the same code. Nothing here computes a
figure or decides a verdict: every value, every count and every verdict shown
(``restored_ok``, ``pooled_n_min``, ``timed_failed``…) is read off the
:class:`~evidence_kit.analyze.report.Analysis`, which ``analysis.json`` carries and
``verify`` recomputes. :mod:`.format` writes numbers, :mod:`.wording` sentences,
:mod:`.tables` the rows of a trial's tables, :mod:`.decision_rows` the rest of a
decision page.
"""

from .decision_rows import (
    ENGINE_KINDS,
    headline_rows,
    input_ranges,
    load_words,
    pooled_sizes,
    prose_sections,
    setup_rows,
    workload_settings,
)
from .format import count, dash, faster_slower, higher_lower, percent, ratio, recorded, seconds, signed_percent, tokens
from .tables import (
    CLIENT_HEADERS,
    COMPARISON_HEADERS,
    GOODPUT_TITLE,
    GUARDRAIL_HEADERS,
    GUARDRAIL_TITLE,
    METRIC_TITLES,
    TAIL_HEADERS,
    arm_label_map,
    arm_labels,
    arm_phases,
    cache_hit_headers,
    cache_hit_rows,
    cache_hit_title,
    client_headers,
    client_rows,
    comparison_cells,
    comparison_rows,
    design_headers,
    design_rows,
    design_title,
    failure_rows,
    guardrail_rows,
    interval_text,
    load_headers,
    load_rows,
    load_text,
    load_title,
    metric_headers,
    metric_rows,
    occupancy,
    occupancy_text,
    open_loop,
    phase_labels,
    run_rows,
    tail_rows,
    tail_title,
    telemetry_summary_rows,
)
from .timing import (
                            TIMING_RUN_HEADERS,
                            TIMING_TITLE,
                            milliseconds,
                            reconciled_text,
                            timing_compared,
                            timing_gap_text,
                            timing_run_rows,
                            timing_sentences,
)
from .turns import turn_headers, turn_rows, turn_title
from .wording import (
                            METRIC_NAMES,
                            client_health_sentence,
                            content_ttft_sentence,
                            design_sentence,
                            detectable_sentence,
                            detectable_text,
                            failures_text,
                            finding_sentence,
                            gates_sentence,
                            guardrail_result_text,
                            guardrail_text,
                            interval_method_sentence,
                            outcome_sentence,
                            requests_sentence,
                            rule_sentence,
                            simulated_sentence,
                            slots_sentence,
                            threshold_labels,
                            tool_name,
                            verdict_definitions,
                            verdict_text,
                            verdicts_text,
                            wins_sentence,
                            wins_text,
)

__all__ = [
    "cache_hit_headers", "cache_hit_rows", "cache_hit_title", "turn_headers", "turn_rows", "turn_title",
    "COMPARISON_HEADERS", "METRIC_NAMES", "detectable_text", "guardrail_text", "higher_lower", "verdict_text",
        "ENGINE_KINDS", "METRIC_TITLES", "arm_label_map", "arm_labels", "arm_phases", "comparison_cells",
    "comparison_rows", "count", "dash", "design_headers", "design_rows", "design_sentence", "design_title",
    "verdicts_text", "GUARDRAIL_HEADERS", "TAIL_HEADERS", "detectable_sentence", "guardrail_result_text",
    "guardrail_rows", "interval_method_sentence", "tail_rows", "tail_title", "GUARDRAIL_TITLE", "threshold_labels", "verdict_definitions",
    "failure_rows", "failures_text", "faster_slower", "finding_sentence", "gates_sentence", "headline_rows",
    "input_ranges", "interval_text", "metric_headers", "metric_rows", "occupancy", "occupancy_text", "outcome_sentence", "percent",
    "phase_labels", "pooled_sizes", "prose_sections", "ratio", "recorded", "requests_sentence", "rule_sentence",
    "run_rows", "seconds", "setup_rows", "workload_settings", "signed_percent", "simulated_sentence", "slots_sentence",
    "telemetry_summary_rows", "tokens", "tool_name", "content_ttft_sentence", "wins_sentence", "wins_text", "client_rows", "CLIENT_HEADERS",
    "client_headers", "load_words", "GOODPUT_TITLE", "load_headers", "load_rows", "load_text", "load_title", "open_loop",
    "client_health_sentence",
    "TIMING_RUN_HEADERS", "TIMING_TITLE", "milliseconds", "reconciled_text", "timing_compared", "timing_gap_text",
    "timing_run_rows", "timing_sentences",
]
