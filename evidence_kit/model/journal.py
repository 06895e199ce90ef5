"""Native journal records: one JSON object per line, discriminated on ``type``.

A journal is ``header``, then ``request``, ``run``, ``gate`` and ``check`` records
in the order they happened, then ``footer``. New record types are added here, as
one more member of :data:`JournalRecord`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import Field, NonNegativeInt, PositiveFloat, PositiveInt, TypeAdapter, model_validator

from ._base import Record, Slug
from .failures import FAILURE, FINISH
from .phase import Phase
from .publication import PROSE, PUBLIC, SECRET, IdentityKind, coded, identity
from .telemetry import COUNTER_NAMES, TelemetrySummary
from .texts import CACHE_DTYPES, CHECK_NAMES, COMPOSED, GATE_NAMES, GATE_TARGETS, REQUEST_KEY, RUN_NAME, SHA256, TIMESTAMP, VERSION

__all__ = [
    "CacheSettings",
    "CheckPrivate",
    "CollectorInfo",
    "EngineIdentity",
    "EngineInfo",
    "HeaderPrivate",
    "ImportedIdentity",
    "RayNode",
    "RunPrivate",
    "ServedModel",
    "PromptCalibration",
    "ImportedFile",
    "ImportedFrom",
    "NOT_RECORDED",
    "Header",
    "Request",
    "Run",
    "ClientHealth",
    "ProcessHealth",
    "Gate",
    "Check",
    "Footer",
    "JournalRecord",
    "JOURNAL_RECORD",
    "JOURNAL_SCHEMA",
    "TIMING_FIELDS",
    "HEALTH_TOLERANCE_S",
]

JOURNAL_SCHEMA = "evidence-kit/journal/v1"
TIMING_FIELDS: tuple[str, ...] = ("e2e_s", "ttft_s", "ttft_content_s")

Seconds = Annotated[float, Field(ge=0)]
CounterName = Literal[COUNTER_NAMES]  # type: ignore[valid-type]

# What two readings of one of the collector's clocks may disagree by and still be one truth: it rounds
# every time to the microsecond and reads its clocks a few microseconds apart; 1 ms is a margin of
# hundreds over that, and far below anything a client bound judges.
HEALTH_TOLERANCE_S = 0.001


class CacheSettings(Record):
    """The engine's KV cache settings as it reported them (vLLM's ``vllm:cache_config_info`` labels)."""

    block_size: Annotated[PositiveInt | None, PUBLIC] = Field(default=None, description="tokens per KV cache block")
    cache_dtype: Annotated[str | None, PUBLIC, CACHE_DTYPES] = Field(default=None, description="the KV cache's data type (auto, fp8, ...)")
    num_gpu_blocks: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="KV cache blocks on the accelerator")
    num_cpu_blocks: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="KV cache blocks in host memory")
    enable_prefix_caching: Annotated[bool | None, PUBLIC] = Field(default=None, description="whether the engine caches prompt prefixes")
    gpu_memory_utilization: Annotated[float | None, PUBLIC] = Field(
        default=None, ge=0, description="the share of accelerator memory the engine may use"
    )


class EngineInfo(Record):
    """What the engine reported about itself that is safe to publish: its settings and version."""

    kv_token_slots: Annotated[PositiveInt | None, PUBLIC] = None
    version: Annotated[str | None, PUBLIC, VERSION] = Field(default=None, description="the engine's version, as its /version reported it")
    simulated: Annotated[bool | None, PUBLIC] = Field(default=None, description='true when /version said "simulated": true')
    pid: Annotated[PositiveInt | None, PUBLIC] = Field(default=None, description="the process (group) id of the engine the collector started")
    max_model_len: Annotated[PositiveInt | None, PUBLIC] = Field(default=None, description="the served model's context length, from /v1/models")
    cache: CacheSettings | None = Field(default=None, description="the KV cache settings the engine reported")


class CollectorInfo(Record):
    """What ran the collector."""

    python: Annotated[str | None, PUBLIC, VERSION] = Field(default=None, description="the collector's Python version")


class ServedModel(Record):
    """One model the engine listed at /v1/models, by its identities."""

    id: Annotated[str | None, identity(IdentityKind.MODEL)] = Field(default=None, description="the name it is served under")
    root: Annotated[str | None, identity(IdentityKind.MODEL)] = Field(default=None, description="the model it was loaded from (a path or a hub name)")
    parent: Annotated[str | None, identity(IdentityKind.MODEL)] = Field(default=None, description="the base model of an adapter")


class EngineIdentity(Record):
    """What identifies the engine's machine and build, where its /version states it (the simulator does)."""

    model_path: Annotated[str | None, identity(IdentityKind.PATH)] = None
    revision: Annotated[str | None, identity(IdentityKind.REVISION)] = None
    image: Annotated[str | None, identity(IdentityKind.IMAGE)] = None
    host: Annotated[str | None, identity(IdentityKind.HOST)] = None
    container_id: Annotated[str | None, identity(IdentityKind.CONTAINER)] = None
    gpu_uuids: Annotated[list[str] | None, identity(IdentityKind.GPU)] = None


