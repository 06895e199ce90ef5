"""A Prometheus text-exposition scrape: each sample's metric and value public, its labels by ``LABELS``.

Reads the text format (0.0.4) and OpenMetrics' (``# EOF``, ``_created``), one sample a line:
``name{label="value",...} value [timestamp]``. ``# HELP`` text is never read; ``# TYPE`` lines are
counted. A sample of a family ``METRICS`` does not name is counted, not kept (its name could be
anyone's). Past ``MAX_SAMPLES`` samples are counted, not kept, so a scrape of any size reads in
bounded memory.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from ...model.formats.prometheus import LABELS, METRICS, PrometheusScrape, Sample
from .build import build
from .lines import cleaned
from .reader import Example, FormatReader
from .values import endpoint_parts, is_ip

__all__ = ["READER", "parse_sample"]

MAX_SAMPLES = 20_000
_NAME = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]{0,200}")
_LABEL = re.compile(r'\s*(?P<name>[a-zA-Z_][a-zA-Z0-9_]{0,200})\s*=\s*"')
_TYPE = re.compile(r"^# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (?:counter|gauge|histogram|summary|untyped|unknown|info|stateset|gaugehistogram)\s*$")
_ESCAPES = {"\\": "\\", '"': '"', "n": "\n"}


def _labels(text: str, at: int) -> tuple[dict[str, str], int] | None:
    """The labels of ``{...}`` starting after the brace at ``at``, and where the text after ``}`` starts."""
    labels: dict[str, str] = {}
    while True:
        while at < len(text) and text[at] in " ,":
            at += 1
        if at < len(text) and text[at] == "}":
            return labels, at + 1
        match = _LABEL.match(text, at)
        if match is None:
            return None
        at, value = match.end(), []
        while at < len(text) and text[at] != '"':
            if text[at] == "\\" and at + 1 < len(text):
                value.append(_ESCAPES.get(text[at + 1], "\\" + text[at + 1]))
                at += 2
            else:
                value.append(text[at])
                at += 1
        if at >= len(text):
            return None
        labels[match["name"]] = "".join(value)
        at += 1


def _value(text: str) -> float | str | None:
    try:
        value = float(text)
    except ValueError:
        return None
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    return value


def parse_sample(line: str) -> tuple[str, dict[str, str], float | str, int | None] | None:
    """``(metric, labels, value, timestamp)`` of one sample line, or ``None`` when it is no sample."""
    name = _NAME.match(line)
    if name is None:
        return None
    at, labels = name.end(), dict[str, str]()
    if at < len(line) and line[at] == "{":
        parsed = _labels(line, at + 1)
        if parsed is None:
            return None
        labels, at = parsed
    rest = line[at:].split()
    if not 1 <= len(rest) <= 2 or (value := _value(rest[0])) is None:
        return None
    stamp = rest[1] if len(rest) == 2 else None
    if stamp is not None and not re.fullmatch(r"-?\d{1,19}", stamp):
        return None
    return name.group(), labels, value, int(stamp) if stamp is not None else None


def _sample(metric: str, labels: dict[str, str], value: float | str, stamp: int | None) -> dict[str, Any]:
    data: dict[str, Any] = {"metric": metric, "value": value, "timestamp_ms": stamp, "labels": {}}
    withheld = 0
    for name, text in labels.items():
        rule = LABELS.get(name)
        if rule is None or (rule.kind is None and not rule.fits(text)):
            withheld += 1
        elif rule.kind is None:
            data["labels"][name] = text
        elif text:
            data[name] = text
            if name == "instance":
                host = endpoint_parts(text)[0] or (text if "/" not in text else None)
                if host:
                    data["instance_ip" if is_ip(host) else "instance_host"] = host
    data["labels_withheld"] = withheld
    return data


def read(lines: Iterable[str], path: str) -> PrometheusScrape:
    """The samples of one scrape."""
    samples: list[Sample] = []
    counts = {"families": 0, "samples_withheld": 0, "samples_not_kept": 0, "lines_unread": 0}
    for line in cleaned(lines):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            counts["families"] += bool(_TYPE.match(stripped))
            continue
        parsed = parse_sample(stripped)
        if parsed is None:
            counts["lines_unread"] += 1
        elif not METRICS.fits(parsed[0]):
            counts["samples_withheld"] += 1
        elif len(samples) >= MAX_SAMPLES:
            counts["samples_not_kept"] += 1
        else:
            sample, withheld = build(Sample, _sample(*parsed))
            samples.append(sample.model_copy(update={"labels_withheld": sample.labels_withheld + withheld}) if withheld else sample)
    return PrometheusScrape(samples=samples, **counts)


def recognises(path: str, head: str) -> bool:
    """A scrape: every line (but at most one in ten) a sample, a comment or blank, and a ``# TYPE``
    line or three samples of known families."""
    lines = [line.strip() for line in cleaned((head.splitlines()[:-1] or head.splitlines())[:4000])]
    comments = [line for line in lines if line.startswith("#")]
    samples = [parse_sample(line) for line in lines if line and not line.startswith("#")]
    read = [s for s in samples if s is not None]
    if not read or len(samples) - len(read) > len(samples) // 10:
        return False
    return any(_TYPE.match(line) for line in comments) or sum(METRICS.fits(s[0]) for s in read) >= 3


READER = FormatReader(
    name="prometheus-text",
    summary="A Prometheus text-exposition scrape (an engine's /metrics, or through Prometheus with target labels)",
    record=PrometheusScrape,
    recognises=recognises,
    read=read,
    examples=(
        Example(
            text=(
                "# HELP vllm:num_requests_running Number of requests in model execution batches.\n"
                "# TYPE vllm:num_requests_running gauge\n"
                'vllm:num_requests_running{engine="0",instance="gpu-07.acme.internal:8000",job="vllm",model_name="falcon-secret",'
                'namespace="acme-llm",pod="falcon-7d9f8-x2kqp",pod_template_hash="7d9f8"} 3 1793523600000\n'
                'vllm:e2e_request_latency_seconds_bucket{le="+Inf",model_name="falcon-secret"} 42\n'
                'acme_gpu07_temperature{host="gpu-07"} 61\n'
            ),
            path="logs/metrics.txt",
            expect={
                "families": 1,
                "samples_withheld": 1,
                "samples": [
                    {
                        "metric": "vllm:num_requests_running",
                        "value": 3.0,
                        "timestamp_ms": 1793523600000,
                        "labels": {"engine": "0"},
                        "labels_withheld": 1,
                        "model_name": "falcon-secret",
                        "instance": "gpu-07.acme.internal:8000",
                        "instance_host": "gpu-07.acme.internal",
                        "job": "vllm",
                        "namespace": "acme-llm",
                        "pod": "falcon-7d9f8-x2kqp",
                    },
                    {"metric": "vllm:e2e_request_latency_seconds_bucket", "value": 42.0, "labels": {"le": "+Inf"}, "model_name": "falcon-secret"},
                ],
            },
        ),
    ),
)
