"""vLLM's start-up log: engine settings and KV cache public, who it serves as identities.

Reads the lines ``vllm serve`` (or ``python -m vllm.entrypoints.openai.api_server``, or the
simulator) prints, in any of vLLM's line formats since 0.5: ``INFO 12-03 13:27:02 [api_utils.py:286]
msg``, with or without a ``(EngineCore pid=N)`` prefix or the brackets. Only the messages below are
read; every other line is counted by level, and a traceback by the exception it ends in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ...model.dialects import DIALECTS
from ...model.formats.vllm import VllmStartup
from .build import build
from .lines import cleaned
from .reader import Example, FormatReader
from .values import LISTEN, endpoint_parts, is_path, place_host
from .vllm_settings import Found, engine_config, non_default

__all__ = ["READER"]

LINE = re.compile(
    r"^(?:\((?P<proc>[\w.-]{1,40}) pid=\d{1,10}\)\s+)?(?P<level>DEBUG|INFO|WARNING|ERROR|CRITICAL) "
    r"(?P<stamp>\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})?) \[?(?P<src>[\w.\-/]{1,120}(?::\d{1,6})?)\] ?(?P<msg>.*)$"
)
MARKERS = re.compile(
    r"vLLM API server version |non-default args: \{|Initializing an? (?:V1 )?LLM engine|[\u2580-\u259f]\s+version \d|Starting vLLM (?:API )?server"
)
TRACEBACK = "Traceback (most recent call last):"
EXCEPTION = re.compile(r"^(?:[\w.]{1,200}\.)?(?P<name>[A-Za-z_]\w{0,80})(?::|$)")


def _set(section: str, key: str, group: str, convert: Callable[[str], Any]) -> Callable[[Found, re.Match[str]], None]:
    def handler(found: Found, match: re.Match[str]) -> None:
        getattr(found, section)[key] = convert(match[group])

    return handler


def _count(text: str) -> int:
    return int(text.replace(",", "").replace("_", ""))


def _gib(text: str) -> int:
    return round(float(text) * 2**30)


def _serving(found: Found, match: re.Match[str]) -> None:
    found.top["ready"] = True
    host, port = endpoint_parts(match["where"])
    if host is None:
        found.top["endpoint"] = match["where"]
        return
    found.server(host, port)
    if host not in LISTEN:  # an address that names a machine is an identity, whole and by its host
        found.top["endpoint"] = match["where"]


def _concurrency(found: Found, match: re.Match[str]) -> None:
    found.kv["concurrency_tokens_per_request"] = _count(match["per"])
    found.kv["max_concurrency"] = float(match["x"])


def _kv_tokens(found: Found, match: re.Match[str]) -> None:
    found.kv["tokens"] = _count(match["tokens"])
    if match["device"]:
        found.kv["device"] = match["device"]


def _simulated_identity(found: Found, match: re.Match[str]) -> None:
    found.top.update(image=match["image"], container=match["container"])
    place_host(found.top, match["host"])


def _simulated_speculation(found: Found, match: re.Match[str]) -> None:
    found.spec.update(method=match["method"], num_speculative_tokens=int(match["k"]))
    if match["draft"]:
        found.spec["draft_model_path" if is_path(match["draft"]) else "draft_model"] = match["draft"]
        found.spec["draft_kv_cache_dtype"] = match["draft_kv"]


def _version(found: Found, match: re.Match[str]) -> None:
    found.top["version"] = match["version"]
    if match.groupdict().get("simulated"):
        found.top["simulated"] = True


_CAPACITY = DIALECTS["vllm"].capacity_log[0]  # "KV cache size: N tokens", as the collector reads it
# (a text every message the handler reads holds, the pattern it reads, what it does with a match): the
# needle spares most lines (a long log is mostly request lines) every pattern but one substring test.
HANDLERS: tuple[tuple[str, re.Pattern[str], Callable[[Found, re.Match[str]], None]], ...] = (
    ("vLLM API server version", re.compile(r"vLLM API server version (?P<version>\S{1,80})(?P<simulated> \(SIMULATED by evidence-kit)?"), _version),
    ("version", re.compile(r"[\u2580-\u259f]\s+version\s+(?P<version>\S{1,80})\s*$"), _version),
    ("model", re.compile(r"[\u2580-\u259f]\s+model\s+(?P<model>\S.{0,4000}?)\s*$"), lambda f, m: f.model("model", m["model"])),
    ("non-default args: ", re.compile(r"non-default args: (?P<dict>\{.*\})\s*$"), lambda f, m: non_default(f, m["dict"])),
    (
        "LLM engine (",
        re.compile(r"Initializing an? (?:V1 )?LLM engine \(v(?P<version>[^)\s]{1,80})\) with config: (?P<config>.*)$"),
        lambda f, m: engine_config(f, m["version"], m["config"]),
    ),
    (
        "Available KV cache memory",
        re.compile(r"Available KV cache memory: [\d.]+ Gi?B \((?P<bytes>\d{1,20}) bytes\)"),
        _set("kv", "memory_bytes", "bytes", int),
    ),
    (
        "Available KV cache memory",
        re.compile(r"Available KV cache memory: (?P<gib>\d{1,9}(?:\.\d{1,9})?) GiB$"),
        _set("kv", "memory_bytes", "gib", _gib),
    ),
    (
        "Explicitly set (",
        re.compile(r"Explicitly set \((?P<gib>\d{1,9}(?:\.\d{1,9})?)/[\d.]+\) GiB for KV cache"),
        _set("kv", "memory_bytes", "gib", _gib),
    ),
    ("# GPU blocks", re.compile(r"# GPU blocks: (?P<blocks>\d{1,12})"), _set("kv", "blocks", "blocks", int)),
    ("KV cache size", re.compile(rf"(?:(?P<device>GPU|CPU|XPU|TPU|HPU) )?{_CAPACITY}"), _kv_tokens),
    (
        "Maximum concurrency",
        re.compile(r"Maximum concurrency for (?P<per>[\d,_]{1,20}) tokens per request: (?P<x>\d{1,12}(?:\.\d{1,6})?)x"),
        _concurrency,
    ),
    ("Using max model len", re.compile(r"Using max model len (?P<n>\d{1,12})"), _set("settings", "max_model_len", "n", int)),
    (
        "init engine",
        re.compile(r"init engine \(profile, create kv cache, warmup model\) took (?P<s>\d{1,9}(?:\.\d{1,6})?) s"),
        _set("top", "init_engine_seconds", "s", float),
    ),
    ("Loading weights took", re.compile(r"Loading weights took (?P<s>\d{1,9}(?:\.\d{1,6})?) s"), _set("top", "weights_load_seconds", "s", float)),
    (
        "backend",
        re.compile(r"Using (?:AttentionBackendEnum\.|_Backend\.)?(?P<b>[A-Z][A-Z0-9_]{1,40}) (?:attention )?backend"),
        _set("settings", "attention_backend", "b", str),
    ),
    ("Starting vLLM", re.compile(r"Starting vLLM (?:API )?server(?: \d+)? on (?P<where>\S{1,4000})"), _serving),
    (
        "Speculative decoding: ",
        re.compile(
            r"Speculative decoding: method=(?P<method>\w{1,40}), num_speculative_tokens=(?P<k>\d{1,6})"
            r"(?:, draft model (?P<draft>\S{1,4000}), draft KV (?P<draft_kv>\w{1,40}))?"
        ),
        _simulated_speculation,
    ),
    (
        "image: ",
        re.compile(r"^image: (?P<image>[^;]{1,4000}); host: (?P<host>[^;]{1,4000}); container id: (?P<container>\S{1,4000})$"),
        _simulated_identity,
    ),
    (
        "Simulated time scale",
        re.compile(r"^Simulated time scale: (?P<x>\d{1,9}(?:\.\d{1,9})?)x faster"),
        _set("top", "simulated_time_scale", "x", float),
    ),
    ("(simulated)", re.compile(r"^GPU \d{1,4}: (?P<gpu>\S{1,4000}) \(simulated\)$"), lambda f, m: f.top.setdefault("gpus", []).append(m["gpu"])),
)


def _vllm_line(found: Found, match: re.Match[str]) -> None:
    level = match["level"].lower()
    found.log[level] = found.log.get(level, 0) + 1
    found.log.setdefault("first_time", match["stamp"])
    found.log["last_time"] = match["stamp"]
    message = match["msg"]
    for needle, pattern, handler in HANDLERS:
        if needle in message and (hit := pattern.search(message)):
            handler(found, hit)


def _traceback(found: Found, text: str) -> None:
    """Count tracebacks (bare, or each line logged by vLLM's logger) and name the exception each ends in."""
    if text.endswith(TRACEBACK):
        found.log["tracebacks"] += 1
        found.in_traceback = True
    elif found.in_traceback and text and not text[0].isspace():
        found.in_traceback = False
        hit = EXCEPTION.match(text)
        if hit:
            found.log["last_exception"] = hit["name"]


def read(lines: Iterable[str], path: str) -> VllmStartup:
    """The start-up facts of one vLLM log."""
    found = Found()
    for line in cleaned(lines):
        found.log["lines"] += 1
        match = LINE.match(line)
        if match:
            _vllm_line(found, match)
        else:
            found.log["other"] += 1
            if "Application startup complete." in line:  # uvicorn's, in its own format
                found.top["ready"] = True
        _traceback(found, match["msg"] if match else line)
    data = dict(found.top, settings=found.settings, kv_cache=found.kv, log=found.log)
    if found.spec:
        data["speculative"] = found.spec
    record, withheld = build(VllmStartup, data)
    return record.model_copy(update={"log": record.log.model_copy(update={"values_withheld": withheld})})


_PROCESS = re.compile(r"^\([\w.-]{1,40} pid=\d{1,10}\)\s+")
# Lines of a vLLM log that are not vLLM's own format but no other file's either: uvicorn's
# (access lines too), a traceback's, a continuation's.
_NEUTRAL = ("Traceback", "INFO:", "WARNING:", "ERROR:", "DEBUG:", "CRITICAL:")


def recognises(path: str, head: str) -> bool:
    """A vLLM log: a message only vLLM (or its simulator) prints, in a file most of whose lines are
    vLLM's (uvicorn's lines, a traceback's and indented ones count for neither side)."""
    marked, ours, theirs = False, 0, 0
    for line in list(cleaned(head.splitlines()[:4000]))[:1000]:
        match = LINE.match(line)
        if match:
            ours += 1
            marked = marked or MARKERS.search(match["msg"]) is not None
            continue
        bare = _PROCESS.sub("", line, count=1)
        if bare.strip() and not bare[0].isspace() and not bare.startswith(_NEUTRAL):
            theirs += 1
    return marked and ours >= theirs


READER = FormatReader(
    name="vllm-startup-log",
    summary="vLLM's start-up log (vllm serve, the OpenAI API server, the simulator): version, engine settings, KV cache",
    record=VllmStartup,
    recognises=recognises,
    read=read,
    examples=(
        Example(
            text=(
                "(APIServer pid=11436) INFO 12-03 13:27:02 [api_utils.py:347]  \u2584\u2584 \u2584\u2588 \u2588     \u2588  version 0.32.0\n"
                "(APIServer pid=11436) INFO 12-03 13:27:02 [api_utils.py:286] non-default args: {'host': '127.0.0.1', 'port': 8000, "
                "'model': '/home/jdoe/models/falcon-secret-70b', 'max_model_len': 32768, 'served_model_name': ['falcon-secret'], "
                "'kv_cache_dtype': 'fp8', 'speculative_config': {'method': 'ngram', 'num_speculative_tokens': 3}}\n"
            ),
            expect={
                "version": "0.32.0",
                "listen": "127.0.0.1",
                "port": 8000,
                "model_path": "/home/jdoe/models/falcon-secret-70b",
                "served_model_name": ["falcon-secret"],
                "settings": {"max_model_len": 32768, "kv_cache_dtype": "fp8"},
                "speculative": {"method": "ngram", "num_speculative_tokens": 3},
            },
        ),
        Example(
            text=(
                "(EngineCore pid=11719) INFO 12-03 13:27:24 [core.py:133] Initializing a V1 LLM engine (v0.32.0) with config: "
                "model='acme/falcon-secret-70b', speculative_config=None, tokenizer='acme/falcon-secret-70b', revision=1f0e9d8c, "
                "dtype=torch.bfloat16, max_seq_len=4096, tensor_parallel_size=2, kv_cache_dtype=auto, device_config=cuda, "
                "served_model_name=falcon-secret, enable_prefix_caching=True\n"
                "(EngineCore pid=11719) INFO 12-03 13:28:39 [kv_cache_utils.py:2327] GPU KV cache size: 1,330,576 tokens\n"
                "(EngineCore pid=11719) INFO 12-03 13:28:39 [kv_cache_utils.py:2331] Maximum concurrency for 4,096 tokens per request: 324.85x\n"
            ),
            expect={
                "version": "0.32.0",
                "engine_starts": 1,
                "model": "acme/falcon-secret-70b",
                "revision": "1f0e9d8c",
                "settings": {"dtype": "bfloat16", "max_model_len": 4096, "tensor_parallel_size": 2, "kv_cache_dtype": "auto", "device": "cuda"},
                "kv_cache": {"tokens": 1330576, "device": "GPU", "max_concurrency": 324.85, "concurrency_tokens_per_request": 4096},
            },
        ),
        Example(
            text=(
                "INFO 12-03 13:27:14 [vllm.py:1605] Starting vLLM API server 0 on http://gpu-07.lab.example:8000\n"
                "WARNING 12-03 13:27:37 [cpu_worker.py:114] libtcmalloc is not found. See https://docs.vllm.ai/en/latest/ for help.\n"
                "Traceback (most recent call last):\n"
                '  File "/home/jdoe/venv/lib/python3.11/site-packages/vllm/engine/arg_utils.py", line 2240, in create_engine_config\n'
                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB on gpu-07\n"
            ),
            expect={
                "ready": True,
                "host": "gpu-07.lab.example",
                "port": 8000,
                "endpoint": "http://gpu-07.lab.example:8000",
                "log": {"lines": 5, "info": 1, "warning": 1, "other": 3, "tracebacks": 1, "last_exception": "OutOfMemoryError"},
            },
        ),
    ),
)