class ImportedIdentity(Record):
    """What one imported result file names: the model, the endpoint, the run's label."""

    model: Annotated[str | None, identity(IdentityKind.MODEL)] = None
    endpoint: Annotated[str | None, identity(IdentityKind.ENDPOINT)] = None
    label: Annotated[str | None, identity(IdentityKind.VALUE)] = None


class HeaderPrivate(Record):
    """What identifies who served the arm: identities only, each published as its pseudonym.

    A field this record does not declare (a raw folder of an earlier layout held ``version``,
    ``cache_config``, ``engine_pid`` here) is not published; the receipt counts it.
    """

    endpoint: Annotated[str | None, identity(IdentityKind.ENDPOINT)] = Field(default=None, description="the arm's base URL")
    routed_endpoint: Annotated[str | None, identity(IdentityKind.ENDPOINT)] = Field(
        default=None, description="the route the arm was also gated through"
    )
    model: Annotated[str | None, identity(IdentityKind.MODEL)] = Field(default=None, description="the model name the plan sent requests for")
    models: list[ServedModel] | None = Field(default=None, description="the models /v1/models listed")
    host: Annotated[str | None, identity(IdentityKind.HOST)] = Field(default=None, description="the collector's host name")
    start_command: Annotated[str | None, identity(IdentityKind.COMMAND)] = Field(default=None, description="the command that started the engine")
    config_fingerprint: Annotated[str | None, identity(IdentityKind.FINGERPRINT)] = Field(
        default=None, description="sha256 of the engine's reported configuration: equal pseudonyms mean equal configurations"
    )
    trace_sha256: Annotated[str | None, identity(IdentityKind.FINGERPRINT)] = Field(default=None, description="sha256 of the replayed trace")
    engine: EngineIdentity | None = Field(default=None, description="the engine's machine and build, where /version states them")
    imported_files: list[ImportedIdentity] | None = Field(default=None, description="an imported journal's: what each result file names")


class PromptCalibration(Record):
    """How the collector sized the prompts: measured once, against the first arm's engine."""

    method: Annotated[Literal["tokenize", "usage"], PUBLIC] = Field(
        description="tokenize: the engine's /tokenize; usage: usage.prompt_tokens of one-token requests"
    )
    overhead_tokens: Annotated[NonNegativeInt, PUBLIC] = Field(description="tokens of the chat template and instruction alone")
    tokens_per_word: Annotated[float, PUBLIC] = Field(gt=0, description="prompt tokens per synthetic body word")
    calibration_words: Annotated[PositiveInt, PUBLIC] = Field(description="body words of the measuring prompt")


# What an imported journal's source tool did not record, each a named limit on the page. Absent is never
# filled in: a journal imported from another client holds only what that client measured.
# ``counter-window``: the tool recorded the engine's counters, but over a window that was not the timed
# requests' alone; ``engine-version``: it recorded the KV capacity, not the engine's identity.
NotRecorded = Literal[
    "counter-reconciliation",
    "functional-gates",
    "lifecycle-checks",
    "content-ttft",
    "client-health",
    "warmup",
    "engine-identity",
    "engine-version",
    "counter-window",
]
NOT_RECORDED: tuple[str, ...] = get_args(NotRecorded)


