"""The design's promise as a property: a reader cannot copy an arbitrary private string into a public field.

Hypothesis plants a private value (a canary) in every slot of every format a reader reads (each
setting of vLLM's args and engine config, every label, every ``nvidia-smi`` key, every string of
a pod) and in arbitrary text; whatever the reader makes of it, the canary is never in a public
field, and every public string fits its field's constraint, checked here with Python's ``re``
apart from the pydantic patterns that enforce it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from evidence_kit.model.formats import LABELS
from evidence_kit.model.formats.constraints import string_leaves
from evidence_kit.model.publication import Publication, publication_of
from evidence_kit.redact.formats import READERS, FormatReader, public_words

from .records import SAMPLES, identities, leaks

BY_NAME = {reader.name: reader for reader in READERS}
# A canary starts with "zq", which no public word or shape holds, then anything but a line end.
CANARY = st.text(
    st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"), min_size=1, max_size=24
).map(lambda core: "zq" + core)
STAMP = "12-03 13:27:02"


def _esc(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def _name(text: str) -> str:
    return re.sub(r"[^a-zA-Z0-9_]", "_", text)


def vllm_lines(c: str) -> list[str]:
    r = repr(c)
    args = ", ".join(
        f"'{k}': {r}"
        for k in "model served_model_name host port kv_cache_dtype dtype quantization reasoning_parser tool_call_parser revision download_dir "
        "chat_template api_key attention_backend device load_format tokenizer".split()
    )
    config = ", ".join(f"{k}={c}" for k in "dtype kv_cache_dtype device_config served_model_name load_format tokenizer_mode quantization".split())
    return [
        f"INFO {STAMP} [api_utils.py:347]  \u2584\u2584 \u2584\u2588 \u2588     \u2588  version {c}",
        f"INFO {STAMP} [api_utils.py:347]   \u2588\u2584\u2588\u2580 \u2588     \u2588  model   {c}",
        f"(APIServer pid=1) INFO {STAMP} [api_utils.py:286] non-default args: "
        f"{{{args}, {r}: {r}, 'speculative_config': {{'method': {r}, 'model': {r}}}}}",
        f"(EngineCore pid=2) INFO {STAMP} [core.py:133] Initializing a V1 LLM engine (v{c}) with config: model={r}, {config}, "
        f"structured_outputs_config=StructuredOutputsConfig(reasoning_parser={r}), {c}={c}",
        f"INFO {STAMP} [x.py:1] Starting vLLM API server 0 on http://{c}:8000",
        f"INFO {STAMP} [x.py:1] Starting vLLM API server 0 on {c}",
        f"INFO {STAMP} [x.py:1] Using {c} backend.",
        f"INFO {STAMP} [x.py:1] vLLM API server version {c} (SIMULATED by evidence-kit, profile {c})",
        f"INFO {STAMP} [x.py:1] image: {c}; host: {c}; container id: {c}",
        f"INFO {STAMP} [x.py:1] GPU 0: {c} (simulated)",
        f"INFO {STAMP} [x.py:1] Speculative decoding: method={c}, num_speculative_tokens=3, draft model {c}, draft KV {c}",
        f"INFO {STAMP} [x.py:1] Available KV cache memory: {c} GiB",
        f"INFO {STAMP} [x.py:1] GPU KV cache size: {c} tokens",
        f"INFO {STAMP} [{c}] {c}",
        f"WARNING {c} [x.py:1] {c}",
        "Traceback (most recent call last):",
        f'  File "{c}", line 1, in <module>',
        f"{c}: {c}",
        "Traceback (most recent call last):",
        f"{c}Error: boom",
    ]


def prometheus_lines(c: str) -> list[str]:
    e, n = _esc(c), _name(c)
    labels = ",".join(f'{k}="{e}"' for k in ("le", "engine", "model_name", "cache_dtype", "handler", "finished_reason", "version", n))
    return [
        f"# TYPE {c} counter",
        f"# HELP vllm:num_requests_running {c}",
        f'vllm:num_requests_running{{{labels},instance="{e}:8000"}} 1 1793523600000',
        f"{n} 1",
        f'{n}_total{{engine="0"}} 1',
        f"vllm:num_requests_running {c}",
        f'vllm:num_requests_running{{le="1"}} 1 {c}',
    ]


def smi_query_lines(c: str) -> list[str]:
    out = [f"GPU {c}"]
    for line in (SAMPLES / "nvidia-smi-q-h100.txt").read_text().splitlines():
        key, sep, _ = line.partition(" : ")
        out.append(f"{key} : {c}" if sep else line)
    return out


def smi_csv_lines(c: str) -> list[str]:
    from evidence_kit.redact.formats.nvidia_csv import CSV_FIELDS, CSV_TOP

    fields = [*CSV_FIELDS, *CSV_TOP]
    return [", ".join(fields), ", ".join([c] * len(fields)), "", f"{c}, GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0, {c}, NVIDIA {c}"]


def _planted(node: Any, c: str) -> Any:
    if isinstance(node, dict):
        return {(c if k not in ("apiVersion", "kind", "items") else k): _planted(v, c) for k, v in node.items()} | {
            k: node[k] for k in ("apiVersion", "kind") if k in node
        }
    if isinstance(node, list):
        return [_planted(v, c) for v in node]
    return c if isinstance(node, str) else node


def _keep_structure(node: Any, c: str) -> Any:
    """Every string value planted, every key kept (so the reader finds its fields), resource names planted too."""
    if isinstance(node, dict):
        planted = ("requests", "limits", "labels", "annotations", "Labels", "ExposedPorts", "Networks")
        return {k: (_planted(v, c) if k in planted else _keep_structure(v, c)) for k, v in node.items()}
    if isinstance(node, list):
        return [_keep_structure(v, c) for v in node]
    return c if isinstance(node, str) else node


def docker_texts(c: str) -> list[str]:
    containers = json.loads((SAMPLES / "docker-inspect.json").read_text())
    planted = [_keep_structure(item, c) | {"Id": "0" * 64} for item in containers]
    return [json.dumps(planted, indent=4)]


def pod_texts(c: str) -> list[str]:
    pod = json.loads((SAMPLES / "kubectl-get-pod.json").read_text())
    planted = _keep_structure(pod, c) | {"apiVersion": "v1", "kind": "Pod"}
    listed = {"apiVersion": "v1", "kind": "List", "items": [planted]}
    return [json.dumps(planted, indent=4), "apiVersion: v1\n" + yaml.safe_dump(listed, allow_unicode=True)]


TEMPLATES: dict[str, Callable[[str], list[str]]] = {
    "vllm-startup-log": lambda c: ["\n".join(vllm_lines(c)) + "\n"],
    "prometheus-text": lambda c: ["\n".join(prometheus_lines(c)) + "\n"],
    "nvidia-smi-query": lambda c: ["\n".join(smi_query_lines(c)) + "\n"],
    "nvidia-smi-csv": lambda c: ["\n".join(smi_csv_lines(c)) + "\n"],
    "kubectl-pod": pod_texts,
    "docker-inspect": docker_texts,
}


def _public_leaves(record: BaseModel) -> Iterator[tuple[str, Any, Any]]:
    """``(path, field info, value)`` of every public field, nested records walked."""
    for name, info in type(record).model_fields.items():
        value = getattr(record, name)
        items = value if isinstance(value, list) else [value]
        if any(isinstance(item, BaseModel) for item in items):
            for item in items:
                yield from _public_leaves(item)
            continue
        classed = publication_of(info)
        if classed is not None and classed.publication is Publication.PUBLIC and value is not None:
            yield f"{type(record).__name__}.{name}", info, value


def _fits(text: str, info: Any, key: str | None) -> bool:
    for leaf in string_leaves(info.annotation, tuple(info.metadata)):
        if leaf.kind == "literal" and text in leaf.words:
            return True
        if leaf.kind == "shape" and re.fullmatch(leaf.shape.pattern, text):
            return True
        if leaf.kind == "words" and leaf.vocabulary.fits(text):
            return True
        if leaf.kind == "checked" and key is not None and key in LABELS and LABELS[key].fits(text):
            return True
    return False


def assert_public_strings_fit(record: BaseModel) -> None:
    for where, info, value in _public_leaves(record):
        pairs = value.items() if isinstance(value, dict) else [(None, v) for v in (value if isinstance(value, list) else [value])]
        for key, item in pairs:
            if key is not None:
                assert _fits(key, info, None), (where, key)
            if isinstance(item, str):
                assert _fits(item, info, key), (where, key, item)


def _read(reader: FormatReader, text: str) -> BaseModel:
    return reader.read(text.splitlines(keepends=True), "logs/planted")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(TEMPLATES)), canary=CANARY)
def test_a_planted_private_value_never_reaches_a_public_field(name: str, canary: str) -> None:
    reader = BY_NAME[name]
    for text in TEMPLATES[name](canary):
        record = _read(reader, text)
        assert not leaks(record, [canary]), (name, canary)
        assert_public_strings_fit(record)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reader=st.sampled_from(READERS), text=st.text(max_size=2000))
def test_arbitrary_text_never_raises_and_every_public_string_fits(reader: FormatReader, text: str) -> None:
    assert_public_strings_fit(_read(reader, text))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(TEMPLATES)), lines=st.lists(st.integers(min_value=0), min_size=1, max_size=30), canary=CANARY)
def test_template_lines_shuffled_and_mixed_still_leak_nothing(name: str, lines: list[int], canary: str) -> None:
    pool = "".join(TEMPLATES[name](canary)).splitlines(keepends=True)
    text = "".join(pool[i % len(pool)] for i in lines)
    record = _read(BY_NAME[name], text)
    assert not leaks(record, [canary])
    assert_public_strings_fit(record)


def test_the_canary_is_no_public_word() -> None:
    assert not any(word.startswith("zq") for word in public_words())


def test_the_planted_value_is_read_as_an_identity_so_the_property_is_not_vacuous() -> None:
    canary = "zqhost-07.acme"
    for name, template in TEMPLATES.items():
        found = set().union(*(identities(_read(BY_NAME[name], text)) for text in template(canary)))
        assert any(canary in value for value in found), name
