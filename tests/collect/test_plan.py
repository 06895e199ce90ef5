"""Plan files: the shipped examples load; every mistake is one located line, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.collect import load_plan
from evidence_kit.errors import BadInput

from ..conftest import REPO
from .conftest import sim_arm, write_plan

EXAMPLES = sorted([*(REPO / "examples" / "plans").glob("*.toml"), *(REPO / "evidence_kit" / "examples" / "plans").glob("*.toml")])


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_shipped_plans_load(path: Path) -> None:
    plan = load_plan(path)
    trial = plan.trial()
    designs = {"sim-layout-ababa.toml": "A/B/A/B/A"}
    assert trial.design == designs.get(path.name, "A/B/A")
    assert trial.arms[0].arm == trial.arms[-1].arm != trial.arm("candidate").arm


def test_trial_json_has_no_private_plan_fields(tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path / "p.toml"))
    text = plan.trial().model_dump_json(by_alias=True)
    assert "127.0.0.1" not in text and "evidence_kit sim" not in text and "sim-org" not in text
    assert [a.label for a in plan.trial().arms] == [None, "Layout", None]


def _error(tmp_path: Path, text: str) -> BadInput:
    path = tmp_path / "plan.toml"
    path.write_text(text)
    with pytest.raises(BadInput) as caught:
        load_plan(path)
    return caught.value


def _lines(tmp_path: Path) -> list[str]:
    return write_plan(tmp_path / "ok.toml").read_text().splitlines()


def test_bad_url_in_an_arm_table_names_its_line(tmp_path: Path) -> None:
    lines = _lines(tmp_path)
    at = next(i for i, line in enumerate(lines) if line.startswith("[arms.layout]")) + 1
    lines[at] = 'base_url = "ftp://nowhere"'
    err = _error(tmp_path, "\n".join(lines))
    assert err.line == at + 1 and "arms.layout.base_url" in err.message


def test_sequence_must_be_a_b_a(tmp_path: Path) -> None:
    text = write_plan(tmp_path / "p.toml", sequence=["original", "layout", "layout"]).read_text()
    err = _error(tmp_path, text)
    assert "A/B/A" in err.message
    assert err.line == next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("sequence ="))


def test_unknown_key_is_refused_with_its_line(tmp_path: Path) -> None:
    lines = _lines(tmp_path)
    at = lines.index("[workload]") + 1
    lines.insert(at, "repetitons = 3")
    err = _error(tmp_path, "\n".join(lines))
    assert "repetitons" in err.message and err.line == at + 1


def test_extra_body_cannot_override_the_collector(tmp_path: Path) -> None:
    err = _error(tmp_path, write_plan(tmp_path / "p.toml", workload={"extra_body": {"stream": False}}).read_text())
    assert "extra_body may not set stream" in err.message


def test_sequence_naming_a_missing_arm(tmp_path: Path) -> None:
    text = write_plan(
        tmp_path / "p.toml", arms={"original": sim_arm("original"), "b": sim_arm("original")}, sequence=["original", "c", "original"]
    ).read_text()
    err = _error(tmp_path, text)
    assert "has no [arms.c] table" in err.message
    assert err.line == next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("sequence ="))


def test_cli_bad_plan_is_one_line_exit_2_and_writes_nothing(tmp_path: Path, run_cli) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text('trial_id = "x"\ntitle = \n')
    out = tmp_path / "raw"
    result = run_cli("collect", plan, "--out", out, "-q")
    assert result.code == 2
    assert result.err.strip().count("\n") == 0 and f"{plan}:2:" in result.err and "Traceback" not in result.err
    assert not out.exists()


@pytest.mark.parametrize(
    "workload, said",
    [
        ({"concurrency": [1, 3, 3]}, "concurrency lists 3 more than once"),
        ({"input_nominal": [256, 256]}, "input_nominal lists 256 more than once"),
        ({"concurrency": [1, 8], "requests_per_run": 4}, "requests_per_run (4) is below concurrency 8"),
        ({"extra_body": {"n": 2}}, "extra_body may not set n"),
    ],
)
def test_a_matrix_that_cannot_run_as_labelled_is_refused_at_the_workload_table(tmp_path: Path, workload: dict, said: str) -> None:
    text = write_plan(tmp_path / "p.toml", workload=workload).read_text()
    err = _error(tmp_path, text)
    assert said in err.message and err.line == text.splitlines().index("[workload]") + 1


def test_warmup_input_is_not_a_setting_that_silently_does_nothing(tmp_path: Path) -> None:
    # Warmup requests cycle the matrix's input sizes (the journal contract knows no other size).
    text = write_plan(tmp_path / "p.toml", workload={"warmup_input": 600}).read_text()
    assert "warmup_input" in _error(tmp_path, text).message


def test_routed_model_without_a_routed_endpoint_is_refused_at_its_arm(tmp_path: Path) -> None:
    text = write_plan(
        tmp_path / "p.toml", arms={"original": sim_arm("original"), "layout": sim_arm("layout-candidate", routed_model="m")}
    ).read_text()
    err = _error(tmp_path, text)
    assert "routed_model is set without routed_url" in err.message
    assert err.line == text.splitlines().index("[arms.layout]") + 1


def _with_rule(tmp_path: Path, rule_lines: str) -> str:
    text = write_plan(tmp_path / "p.toml").read_text()
    return text.replace("[decision_rule]\nmin_improvement = 0.1\n", "[decision_rule]\nmin_improvement = 0.1\n" + rule_lines)


@pytest.mark.parametrize(
    ("rule_lines", "said"),
    [
        ('confidense = "significant"\n', "confidense"),
        ('confidence = "sure"\n', "confidence"),
        ('[[decision_rule.guardrails]]\nmetric = "ttft_s"\nstatistic = "p90"\n', "exactly one of max_regression and max_change"),
        ('[[decision_rule.guardrails]]\nmetric = "ttft_s"\nmax_regression = 0.1\nmax_change = 0.1\n', "exactly one"),
        ('[[decision_rule.guardrails]]\nmetric = "ttft_s"\nmax_regresion = 0.1\n', "max_regresion"),
        ('[[decision_rule.guardrails]]\nmetric = "tokens"\nmax_change = 0.1\n', "metric"),
    ],
)
def test_a_rule_that_would_not_say_what_was_declared_is_refused_at_its_line(tmp_path: Path, rule_lines: str, said: str) -> None:
    # A misspelt key must never leave the rule at its default: the trial would be judged by a rule nobody declared.
    text = _with_rule(tmp_path, rule_lines)
    err = _error(tmp_path, text)
    assert said in err.message and err.line is not None


@pytest.mark.parametrize("value", ["0", "-5", "nan", "inf", '"50"', "true"])
def test_a_bad_timing_bound_is_one_located_line_exit_2(tmp_path: Path, run_cli, value: str) -> None:
    plan = tmp_path / "plan.toml"
    plan.write_text(_with_rule(tmp_path, f"max_timing_gap_ms = {value}\n"))
    line = plan.read_text().splitlines().index(f"max_timing_gap_ms = {value}") + 1
    result = run_cli("collect", plan, "--out", tmp_path / "raw", "-q")
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {plan}:{line}: "), result.err
    assert "max_timing_gap_ms" in result.err and result.err.strip().count("\n") == 0 and "Traceback" not in result.err
    assert not (tmp_path / "raw").exists()


def test_a_timing_bound_reaches_trial_json_and_none_leaves_it_out(tmp_path: Path) -> None:
    path = tmp_path / "plan.toml"
    path.write_text(_with_rule(tmp_path, "max_timing_gap_ms = 50\n"))
    assert load_plan(path).trial().decision_rule.max_timing_gap_ms == 50
    plain = load_plan(write_plan(tmp_path / "q.toml")).trial().model_dump_json(by_alias=True, exclude_none=True)
    assert "max_timing_gap_ms" not in plain  # an older reader, which refuses unknown rule fields, still reads it


def test_confidence_and_guardrails_reach_trial_json(tmp_path: Path) -> None:
    text = _with_rule(tmp_path, 'confidence = "bound"\n[[decision_rule.guardrails]]\nmetric = "ttft_s"\nstatistic = "p90"\nmax_regression = 0.1\n')
    path = tmp_path / "plan.toml"
    path.write_text(text)
    rule = load_plan(path).trial().decision_rule
    assert rule.confidence == "bound"
    assert [(g.metric, g.statistic, g.max_regression, g.max_change) for g in rule.guardrails] == [("ttft_s", "p90", 0.1, None)]


@pytest.mark.parametrize(
    ("sequence", "phases", "blocks"),
    [
        ("ABABA", ["before", "candidate", "restored", "candidate", "restored"], [1, 1, 1, 2, 2]),
        ("ABBA", ["before", "candidate", "candidate", "restored"], [1, 1, 2, 1]),
        ("ABBAABBA", ["before", "candidate", "candidate", "restored", "restored", "candidate", "candidate", "restored"], [1, 1, 2, 1, 2, 3, 4, 3]),
    ],
)
def test_longer_designs_are_plans(tmp_path: Path, sequence: str, phases: list[str], blocks: list[int]) -> None:
    names = ["original" if letter == "A" else "layout" for letter in sequence]
    trial = load_plan(write_plan(tmp_path / "p.toml", sequence=names)).trial()
    assert trial.design == "/".join(sequence)
    assert [a.phase for a in trial.arms] == phases and [a.block for a in trial.arms] == blocks
    assert [a.seq for a in trial.arms] == list(range(1, len(sequence) + 1))
    assert [a.journal for a in trial.arms][-1] == f"journals/{len(sequence):02d}-original-restored.jsonl"
    assert [a.role for a in trial.arms] == ["control" if n == "original" else "candidate" for n in names]
    assert "block" in trial.model_dump_json(by_alias=True, exclude_none=True)


def test_a_b_a_trial_json_names_no_block_and_no_order(tmp_path: Path) -> None:
    text = load_plan(write_plan(tmp_path / "p.toml")).trial().model_dump_json(by_alias=True, exclude_none=True)
    assert '"block"' not in text and '"order"' not in text


@pytest.mark.parametrize(
    ("sequence", "message"),
    [
        (["original", "layout", "original", "layout"], "must end with the arm it starts with"),
        (["original", "layout", "other", "original"], "alternates two arms"),
        (["original", "original", "original"], "names no candidate arm"),
        (["original", "layout"], "at least 3"),
        (["layout", "original", "layout", "nowhere"], "must end with the arm it starts with"),
        (["original", "original", "layout", "original"], "must run the candidate second"),
    ],
)
def test_invalid_sequences_exit_2_with_file_and_line(tmp_path: Path, run_cli, sequence: list[str], message: str) -> None:
    arms = {"original": sim_arm("original"), "layout": sim_arm("layout-candidate"), "other": sim_arm("original")}
    plan = write_plan(tmp_path / "p.toml", arms=arms, sequence=sequence)
    line = next(i for i, text in enumerate(plan.read_text().splitlines(), 1) if text.startswith("sequence ="))
    result = run_cli("collect", plan, "--out", tmp_path / "raw", "-q")
    assert result.code == 2 and result.err.startswith(f"evidence-kit: {plan}:{line}: "), result.err
    assert message in result.err
    assert not (tmp_path / "raw").exists()


def test_randomised_order_is_recorded_and_needs_nothing_else(tmp_path: Path) -> None:
    plan = load_plan(write_plan(tmp_path / "p.toml", workload={"order": "randomised"}))
    workload = plan.trial().workload
    assert workload.order == "randomised" and workload.seed == 7
    assert '"order":"randomised"' in plan.trial().model_dump_json(by_alias=True, exclude_none=True)
    err = _error(tmp_path, write_plan(tmp_path / "q.toml", workload={"order": "shuffled"}).read_text())
    assert "workload.order" in err.message and err.line is not None


def test_a_guardrail_error_names_the_line_in_its_own_table(tmp_path: Path) -> None:
    # The second guardrail's bad metric is at its own line, not at [decision_rule].
    text = _with_rule(
        tmp_path,
        '[[decision_rule.guardrails]]\nmetric = "ttft_s"\nmax_regression = 0.1\n[[decision_rule.guardrails]]\nmetric = "tokens"\nmax_change = 0.1\n',
    )
    err = _error(tmp_path, text)
    assert err.line == text.splitlines().index('metric = "tokens"') + 1, (err.line, err.message)
    # A guardrail with no bound: its table's header line.
    text = _with_rule(
        tmp_path, '[[decision_rule.guardrails]]\nmetric = "ttft_s"\nmax_regression = 0.1\n[[decision_rule.guardrails]]\nmetric = "e2e_s"\n'
    )
    err = _error(tmp_path, text)
    lines = text.splitlines()
    second = lines.index("[[decision_rule.guardrails]]", lines.index("[[decision_rule.guardrails]]") + 1)
    assert err.line == second + 1, (err.line, err.message)


@pytest.mark.parametrize(
    "line, said",
    [
        ("max_cpu_share = 2", "max_cpu_share"),
        ("max_loop_lag_s = 0", "max_loop_lag_s"),
        ('max_send_wait_s = "1s"', "max_send_wait_s"),
        ("max_loop_lag = 0.5", "max_loop_lag"),
    ],
)
def test_a_bad_client_bound_is_one_line_exit_2_naming_its_line(tmp_path: Path, run_cli, line: str, said: str) -> None:
    text = write_plan(tmp_path / "p.toml").read_text() + f"[client]\n# declared in advance\n{line}\n"
    plan = tmp_path / "plan.toml"
    plan.write_text(text)
    at = len(text.splitlines())
    result = run_cli("collect", plan, "--out", tmp_path / "raw", "-q")
    assert result.code == 2 and "Traceback" not in result.err
    assert result.err.strip().count("\n") == 0 and f"{plan}:{at}:" in result.err and said in result.err


def test_declared_client_bounds_go_into_trial_json(tmp_path: Path) -> None:
    path = write_plan(tmp_path / "p.toml")
    path.write_text(path.read_text() + "[client]\nmax_loop_lag_s = 0.05\n")
    bounds = load_plan(path).trial().client
    assert (bounds.max_loop_lag_s, bounds.max_send_wait_s, bounds.max_cpu_share) == (0.05, 1.0, 0.9)


def test_a_plan_without_a_decision_rule_is_refused_with_the_rule_to_declare(tmp_path: Path, run_cli) -> None:
    text = write_plan(tmp_path / "p.toml").read_text().replace("[decision_rule]\nmin_improvement = 0.1\n", "")
    plan = tmp_path / "plan.toml"
    plan.write_text(text)
    result = run_cli("collect", plan, "--out", tmp_path / "raw")
    assert result.code == 2 and result.out == "" and len(result.err.splitlines()) == 1
    assert result.err.startswith(f"evidence-kit: {plan}: no [decision_rule] table: ")
    assert "min_improvement = 0.10" in result.err and "Traceback" not in result.err
    assert not (tmp_path / "raw").exists()
    # A table without its threshold names the table's line.
    lines = write_plan(tmp_path / "p.toml").read_text().replace("min_improvement = 0.1\n", "").splitlines()
    plan.write_text("\n".join(lines) + "\n")
    err = _error(tmp_path, plan.read_text())
    assert "decision_rule.min_improvement" in err.message and lines[err.line - 1] == "[decision_rule]"


def test_a_plan_with_several_mistakes_shows_every_one_at_once_each_at_its_line(tmp_path: Path, run_cli) -> None:
    # A plan author fixing one mistake per run would run collect once per mistake: every problem, each at its line.
    plan = write_plan(tmp_path / "plan.toml")
    text = plan.read_text()
    text = text.replace("repetitions = 2", "repetitions = 0").replace("timeout_s = 20", "timeout_s = 20\ntimout = 3")
    text = text.replace("[decision_rule]\nmin_improvement = 0.1", '[decision_rule]\nmin_improvement = 0.1\nconfidence = "pointy"')
    text = text.replace("ready_timeout_s = 30", "ready_timeout_s = -1", 1)
    plan.write_text(text)
    lines = text.splitlines()

    def line_of(start: str) -> int:
        return next(i for i, line in enumerate(lines, start=1) if line.startswith(start))

    result = run_cli("collect", plan, "--out", tmp_path / "raw", "-q")
    assert result.code == 2 and not (tmp_path / "raw").exists()
    assert result.err.splitlines() == [
        f"evidence-kit: {plan}:{line_of('confidence')}: field 'decision_rule.confidence': Input should be 'point', 'significant' or 'bound'",
        f"evidence-kit: {plan}:{line_of('repetitions')}: field 'workload.repetitions': Input should be greater than 0",
        f"evidence-kit: {plan}:{line_of('timout')}: unknown field 'gates.timout'",
        f"evidence-kit: {plan}:{line_of('ready_timeout_s = -1')}: field 'arms.original.ready_timeout_s': Input should be greater than 0",
    ]
    assert "more problem" not in result.err


@pytest.mark.parametrize(
    "workload, key",
    [
        ({"turns": 0, "session_header": "X-Session-Id", "requests_per_run": 3, "concurrency": [2]}, "turns"),
        ({"input_nominal": [256, 640], "prefix_tokens": 1024, "prefixes": 4}, "prefix_tokens"),
        ({"input_nominal": [0], "prefix_tokens": 128, "prefixes": 2, "prefix_inputs": [512]}, "input_nominal"),
    ],
)
def test_a_field_that_failed_its_own_check_adds_no_second_problem_where_it_is_read(tmp_path: Path, run_cli, workload: dict, key: str) -> None:
    # Every problem is shown at once, so a check that reads another field must not take a field that failed
    # for one never set ("session_header is set without turns above 1" beside "turns: should be >= 1").
    plan = write_plan(tmp_path / "plan.toml", workload=workload)
    at = next(i for i, line in enumerate(plan.read_text().splitlines(), 1) if line.startswith(f"{key} ="))
    result = run_cli("collect", plan, "--out", tmp_path / "raw")
    assert result.code == 2 and result.err.count("\n") == 1 and f"{plan}:{at}: field 'workload.{key}" in result.err, result.err
