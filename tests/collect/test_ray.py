"""Workers as Ray actors: a real local Ray head (``ray start --head`` on loopback) and trials collected through it."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from evidence_kit.analyze import analyze
from evidence_kit.read import load_trial
from evidence_kit.redact import known_values_from_raw, scan_tree

from ..redact.leakcheck import survivors
from .conftest import assert_workload_key_refused, write_plan
from .ray_head import RayHead, ray_head
from .test_workers import _every_request_once, _records, _wait_for_runs

# Ray is installed with the test tools (scripts/setup installs .[test,ray]); without it only the
# refusal below can be tested.
ray = pytest.importorskip("ray")


@pytest.fixture(scope="module")
def head() -> Iterator[RayHead]:
    with ray_head(cpus=2) as started:
        yield started


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evidence_kit", *args], capture_output=True, text=True, timeout=timeout)


def _shapes_without_private(out: Path) -> list[list[tuple[object, ...]]]:
    return [[(*row[:4], tuple(k for k in row[4] if k != "private")) for row in journal] for journal in _records(out)]


@pytest.mark.slow
def test_a_trial_through_a_local_ray_cluster_is_the_trial_local_workers_collect_and_it_verifies(tmp_path: Path, head: RayHead) -> None:
    shapes = {}
    for how in ("local", "ray"):
        plan = write_plan(tmp_path / f"plan-{how}.toml", workload={"workers": 2, "repetitions": 1})
        out = tmp_path / how / "t-small"
        done = _cli("collect", str(plan), "--out", str(out), "-q", *(["--ray", head.address] if how == "ray" else []))
        assert done.returncode == 0, done.stderr[-3000:]
        evidence = load_trial(out)
        for arm in evidence.arms:
            assert len(arm.runs) == 2 and all(run.reconciled for run in arm.runs)
            for run in arm.runs:
                assert run.client is not None and len(run.client.processes) == 3
                workers = run.client.processes[1:]
                private = run.private
                if how == "ray":
                    # On the collector's own node: one monotonic clock, the anchors placed exactly.
                    assert all(p.ray_node and p.t_send_bound_s == 0 for p in workers)
                    assert private and {n.node_ip for n in private.ray_nodes or []} == {p.ray_node for p in workers}
                else:
                    assert all(p.ray_node is None for p in workers) and not private
        trial = analyze(evidence).trials[0]
        assert trial.runs_reconciled == trial.runs_total == 6 and trial.client_runs_recorded == 6
        shapes[how] = _shapes_without_private(out)
    assert shapes["local"] == shapes["ray"]  # the same records in the same order with the same fields

    # The node's identities are private: typed identities, pseudonymised, and found by the scan in no published file.
    raw = tmp_path / "ray"
    (raw / "decision.toml").write_text('id = "ray-trial"\ndate = "2026-12-01"\ntitle = "Through Ray"\ntrials = ["t-small"]\n')
    node = json.loads(next(line for line in (raw / "t-small/journals/01-original-before.jsonl").read_text().splitlines() if '"type":"run"' in line))[
        "private"
    ]["ray_nodes"][0]
    known = {k.value: k.kind for k in known_values_from_raw(raw / "t-small")}
    assert known.get(node["node_ip"]) == "ip" and known.get(node["ray_node_id"]) == "fingerprint"
    bundle, private_map = tmp_path / "bundle", tmp_path / "map.json"
    assert _cli("redact", str(raw), "--out", str(bundle), "--map", str(private_map)).returncode == 0
    assert scan_tree(bundle, known_values=known_values_from_raw(raw / "t-small")) == []
    hunted = [node["ray_node_id"], node["ray_node_id"][:12]] + ([node["node_ip"]] if not node["node_ip"].startswith("127.") else [])
    assert survivors(bundle, hunted) == []
    assert _cli("keygen", "--out", str(tmp_path / "keys")).returncode == 0
    built = _cli(
        "build", str(bundle), "--out", str(tmp_path / "site"), "--known-values", str(private_map), "--sign", str(tmp_path / "keys/signing.key")
    )
    assert built.returncode == 0, built.stderr[-2000:]
    verified = _cli("verify", str(tmp_path / "site"), "--key", str(tmp_path / "keys/signing.pub"))
    assert verified.returncode == 0, verified.stdout[-2000:]


@pytest.mark.slow
def test_an_actor_killed_mid_run_is_one_line_and_resume_through_ray_loses_and_doubles_nothing(tmp_path: Path, head: RayHead) -> None:
    plan = write_plan(tmp_path / "plan.toml", workload={"repetitions": 3, "workers": 2})
    out = tmp_path / "raw"
    journal = out / "journals" / "01-original-before.jsonl"
    collector = subprocess.Popen(
        [sys.executable, "-m", "evidence_kit", "collect", str(plan), "--out", str(out), "-q", "--ray", head.address],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _wait_for_runs(journal, 1, collector)
    actors = head.actors()
    assert len(actors) == 2, actors
    os.kill(actors[1], signal.SIGKILL)
    _, err = collector.communicate(timeout=120)  # bounded: a dead actor never hangs the collector
    assert collector.returncode == 1, err
    assert "Ray actor" in err and "died" in err and "--resume" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert journal.read_bytes().endswith(b"\n")

    resumed = _cli("collect", str(plan), "--out", str(out), "-q", "--resume", "--ray", head.address)
    assert resumed.returncode == 0, resumed.stderr[-3000:]
    _every_request_once(out, 18)
    assert head.actors() == []  # every actor ended with its arm


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_unreachable_ray_address_is_one_line_exit_1_and_writes_nothing(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml")
    done = _cli("collect", str(plan), "--out", str(tmp_path / "raw"), "--ray", f"127.0.0.1:{_free_port()}", timeout=60)
    assert done.returncode == 1 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "no Ray cluster answers at 127.0.0.1:" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "raw").exists()


@pytest.mark.parametrize("value", ["localhost", "ray://10.0.0.1:10001", "a b:1", "10.0.0.1:port"])
def test_a_bad_ray_address_is_one_line_exit_2(tmp_path: Path, value: str) -> None:
    plan = write_plan(tmp_path / "plan.toml")
    done = _cli("collect", str(plan), "--out", str(tmp_path / "raw"), "--ray", value, timeout=60)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "--ray" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "raw").exists()
    assert_workload_key_refused(plan, "ray", json.dumps(value), "ray must be")


# Python run as the collector with ``import ray`` failing as it does where Ray is not installed.
_WITHOUT_RAY = """
import sys
class NoRay:
    def find_spec(self, name, path=None, target=None):
        if name == "ray" or name.startswith("ray."):
            raise ModuleNotFoundError("No module named 'ray'", name="ray")