class ImportedFile(Record):
    """One result file an imported journal was made from (one repetition of the arm)."""

    sha256: Annotated[str, PUBLIC, SHA256] = Field(pattern=r"^[0-9a-f]{64}$", description="sha256 of the original result file's bytes")
    version: Annotated[str | None, PUBLIC, VERSION] = Field(
        description="the tool's version as the file records it; null when the file does not record one"
    )


class ImportedFrom(Record):
    """Where an imported journal came from: the other client's result files, by tool, version and hash.

    The files themselves stay private (they name the model and the endpoint); their sha256 lets whoever
    holds them show that this journal was made from them.
    """

    tool: Annotated[Literal["vllm-bench-serve", "guidellm", "aiperf", "inference-perf"], PUBLIC]
    format: Annotated[str, PUBLIC, COMPOSED] = Field(min_length=1, description="the file format evidence-kit read, as it detected it")
    files: list[ImportedFile] = Field(min_length=1, description="the files, one per repetition, in order")
    not_recorded: Annotated[list[NotRecorded], PUBLIC] = Field(description="what the tool does not record, so this journal lacks it")


class Header(Record):
    """First line of every journal: which trial, arm and phase it records."""

    type: Annotated[Literal["header"], PUBLIC]
    schema_: Annotated[Literal["evidence-kit/journal/v1"], PUBLIC] = Field(alias="schema")
    trial_id: Annotated[Slug, PROSE]
    arm: Annotated[Slug, PROSE]
    phase: Annotated[Phase, PUBLIC]
    seq: Annotated[PositiveInt, PUBLIC]
    started_at: Annotated[str, PUBLIC, TIMESTAMP] = Field(min_length=1)
    engine: EngineInfo = Field(default_factory=EngineInfo)
    prompts: PromptCalibration | None = Field(
        default=None, description="the calibration every arm's prompts were sized with (the collector writes it)"
    )
    imported: ImportedFrom | None = Field(default=None, description="set when `evidence-kit import` wrote this journal from another client's file")
    collector: CollectorInfo | None = Field(default=None, description="what ran the collector")
    private: HeaderPrivate = Field(default_factory=HeaderPrivate, description="what identifies who served the arm: identities only")

    model_config = Record.model_config | {"populate_by_name": True}


