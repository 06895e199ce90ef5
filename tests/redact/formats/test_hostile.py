"""Hostile content: a reader never raises, stays bounded, and puts no raw text in a public field.

Colour codes, CRLF, docker's json-file wrapping, huge lines, deep nesting, YAML aliases, files
cut short at any byte, and a 200 MB stream (read in bounded memory: readers take an iterable of
lines, and ``lines_of`` reads a line of any length in bounded pieces).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evidence_kit.redact.formats import MAX_LINE, READERS, FormatReader, lines_of

from ...conftest import REPO
from .records import SAMPLES, leaks
from .test_samples import ACME_PRIVATE, BY_NAME, VLLM, VLLM_PRIVATE

SAMPLE_OF = {
    "vllm-startup-log": "vllm-cpu-ngram.log",
    "prometheus-text": "prometheus-federate.txt",
    "nvidia-smi-query": "nvidia-smi-q-h100.txt",
    "nvidia-smi-csv": "nvidia-smi-query.csv",
    "kubectl-pod": "kubectl-get-pod.json",
    "docker-inspect": "docker-inspect.json",
}
PRIVATE = VLLM_PRIVATE + ACME_PRIVATE


def _read(reader: FormatReader, text: str) -> object:
    return reader.read(text.splitlines(keepends=True), "logs/x")


def _plain(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def test_colour_crlf_and_docker_json_wrapping_read_as_the_plain_log() -> None:
    plain = _plain("vllm-cpu-ngram.log")
    want = _read(VLLM, plain)
    colour = "".join(
        line.replace(" INFO ", " \x1b[32mINFO\x1b[0m ", 1).replace(" WARNING ", " \x1b[1;33mWARNING\x1b[0m ", 1) for line in plain.splitlines(True)
    )
    crlf = plain.replace("\r\n", "\n").replace("\n", "\r\n")
    wrapped = [{"log": line, "stream": "stdout", "time": "2026-11-01T09:00:00.000000001Z"} for line in plain.splitlines(True)]
    docker = "".join(json.dumps(record, separators=(",", ":")) + "\n" for record in wrapped)
    spaced = "".join(json.dumps(record) + "\n" for record in wrapped)
    for text in (colour, crlf, docker, spaced):
        assert _read(VLLM, text) == want


def test_a_colour_code_or_a_json_escape_next_to_a_private_value_leaks_nothing() -> None:
    lines = [
        "INFO 12-03 13:27:02 [api_utils.py:286] non-default args: {'host': '\x1b[1m10.20.30.40\x1b[0m', 'model': '/home/jdoe/m'}\n",
        "INFO 12-03 13:27:02 [x.py:1] Starting vLLM API server 0 on http://gpu-node-17.acme.internal:8000\\nnext jdoe\n",
        "INFO 12-03 13:27:02 [x.py:1] Using \x1b[31mgpu-node-17\x1b[0m backend\n",
        "INFO 12-03 13:27:02 [api_utils.py:347]  \u2584\u2584 \u2584\u2588 \u2588  version 0.32.0\\n/home/jdoe\n",
    ]
    record = VLLM.read(lines, "logs/x.log")
    assert not leaks(record, PRIVATE + ["\x1b", "\\n"])


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.name)
def test_a_sample_cut_short_anywhere_reads_without_raising_or_leaking(reader: FormatReader) -> None:
    text = _plain(SAMPLE_OF[reader.name])
    for cut in range(0, len(text), max(1, len(text) // 60)):
        assert not leaks(_read(reader, text[:cut]), PRIVATE)  # type: ignore[arg-type]


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.name)
def test_huge_lines_non_ascii_and_nesting_are_read_quickly(reader: FormatReader) -> None:
    prefix = "INFO 12-03 13:27:02 [api_utils.py:286] non-default args: "
    texts = [
        "A" * (4 * MAX_LINE) + "\n",
        prefix + "{'a': " * 50_000 + "1" + "}" * 50_000 + "\n",
        prefix + "{'model': '" + "\\" * MAX_LINE + "'}\n",
        "[" * 100_000 + "]" * 100_000,
        '{"apiVersion": "v1", "kind": "Pod", "spec": ' + "[" * 100_000 + "]" * 100_000 + "}",
        "vllm:num_requests_running{" + 'le="1",' * 20_000 + "} 1\n",
        "\u202e\u200b\ufeffGPU 00000000:01:00.0\n    Product Name : NVIDIA \u0660\u0661\n" * 1000,
        "name, uuid\n" + ("\u00e9" * 5000 + ", GPU-" + "0" * 5000 + "\n") * 50,
        "\x00\x01\x02" * 10_000,
    ]
    for text in texts:
        start = time.monotonic()
        record = _read(reader, text)
        assert not leaks(record, ["AAAA", "\\\\\\\\", "\u00e9\u00e9", "\x00"]), text[:40]  # type: ignore[arg-type]
        assert time.monotonic() - start < 30, text[:40]


def test_yaml_aliases_cannot_make_the_pod_reader_unbounded() -> None:
    bomb = "apiVersion: v1\nkind: List\na: &a [x, x, x, x, x, x, x, x, x, x]\n"
    for level in "bcdefghi":
        bomb += f"{level}: &{level} [" + ", ".join([f"*{chr(ord(level) - 1)}"] * 10) + "]\n"
    bomb += "items: [" + ", ".join(["*i"] * 10) + "]\n"
    start = time.monotonic()
    record = BY_NAME["kubectl-pod"].read(bomb.splitlines(keepends=True), "logs/pod.yaml")
    assert time.monotonic() - start < 30
    assert record.pods == []  # type: ignore[attr-defined]


def test_lines_of_reads_a_line_of_any_length_in_bounded_pieces(tmp_path: Path) -> None:
    path = tmp_path / "one-line.log"
    path.write_bytes(b"INFO " + b"x" * (5 * MAX_LINE) + b"\nsecond\r\nthird\rstill third\n")
    lines = list(lines_of(path))
    assert [len(line) for line in lines] == [MAX_LINE, len("second\r\n"), len("third\rstill third\n")]


def test_lines_of_drops_half_a_character_at_the_cut_and_refuses_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "cut.log"
    path.write_bytes(b"x" * (MAX_LINE - 1) + "é".encode() + b"rest\nnext\n")
    assert [len(line) for line in lines_of(path)] == [MAX_LINE - 1, len("next\n")]
    path.write_bytes(b"fine\n\xff\xfe not text\n")
    with pytest.raises(UnicodeDecodeError):
        list(lines_of(path))


STREAM = """
import itertools, resource, sys
from pathlib import Path
from evidence_kit.redact.formats import READERS
name, sample, megabytes = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
head = sample.read_text(encoding="utf-8").splitlines(keepends=True)
# A vLLM log grows by its request log; other files by repeating themselves (a scrape every interval, a -l loop).
body = [
    "(APIServer pid=11436) INFO 12-03 13:28:52 [loggers.py:259] Engine 000: Avg prompt throughput: 12.3 tokens/s, "
    "Avg generation throughput: 45.6 tokens/s, Running: 2 reqs, Waiting: 0 reqs, GPU KV cache usage: 1.2%\\n",
    '(APIServer pid=11436) INFO:     127.0.0.1:51234 - "POST /v1/completions HTTP/1.1" 200 OK\\n',
] if name == "vllm-startup-log" else head
def stream():
    total = 0
    for line in itertools.chain(head, itertools.cycle(body)):
        total += len(line)
        if total > megabytes * 2**20:
            return
        yield line
reader = next(r for r in READERS if r.name == name)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
reader.read(stream(), "logs/big")
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize(
    ("name", "megabytes"), [("vllm-startup-log", 200), ("prometheus-text", 30), ("nvidia-smi-query", 20), ("nvidia-smi-csv", 20)]
)
def test_a_huge_stream_is_read_in_bounded_memory(name: str, megabytes: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", STREAM, name, str(SAMPLES / SAMPLE_OF[name]), str(megabytes)], capture_output=True, text=True, cwd=REPO, check=True
    )
    grown_mib = int(done.stdout.strip())
    # What is kept is bounded (20,000 samples, 10,000 GPU rows); the stream itself is never held.
    assert grown_mib < 100, f"{name}: {megabytes} MB streamed grew the process by {grown_mib} MiB"
