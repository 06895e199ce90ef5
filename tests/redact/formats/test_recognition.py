"""Recognition is conservative: a file is read only when its content clearly is a reader's format.

Files of other kinds (the project's own docs, code and evidence, and what else operators paste:
``docker inspect``, ``kubectl describe``, Slurm, llama.cpp, ``nvidia-smi``'s table) are recognised
by no reader, so they stay withheld. A file's name does not make it any format.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.redact.formats import READERS, head_of

from ...conftest import REPO
from .. import corpus
from .records import SAMPLES

DEMO = next((REPO / "evidence").glob("2026-12-01-*")) / "cache-layout"

OTHER_FILES = [
    REPO / "README.md",
    REPO / "CHANGELOG.md",
    REPO / "docs" / "redaction.md",
    REPO / "docs" / "engines.md",
    REPO / "evidence_kit" / "redact" / "formats" / "vllm_log.py",
    REPO / "evidence_kit" / "redact" / "formats" / "prometheus_text.py",
    REPO / "evidence_kit" / "redact" / "formats" / "kubectl_pod.py",
    REPO / "evidence_kit" / "engine_sim" / "server.py",
    SAMPLES / "README.md",
    DEMO / "trial.json",
    DEMO / "manifest.json",
    *sorted((DEMO / "journals").iterdir())[:1],
    *sorted((DEMO / "telemetry").iterdir())[:1],
]

KUBECTL_DESCRIBE = """Name:             falcon-secret-70b-7d9f8c6b5-x2kqp
Namespace:        acme-llm-prod
Priority:         1000
Service Account:  vllm-runner
Node:             gpu-node-17.acme.internal/10.20.30.40
Start Time:       Sun, 01 Nov 2026 08:58:31 +0000
Labels:           app.kubernetes.io/name=falcon-secret-70b
Status:           Running
IP:               10.244.17.23
Containers:
  vllm-falcon:
    Image:          registry.acme.internal/ml/vllm-openai:v0.11.0-acme3
    Limits:
      nvidia.com/gpu:  2
    Environment:
      VLLM_API_KEY:  sk-acme-0f1e2d3c4b5a69788796a5b4
Events:
  Type    Reason   Age   From     Message
  ----    ------   ----  ----     -------
  Normal  Pulled   2m    kubelet  Container image "registry.acme.internal/ml/vllm-openai:v0.11.0-acme3" already present on machine
"""
SCONTROL = """JobId=4242 JobName=vllm-falcon
   UserId=jdoe(1001) GroupId=acme(1001) MCS_label=N/A
   Priority=4294901759 Nice=0 Account=acme-llm QOS=normal
   JobState=RUNNING Reason=None Dependency=(null)
   NodeList=gpu-node-[17-18] BatchHost=gpu-node-17
   TRES=cpu=32,mem=512G,node=2,billing=32,gres/gpu=4
   Command=/home/jdoe/jobs/serve-falcon.sbatch
   WorkDir=/scratch/jdoe/runs/2026-11-01
"""
SMI_TABLE = """Sun Nov  1 09:00:00 2026
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 570.133.20             Driver Version: 570.133.20     CUDA Version: 12.8     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
|   0  NVIDIA H100 80GB HBM3          On  |   00000000:18:00.0 Off |                    0 |
+-----------------------------------------+------------------------+----------------------+
"""
LLAMA_SERVER = """main: build = 4242 (1a2b3c4d)
srv    load_model: loading model '/home/jdoe/models/tiny.gguf'
srv    load_model: initializing, n_slots = 4, n_ctx_slot = 2048, kv_unified = 'false'
main: server is listening on http://127.0.0.1:8080 - starting the main loop
"""
QUOTED_IN_PROSE = """# Notes from Tuesday's run

The engine said this when it came up:

    INFO 11-01 09:00:13 [api_server.py:212] vLLM API server version 0.11.0

and its scrape began with a line like this one:

# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="falcon-secret"} 3

so the model is served as falcon-secret on gpu-node-17, and nothing else in this note is a log.
We will try a bigger KV cache next week, and a second GPU after that.
"""
GENERIC_CSV = "index, name, count\n0, gpu-node-17, 3\n1, gpu-node-18, 4\n"
DEPLOYMENT_YAML = (
    "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: falcon\nspec:\n  template:\n    spec:\n      containers:\n      - name: vllm\n"
)
NODE_JSON = '{\n    "apiVersion": "v1",\n    "kind": "Node",\n    "metadata": {"name": "gpu-node-17"}\n}\n'
PODS_WIDE = (
    "NAME                                READY   STATUS    RESTARTS   AGE   IP             NODE\n"
    "falcon-secret-70b-7d9f8c6b5-x2kqp   1/1     Running   1          5m    10.244.17.23   gpu-node-17\n"
)

OTHER_TEXTS = {
    "docker-inspect-partial.json": corpus.docker_inspect(),
    "docker-image-inspect.json": '[\n    {\n        "Id": "sha256:' + "0" * 64 + '",\n        "RepoTags": ["acme/vllm:1"]\n    }\n]\n',
    "kubectl-describe-pod.txt": KUBECTL_DESCRIBE,
    "scontrol-show-job.txt": SCONTROL,
    "nvidia-smi.txt": SMI_TABLE,
    "llama-server.log": LLAMA_SERVER,
    "notes.md": QUOTED_IN_PROSE,
    "gpus.csv": GENERIC_CSV,
    "deployment.yaml": DEPLOYMENT_YAML,
    "node.json": NODE_JSON,
    "pods.txt": PODS_WIDE,
    "empty.log": "",
    "blank.log": "\n\n   \n",
    "traceback.log": 'Traceback (most recent call last):\n  File "/home/jdoe/x.py", line 1, in <module>\nValueError: no\n',
}


@pytest.mark.parametrize("path", OTHER_FILES, ids=lambda p: str(p.relative_to(REPO)))
def test_the_projects_own_files_are_no_format(path: Path) -> None:
    head = head_of(path)
    assert [r.name for r in READERS if r.recognises(path.name, head)] == []


@pytest.mark.parametrize("name", sorted(OTHER_TEXTS))
def test_other_tools_output_is_no_format(name: str) -> None:
    assert [r.name for r in READERS if r.recognises(f"logs/{name}", OTHER_TEXTS[name])] == []


@pytest.mark.parametrize("reader", READERS, ids=lambda r: r.name)
def test_a_name_alone_makes_no_format(reader: object) -> None:
    for name in ("logs/vllm.log", "logs/nvidia-smi-q.txt", "logs/gpus.csv", "logs/metrics.txt", "logs/pod.json", "logs/pod.yaml"):
        for text in (QUOTED_IN_PROSE, GENERIC_CSV, "hello\n"):
            assert not reader.recognises(name, text)  # type: ignore[attr-defined]


def test_a_vllm_log_cut_to_its_first_lines_is_still_one() -> None:
    head = head_of(SAMPLES / "vllm-cpu-ngram.log")
    short = "\n".join(head.splitlines()[:12])
    assert [r.name for r in READERS if r.recognises("logs/x.log", short)] == ["vllm-startup-log"]


def test_a_vllm_log_whose_head_is_mostly_uvicorns_access_lines_is_still_one() -> None:
    head = head_of(SAMPLES / "vllm-cpu-ngram.log")
    access = '(APIServer pid=11436) INFO:     10.20.30.40:51234 - "POST /v1/completions HTTP/1.1" 200 OK\n' * 2000
    assert [r.name for r in READERS if r.recognises("logs/x.log", head + access)] == ["vllm-startup-log"]