class Request(Record):
    """One request, timed or warmup, succeeded or failed.

    Its times, where both of a pair are present, come in the order they happen: the first
    token (``ttft_s``, reasoning included) no later than the first visible content
    (``ttft_content_s``), and both no later than the end (``e2e_s``). Equal is allowed (one
    network read can carry all three). A failed request may lack any of them; an absent time
    is compared with nothing. JSON Schema cannot compare two fields: the models (and so
    ``verify``'s contract check) enforce this rule.
    """

    type: Annotated[Literal["request"], PUBLIC]
    run: Annotated[str, PUBLIC, RUN_NAME] = Field(min_length=1)
    repetition: Annotated[NonNegativeInt, PUBLIC]
    input_nominal: Annotated[PositiveInt, PUBLIC]
    concurrency: Annotated[PositiveInt | None, PUBLIC] = Field(
        default=None, description="the run's concurrency (closed loop); absent in an open-loop run, which has a rate"
    )
    rate: Annotated[PositiveFloat | None, PUBLIC] = Field(
        default=None, description="the run's arrival rate, requests per second (open loop); exactly one of concurrency and rate"
    )
    index: Annotated[NonNegativeInt, PUBLIC]
    warmup: Annotated[bool, PUBLIC]
    ok: Annotated[bool, PUBLIC]
    error: Annotated[str | None, coded(FAILURE)] = None
    prompt_tokens: Annotated[NonNegativeInt | None, PUBLIC] = None
    completion_tokens: Annotated[NonNegativeInt | None, PUBLIC] = None
    e2e_s: Annotated[Seconds | None, PUBLIC] = None
    ttft_s: Annotated[Seconds | None, PUBLIC] = None
    ttft_content_s: Annotated[Seconds | None, PUBLIC] = None
    finish_reason: Annotated[str | None, coded(FINISH)] = None
    # What the collector records beyond the contract's minimum (other writers may leave them out).
    key: Annotated[str | None, PUBLIC, REQUEST_KEY] = Field(default=None, description="the prompt's key, <run>/<index>: the same prompt in every arm")
    t_send_s: Annotated[Seconds | None, PUBLIC] = Field(default=None, description="when the request was sent, seconds since the arm began")
    send_wait_s: Annotated[Seconds | None, PUBLIC] = Field(
        default=None,
        description="time the request waited inside the client (for a connection) before it was sent; "
        "in an open-loop run counted from its scheduled time (the send lag)",
    )
    scheduled_s: Annotated[Seconds | None, PUBLIC] = Field(
        default=None, description="open loop: when the schedule had the request due, seconds after the run's first due request (the run's t_start_s)"
    )
    http_status: Annotated[int | None, PUBLIC] = Field(default=None, description="the reply's HTTP status; null when none came")
    headers_s: Annotated[Seconds | None, PUBLIC] = Field(default=None, description="send -> the reply's headers")
    last_token_s: Annotated[Seconds | None, PUBLIC] = Field(default=None, description="send -> the last streamed token")
    reasoning_tokens: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="reasoning tokens, from the usage")
    cached_tokens: Annotated[NonNegativeInt | None, PUBLIC] = Field(
        default=None,
        description="prompt tokens the engine served from its prefix cache "
        "(usage.prompt_tokens_details.cached_tokens); absent where the engine did not report it, which is not 0",
    )
    prefix: Annotated[NonNegativeInt | None, PUBLIC] = Field(
        default=None, description="which shared prefix the prompt opened with (shared-prefix workloads); absent: none"
    )
    conversation: Annotated[NonNegativeInt | None, PUBLIC] = Field(
        default=None, description="multi-turn workloads: the request's conversation within its run (0, 1, ...); absent in a single-turn workload"
    )
    turn: Annotated[PositiveInt | None, PUBLIC] = Field(
        default=None,
        description="multi-turn workloads: the request's turn within its conversation (1 ... turns); "
        "turn k+1 re-sends turn k's messages and answer; absent in a single-turn workload",
    )
    token_events: Annotated[NonNegativeInt | None, PUBLIC] = Field(default=None, description="streamed events that carried a token")
    itl_us: Annotated[list[NonNegativeInt] | None, PUBLIC] = Field(
        default=None, description="gaps between successive token events, microseconds (inter-token latency)"
    )

    @model_validator(mode="after")
    def _one_load(self) -> Request:
        _check_one_load(self.concurrency, self.rate)
        return self

    @property
    def load(self) -> int | float:
        """The group's second key: the concurrency, or the rate of an open-loop request."""
        return _load(self.concurrency, self.rate)

    @model_validator(mode="after")
    def _turn_of_conversation(self) -> Request:
        if (self.conversation is None) != (self.turn is None):
            raise ValueError("conversation and turn come together (a multi-turn request's conversation and its turn)")
        return self

    @model_validator(mode="after")
    def _cached_within_prompt(self) -> Request:
        if self.cached_tokens is not None and self.prompt_tokens is not None and self.cached_tokens > self.prompt_tokens:
            raise ValueError(
                f"cached_tokens {self.cached_tokens} is greater than prompt_tokens {self.prompt_tokens}: "
                "an engine cannot serve more of a prompt from its cache than the prompt has"
            )
        return self

    @model_validator(mode="after")
    def _ok_or_error(self) -> Request:
        if self.ok:
            if self.error is not None:
                raise ValueError("an ok request has error null")
            if self.e2e_s is None:
                raise ValueError("an ok request has a number in e2e_s")
        elif not self.error:
            raise ValueError("a failed request (ok false) says why in error")
        return self

    @model_validator(mode="after")
    def _times_in_order(self) -> Request:
        # Exact comparisons: the collector rounds every time the same way from one monotonic
        # clock, so a true order survives rounding; any tolerance would let a false one pass.
        first, content, end = self.ttft_s, self.ttft_content_s, self.e2e_s
        if (first is None or ((content is None or first <= content) and (end is None or first <= end))) and (
            content is None or end is None or content <= end
        ):
            return self  # every present pair in order (the common case, checked at once: a request's hot path)
        order = (("ttft_s", "the first token"), ("ttft_content_s", "the first visible content"), ("e2e_s", "the end of the request"))
        for i, (earlier, what_earlier) in enumerate(order):
            for later, what_later in order[i + 1 :]:
                a, b = getattr(self, earlier), getattr(self, later)
                if a is not None and b is not None and a > b:
                    raise ValueError(f"{earlier} {a!r} is greater than {later} {b!r}: {what_earlier} cannot come after {what_later}")
        return self

    @model_validator(mode="after")
    def _gaps_within_stream(self) -> Request:
        # The gaps run from the first token event to the last, so they sum to last_token_s - ttft_s (within
        # the rounding of each gap and of the two times to the microsecond), never past the request's end.
        if self.itl_us and self.ttft_s is not None:
            end = self.last_token_s if self.last_token_s is not None else self.e2e_s
            if end is not None:
                total, span = sum(self.itl_us), round((end - self.ttft_s) * 1e6)
                if total > span + len(self.itl_us) // 2 + 2:
                    field = "last_token_s" if self.last_token_s is not None else "e2e_s"
                    raise ValueError(
                        f"itl_us sums to {total} us, more than the {span} us from ttft_s to {field}: "
                        "the gaps between token events cannot outlast the stream"
                    )
        return self


