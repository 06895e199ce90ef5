"""A planted-canary raw corpus: a valid raw trial whose every private identity is fabricated.

Every canary sits somewhere an operator would not think of: JSON keys, ``\\u``- and
``\\/``-escaped strings, URL-encoded query strings, file names, engine logs,
``nvidia-smi -q`` output, ``docker inspect`` JSON, telemetry keyed by GPU UUID.
Journals are built from the contract models so ``load_trial`` accepts them.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import quote

from evidence_kit.model import ArmRef, DecisionRule, Footer, Header, Request, Run, Trial, Workload

MODEL = "acme-labs/falcon-secret-70b"
SERVED = "falcon-prod-internal"
REVISION = "3f9c2a7d4e1b8c6a0f5d2e9b7a4c1d8e6f3a2b5c"
HOST = "gpu-node-17.lab.acme-corp.internal"
ENDPOINT = f"http://{HOST}:8123/v1"
IMAGE = "registry.acme-corp.internal:5000/inference/vllm-fork:v0.11.1-acme3"
GPUS = ("GPU-5b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e", "GPU-a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d")
CONTAINER = "9d4c7e2a1b3f5d6e8a0c2b4d6f8e0a1c3b5d7f9e1a2c4b6d8f0e2a4c6b8d0f1e"
FINGERPRINT = "c0ffee5eed1234567890abcdef0123456789abcdef0123456789abcdef012345"
MODEL_PATH = "/data/models/models--acme-labs--falcon-secret-70b/snapshots/" + REVISION
USER = "jdoe-ops"
# Values the operator never listed: the detectors must catch them.
SERIAL = "1652020012345"
TOKEN = "hf_QzXwVbNmLkJhGfDsAqWeRtYuIoP12345"
EMAIL = "jdoe@acme-corp.com"
LAN_IP = "10.20.30.40"
IPV6 = "fe80::1c2d:3e4f:5a6b:7c8d"
MAC = "02:42:ac:11:00:03"
# The classes that once got through (issue 10), planted where real logs put them.
GPU_SERIAL = 1322021012345  # a number under `private`
SPACED_PATH = "/srv/projects/Project Bluebird/ckpt-falcon-secret"  # a path holding a space
SHORT_HOST = "gpu-07.cluster.acme-corp.internal"  # its short name looks like a pseudonym
RACK = "dgx-b200-rack4"  # a host used as a key under `private`
PEER_IP = "10.20.30.41"

PRIVATE = {
    "model": MODEL,
    "served_model_name": SERVED,
    "revision": REVISION,
    "endpoint": ENDPOINT,
    "image": IMAGE,
    "gpu_uuids": list(GPUS),
    "host": HOST,
    "container_id": CONTAINER,
    "config_fingerprint": FINGERPRINT,
    "model_path": MODEL_PATH,
    "gpu_serial": GPU_SERIAL,
    "tensor_parallel_size": 2,
    "checkpoint_dir": SPACED_PATH,
    "jump_host": SHORT_HOST,
    "per_host": {RACK: {"gpus": 8}},
    "peer_ip": PEER_IP,
}

# Every spelling that must not survive anywhere (content or file names, any case, any escape).
CANARIES = (
    MODEL,
    "models--acme-labs--falcon-secret-70b",
    "falcon-secret-70b",
    "acme-labs",
    SERVED,
    REVISION,
    REVISION[:7],
    REVISION[:12],
    HOST,
    "gpu-node-17",
    "lab.acme-corp.internal",
    ENDPOINT,
    "registry.acme-corp.internal",
    "vllm-fork",
    *GPUS,
    *(g[4:] for g in GPUS),
    CONTAINER,
    CONTAINER[:12],
    FINGERPRINT,
    MODEL_PATH,
    USER,
    SERIAL,
    TOKEN,
    EMAIL,
    LAN_IP,
    "10-20-30-40",
    IPV6,
    MAC,
    str(GPU_SERIAL),
    "Bluebird",
    "ckpt-falcon-secret",
    "gpu-07",
    "cluster.acme-corp.internal",
    RACK,
    PEER_IP,
    "010.020.030.041",
    "0x0a.0x14.0x1e.0x29",
)

# Public words that must survive (false-positive guards).
PUBLIC = ("0.11.1", "LlamaForCausalLM", "Qwen3", "flash_attn", "KV cache size", "1330579", "bf16")


def _jsonl(records: list[object]) -> str:
    lines = []
    for record in records:
        data = record.model_dump(by_alias=True, exclude_none=False) if hasattr(record, "model_dump") else record
        lines.append(json.dumps(data))
    return "\n".join(lines) + "\n"


def _journal(trial: Trial, ref: ArmRef, scale: float, extra_private: dict[str, object]) -> str:
    private = PRIVATE | extra_private
    header = Header(
        type="header",
        schema="evidence-kit/journal/v1",
        trial_id=trial.trial_id,
        arm=ref.arm,
        phase=ref.phase,
        seq=ref.seq,
        started_at=f"2026-11-01T0{ref.seq}:00:00Z",
        engine={"kv_token_slots": 1330579},
        private=private,
    )
    records: list[object] = [header]
    total = timed = 0
    for group, (size, conc) in enumerate(trial.workload.groups()):
        for rep in range(1, trial.workload.repetitions + 1):
            run = f"r{rep}-{size}-c{conc}"
            ok = 0
            for index in range(trial.workload.requests_per_run):
                failed = group == 1 and rep == 2 and index == 0 and ref.phase == "candidate"
                e2e = round(scale * (1.0 + 0.37 * group + 0.011 * index + 0.003 * rep), 6)
                records.append(
                    Request(
                        type="request",
                        run=run,
                        repetition=rep,
                        input_nominal=size,
                        concurrency=conc,
                        index=index,
                        warmup=False,
                        ok=not failed,
                        error=f"connection reset by {ENDPOINT}/chat/completions" if failed else None,
                        prompt_tokens=6066 + index,
                        completion_tokens=812 + 3 * index,
                        e2e_s=None if failed else e2e,
                        ttft_s=round(e2e / 9, 6),
                        ttft_content_s=round(e2e / 3, 6),
                        finish_reason="stop",
                    )
                )
                ok += not failed
                total += 1
                timed += 1
            records.append(
                Run(
                    type="run",
                    run=run,
                    repetition=rep,
                    input_nominal=size,
                    concurrency=conc,
                    requests=trial.workload.requests_per_run,
                    ok=ok,
                    reconciled=True,
                    counters={"requests": (120.0, 124.0), "prompt_tokens": (700000.0, 724264.0)},
                )
            )
    records.append(Footer(type="footer", ended_at="2026-11-01T09:20:00Z", requests=total, timed_requests=timed))
    return _jsonl(records)


def engine_log() -> str:
    return (
        "\n".join(
            [
                "INFO 11-01 09:00:01 api_server.py:585] vLLM API server version 0.11.1",
                f"INFO 11-01 09:00:01 api_server.py:586] args: Namespace(model='{MODEL_PATH}', "
                f"served_model_name=['{SERVED}'], host='{HOST}', port=8123)",
                "INFO 11-01 09:00:02 config.py:1020] Resolved architecture: LlamaForCausalLM; attention backend flash_attn",
                f"INFO 11-01 09:00:03 model_runner.py:1071] Loading weights from {MODEL_PATH}/model-00001-of-00004.safetensors",
                f"INFO 11-01 09:00:04 worker.py:266] Using {GPUS[0]} on {HOST.split('.')[0]} (bf16)",
                "INFO 11-01 09:00:05 gpu_executor.py:122] KV cache size: 1330579 tokens, ~1.234567e+16 bytes budget",
                f"INFO 11-01 09:00:06 launcher.py:28] Route: http://router.internal/route?model={quote(MODEL, safe='')}&x=1",
                f"INFO 11-01 09:00:07 launcher.py:29] Uvicorn running on http://{LAN_IP}:8123 (container {CONTAINER[:12]})",
                f"INFO 11-01 09:00:08 launcher.py:30] peer ip-10-20-30-40.ec2.internal at {IPV6}%eth0, mac {MAC}",
                f"INFO 11-01 09:00:09 auth.py:12] token={TOKEN} Authorization: Bearer sk-live-0123456789abcdefABCDEF",
                f"WARNING 11-01 09:00:10 notice.py:3] mail {EMAIL}; image {IMAGE}; commit {REVISION[:7]} on Qwen3 tests",
                f"INFO 11-01 09:00:11 cache.py:9] HF cache /home/{USER}/.cache/huggingface/hub at C:\\Users\\{USER}\\models",
                f"INFO 11-01 09:00:12 upper.py:1] {MODEL.upper()} served as {SERVED.upper()}",
                f"INFO 11-01 09:00:13 ops.py:1] board serial {GPU_SERIAL}; ssh gpu-07 nvidia-smi; {RACK} up",
                "INFO 11-01 09:00:14 ckpt.py:2] loading Bluebird/ckpt-falcon-secret from /srv/projects/Project\\ Bluebird",
                "INFO 11-01 09:00:15 hidden.py:3] node gpu\u200b-node-17 on \uff41\uff43\uff4d\uff45-labs/falcon-se\u00adcret-70b",
                "INFO 11-01 09:00:16 peer.py:4] peer 010.020.030.041 (0x0a.0x14.0x1e.0x29), PTR 41.30.20.10.in-addr.arpa",
                f"INFO 11-01 09:00:17 secret.py:5] k8s data: {base64.b64encode(('endpoint=' + ENDPOINT).encode()).decode()}",
            ]
        )
        + "\n"
    )


def nvidia_smi() -> str:
    blocks = []
    for index, gpu in enumerate(GPUS):
        blocks.append(
            "\n".join(
                [
                    f"GPU 00000000:0{index + 1}:00.0",
                    "    Product Name                          : NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
                    f"    Serial Number                         : {int(SERIAL) + index}",
                    f"    GPU UUID                              : {gpu}",
                    "    Minor Number                          : 0",
                    "    VBIOS Version                         : 98.02.2E.00.05",
                    f"    Bus Id                                : 00000000:0{index + 1}:00.0",
                ]
            )
        )
    return "==============NVSMI LOG==============\n\nDriver Version : 580.82.07\n\n" + "\n\n".join(blocks) + "\n"


def docker_inspect() -> str:
    return (
        json.dumps(
            [
                {
                    "Id": CONTAINER,
                    "Created": "2026-11-01T08:59:00.123456789Z",
                    "Path": "python3",
                    "Args": ["-m", "vllm.entrypoints.openai.api_server", "--model", MODEL_PATH],
                    "Image": "sha256:" + FINGERPRINT,
                    "Name": "/vllm-falcon-secret-70b",
                    "Config": {"Hostname": CONTAINER[:12], "Image": IMAGE, "Env": [f"HF_TOKEN={TOKEN}", "CUDA_VISIBLE_DEVICES=0,1"]},
                    "Mounts": [{"Source": f"/home/{USER}/models", "Destination": "/models"}],
                    "NetworkSettings": {"IPAddress": LAN_IP, "MacAddress": MAC, "GlobalIPv6Address": IPV6},
                }
            ],
            indent=2,
        )
        + "\n"
    )


def telemetry() -> str:
    lines = []
    for step in range(5):
        sample = {"t": 1.5 * step, "gpus": {gpu: {"util": 90 + step, "mem_used_mib": 81234 + i} for i, gpu in enumerate(GPUS)}}
        lines.append(json.dumps(sample))
    # Escapes: \u-escaped served name, \/-escaped path, as a collector might write them.
    escaped_name = "".join(f"\\u{ord(c):04x}" for c in SERVED)
    lines.append('{"t": 9.0, "note": "served ' + escaped_name + '", "path": "' + MODEL_PATH.replace("/", "\\/") + '"}')
    return "\n".join(lines) + "\n"


def make_trial(trial_id: str = "cache-layout") -> Trial:
    arms = [
        ArmRef(seq=1, arm="original", role="control", phase="before", journal="journals/01-original-before.jsonl"),
        ArmRef(seq=2, arm="candidate", role="candidate", phase="candidate", journal="journals/02-candidate-candidate.jsonl"),
        ArmRef(seq=3, arm="original", role="control", phase="restored", journal="journals/03-original-restored.jsonl"),
    ]
    return Trial(
        schema="evidence-kit/trial/v1",
        trial_id=trial_id,
        title="Cache-layout trial",
        engine_kind="vllm",
        decision_rule=DecisionRule(min_improvement=0.10),
        workload=Workload(
            input_nominal=[8192, 32768], concurrency=[1, 4], repetitions=3, requests_per_run=4, max_tokens=4096, temperature=0.0, warmup_requests=0
        ),
        arms=arms,
    )


def make_raw_trial(root: Path, trial_id: str = "cache-layout") -> Path:
    """Write a raw trial folder full of canaries under ``root``; returns it."""
    trial = make_trial(trial_id)
    root.mkdir(parents=True, exist_ok=True)
    data = trial.model_dump(by_alias=True, exclude_none=True) | {"private": {"operator": EMAIL.replace("jdoe", "ops")}}
    (root / "trial.json").write_text(json.dumps(data, indent=2) + "\n")
    (root / "journals").mkdir(exist_ok=True)
    for scale, ref in zip((1.0, 0.93, 1.01), trial.arms):
        extra = {"arm_label": f"{SERVED}-{ref.arm}"}
        (root / ref.journal).write_text(_journal(trial, ref, scale, extra))
    (root / "logs").mkdir(exist_ok=True)
    (root / "logs" / f"{HOST.split('.')[0]}-engine.log").write_text(engine_log())
    (root / "logs" / "nvidia-smi-q.txt").write_text(nvidia_smi())
    (root / "logs" / "docker-inspect.json").write_text(docker_inspect())
    (root / "telemetry").mkdir(exist_ok=True)
    (root / "telemetry" / "gpus.jsonl").write_text(telemetry())
    (root / "telemetry" / f"{GPUS[1]}.jsonl").write_text(json.dumps({"t": 0.0, "power_w": 298.5}) + "\n")
    return root


CLEAN_NARRATIVE = '[narrative]\nwhy_it_matters = "The candidate pool grew."\ncaveat = "Small natural-output scouts."\n'
LEAKING_NARRATIVE = (
    "[narrative]\n"
    f'why_it_matters = "On {HOST} the {SERVED} pool grew."\n'
    'caveat = "Small natural-output scouts on gpu\\U0000002Dnode\\u002D17."\n'
    'background = """Served by acme-labs/falcon-sec\\\n    ret-70b."""\n'
)


def make_raw_decision(root: Path, narrative: str = CLEAN_NARRATIVE) -> Path:
    """A decision folder with two raw trials and a decision.toml (its prose naming private values, with
    ``LEAKING_NARRATIVE``)."""
    make_raw_trial(root / "cache-layout", "cache-layout")
    make_raw_trial(root / "dflash", "dflash")
    (root / "decision.toml").write_text(
        'id = "2026-11-01-cache-layout-and-dflash"\n'
        'date = "2026-11-01"\n'
        'title = "Cache-layout and DFlash scouts: retain the current configuration"\n'
        'trials = ["cache-layout", "dflash"]\n\n' + narrative
    )
    return root