sys.meta_path.insert(0, NoRay())
from evidence_kit.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_without_ray_installed_ray_is_one_line_exit_2(tmp_path: Path) -> None:
    plan = write_plan(tmp_path / "plan.toml")
    done = subprocess.run(
        [sys.executable, "-c", _WITHOUT_RAY, "collect", str(plan), "--out", str(tmp_path / "raw"), "--ray", "auto"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "pip install 'evidence-kit[ray]'" in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "raw").exists()


def test_the_kuberay_manifest_runs_the_ray_version_the_collector_pins() -> None:
    import yaml

    repo = Path(__file__).resolve().parents[2]
    pinned = next(line.split("==")[1] for line in (repo / "constraints.txt").read_text().splitlines() if line.startswith("ray=="))
    cluster = yaml.safe_load((repo / "examples/kubernetes/raycluster.yaml").read_text())
    assert cluster["apiVersion"] == "ray.io/v1" and cluster["kind"] == "RayCluster"
    assert cluster["spec"]["rayVersion"] == pinned == ray.__version__
    pods = [cluster["spec"]["headGroupSpec"]["template"]["spec"]] + [group["template"]["spec"] for group in cluster["spec"]["workerGroupSpecs"]]
    for pod in pods:
        for container in pod["containers"] + pod["initContainers"]:
            assert container["image"] == f"rayproject/ray:{pinned}-py311"
        assert "evidence-kit" in " ".join(pod["initContainers"][0]["args"])
        assert all(c["resources"]["requests"] == c["resources"]["limits"] for c in pod["containers"])