def _check_one_load(concurrency: int | None, rate: float | None) -> None:
    if (concurrency is None) == (rate is None):
        raise ValueError("a request or run has exactly one of concurrency (closed loop) and rate (open loop)")


def _load(concurrency: int | None, rate: float | None) -> int | float:
    if concurrency is not None:
        return concurrency
    assert rate is not None
    return rate


class ProcessHealth(Record):
    """One process of the client over one run: the CPU it used and how late its event loop ran.

    Raw values: ``analyze`` derives the CPU share and judges the lag against the trial's bounds.
    """

    cpu_s: Annotated[Seconds, PUBLIC] = Field(description="CPU seconds (user and system, every thread) the process used over the run")
    loop_cpu_s: Annotated[Seconds, PUBLIC] = Field(description="CPU seconds of the thread that runs the process's event loop")
    loop_lag_interval_s: Annotated[float, PUBLIC] = Field(gt=0, description="the lag sampler's interval: a timer set this far ahead")
    loop_lag_samples: Annotated[NonNegativeInt, PUBLIC] = Field(
        description="how many times the sampler woke (a wake still overdue when the run ended counts as one)"
    )
    loop_lag_p50_s: Annotated[Seconds | None, PUBLIC] = Field(description="nearest-rank median of how late the sampler woke; null without a sample")
    loop_lag_max_s: Annotated[Seconds | None, PUBLIC] = Field(description="the latest the sampler woke; null without a sample")
    t_send_bound_s: Annotated[Seconds | None, PUBLIC] = Field(
        default=None,
        description="a worker's: how far the t_send_s of the requests it sent may be from the "
        "collector's clock; 0 on the collector's machine (one monotonic clock), else half the round trip that "
        "placed the worker's anchor on it. Absent for the collector's own process",
    )
    ray_node: Annotated[str | None, identity(IdentityKind.IP)] = Field(
        default=None,
        description="a Ray actor's: the IP address of the Ray node it ran on (private: a redacted "
        "bundle holds its pseudonym, the same for every actor on that node)",
    )

    @model_validator(mode="after")
    def _lag_summary(self) -> ProcessHealth:
        if (self.loop_lag_samples == 0) != (self.loop_lag_p50_s is None) or (self.loop_lag_p50_s is None) != (self.loop_lag_max_s is None):
            raise ValueError("loop_lag_p50_s and loop_lag_max_s are numbers exactly when loop_lag_samples is above 0")
        if self.loop_lag_p50_s is not None and self.loop_lag_max_s is not None and self.loop_lag_p50_s > self.loop_lag_max_s:
            raise ValueError(f"loop_lag_p50_s {self.loop_lag_p50_s!r} is greater than loop_lag_max_s {self.loop_lag_max_s!r}")
        if self.loop_cpu_s > self.cpu_s + HEALTH_TOLERANCE_S:
            raise ValueError(
                f"loop_cpu_s {self.loop_cpu_s!r} is greater than cpu_s {self.cpu_s!r}: one thread of "
                "a process cannot use more CPU than the whole process"
            )
        return self


class ClientHealth(Record):
    """The client's own health over one run: its wall time and each of its processes."""

    wall_s: Annotated[Seconds, PUBLIC] = Field(
        description="the run's wall time on the collector's clock, from before its first request to after its last"
    )
    processes: list[ProcessHealth] = Field(min_length=1, description="the collector's process first, then any worker processes")

    @model_validator(mode="after")
    def _within_the_wall(self) -> ClientHealth:
        # What no collector can write: each process samples inside the run's wall time (a worker from
        # after the collector starts to before it stops), so none can use more than that on one thread, be
        # late by more than it, or wake more often than it holds intervals (plus one, a margin).
        limit = self.wall_s + HEALTH_TOLERANCE_S
        for i, p in enumerate(self.processes):
            where = f"processes[{i}]"
            if p.loop_cpu_s > limit:
                raise ValueError(
                    f"{where} loop_cpu_s {p.loop_cpu_s!r} is greater than wall_s {self.wall_s!r}: "
                    "one thread cannot use more CPU than the time that passed"
                )
            if p.loop_lag_max_s is not None and p.loop_lag_max_s > limit:
                raise ValueError(
                    f"{where} loop_lag_max_s {p.loop_lag_max_s!r} is greater than wall_s {self.wall_s!r}: a wake cannot be later than the run is long"
                )
            if p.loop_lag_samples > limit / p.loop_lag_interval_s + 1:
                raise ValueError(
                    f"{where} has {p.loop_lag_samples} loop lag samples, more than wall_s "
                    f"{self.wall_s!r} holds intervals of {p.loop_lag_interval_s!r} s"
                )
        # The collector's own process samples the whole wall time: a wake is due an interval after the
        # previous one woke, and one still overdue at the end counts, so the wall time is at most one
        # interval more than its samples' intervals and lags (each lag at most the largest).
        first = self.processes[0]
        n, interval, lag = first.loop_lag_samples, first.loop_lag_interval_s, first.loop_lag_max_s or 0.0
        covered = (n + 1) * interval + n * lag
        if self.wall_s > covered + HEALTH_TOLERANCE_S + n * 1e-6:
            raise ValueError(
                f"wall_s {self.wall_s!r} is longer than processes[0]'s {n} loop lag sample(s) can "
                f"span ({covered:.6g} s at most: each an interval of {interval!r} s plus its lag, "
                f"at most {lag!r} s, plus one interval)"
            )
        return self


class RayNode(Record):
    """A Ray node a run's workers ran on."""

    node_ip: Annotated[str | None, identity(IdentityKind.IP)] = None
    hostname: Annotated[str | None, identity(IdentityKind.HOST)] = None
    ray_node_id: Annotated[str | None, identity(IdentityKind.FINGERPRINT)] = None


class RunPrivate(Record):
    """What identifies the machines of one run's workers (Ray actors)."""

    ray_nodes: list[RayNode] | None = None


class Run(Record):
    """Closes one run: how many requests it had and whether counters reconciled."""

    type: Annotated[Literal["run"], PUBLIC]
    run: Annotated[str, PUBLIC, RUN_NAME] = Field(min_length=1)
    repetition: Annotated[PositiveInt, PUBLIC]
    input_nominal: Annotated[PositiveInt, PUBLIC]
    concurrency: Annotated[PositiveInt | None, PUBLIC] = None
    rate: Annotated[PositiveFloat | None, PUBLIC] = Field(
        default=None, description="open loop: the arrival rate the run's schedule was drawn at, requests per second"
    )
    t_start_s: Annotated[Seconds | None, PUBLIC] = Field(
        default=None, description="open loop: when the run's schedule began (its first request due), seconds since the arm began"
    )
    requests: Annotated[NonNegativeInt, PUBLIC]
    ok: Annotated[NonNegativeInt, PUBLIC]
    reconciled: Annotated[bool | None, PUBLIC] = None
    counters: Annotated[dict[CounterName, tuple[float, float]] | None, PUBLIC] = None
    mismatches: Annotated[list[Annotated[str, COMPOSED]] | None, PUBLIC] = Field(
        default=None, description="why the run did not reconcile, counter by counter"
    )
    process_start_times_s: Annotated[list[Seconds] | None, PUBLIC] = Field(
        default=None,
        description="the engine's process start times (process_start_time_seconds, Unix seconds) that /metrics "
        "reported before and after the run, each once, in the order seen: another value is another engine process",
    )
    resumed: Annotated[bool | None, PUBLIC] = Field(
        default=None,
        description="true on the first run a resumed collector measured (collect --resume); where the plan starts "
        "the engine, that collector started a new one",
    )
    client: ClientHealth | None = Field(
        default=None, description="the client's own health over the run (loop lag, CPU); null or absent in journals that predate it"
    )
    private: RunPrivate | None = Field(default=None, description="what identifies the machines the run's workers ran on")

    @model_validator(mode="after")
    def _one_load(self) -> Run:
        _check_one_load(self.concurrency, self.rate)
        return self

    @property
    def load(self) -> int | float:
        """The group's second key: the concurrency, or the rate of an open-loop run."""
        return _load(self.concurrency, self.rate)


class Gate(Record):
    """A functional gate run before timed work (smoke, json, needle, tools, ...)."""

    type: Annotated[Literal["gate"], PUBLIC]
    name: Annotated[str, PUBLIC, GATE_NAMES] = Field(min_length=1)
    target: Annotated[str, PUBLIC, GATE_TARGETS] = "direct"
    ok: Annotated[bool, PUBLIC]
    detail: Annotated[str | None, PUBLIC, COMPOSED] = None


class CheckPrivate(Record):
    """What a check keeps for the operator alone."""

    log_tail: Annotated[str | None, SECRET] = Field(default=None, description="the last lines of the engine's log: raw text, never published")


class Check(Record):
    """A lifecycle check: identity equality, readmission, process stability, ...

    A check at ``level`` ``warning`` (e.g. prefix-cache hits on timed requests) is
    shown, but a failed warning does not fail the arm.
    """

    type: Annotated[Literal["check"], PUBLIC]
    name: Annotated[str, PUBLIC, CHECK_NAMES] = Field(min_length=1)
    ok: Annotated[bool, PUBLIC]
    detail: Annotated[str | None, PUBLIC, COMPOSED] = None
    level: Annotated[Literal["error", "warning"], PUBLIC] = "error"
    private: CheckPrivate | None = Field(default=None, description="what the check keeps for the operator alone")


class Footer(Record):
    """Last line: written only when the arm ended; counts every request above it."""

    type: Annotated[Literal["footer"], PUBLIC]
    ended_at: Annotated[str, PUBLIC, TIMESTAMP] = Field(min_length=1)
    requests: Annotated[NonNegativeInt, PUBLIC]
    timed_requests: Annotated[NonNegativeInt, PUBLIC]
    telemetry: TelemetrySummary | None = Field(
        default=None,
        description="the summary of the arm's telemetry series as the collector computed it; analyze recomputes it "
        "from the samples, and a footer that disagrees is a finding",
    )


JournalRecord = Annotated[Header | Request | Run | Gate | Check | Footer, Field(discriminator="type")]
JOURNAL_RECORD: TypeAdapter[Any] = TypeAdapter(JournalRecord)
