"""``kubectl get pod -o json`` and ``-o yaml``: a Pod (or a List of Pods) as typed records.

The document is read whole and within bounds (``documents.py``): pods, containers, conditions
and environment entries each up to a limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ...model.formats.kubernetes import KubePod, KubePods
from ...model.formats.shapes import KUBE_QUANTITY, KUBE_RESOURCE
from .build import build
from .documents import MAX_ITEMS, at, count, document, flag, items, text, whole
from .reader import Example, FormatReader

__all__ = ["READER"]

MAX_PODS, MAX_CONTAINERS = 1000, 64


def _resources(node: Any) -> tuple[dict[str, str], int]:
    kept: dict[str, str] = {}
    withheld = 0
    for name, quantity in list(node.items())[:MAX_ITEMS] if isinstance(node, dict) else ():
        text = str(quantity) if isinstance(quantity, (int, float)) and not isinstance(quantity, bool) else quantity
        if isinstance(name, str) and isinstance(text, str) and KUBE_RESOURCE.fits(name) and KUBE_QUANTITY.fits(text):
            kept[name] = text
        else:
            withheld += 1
    return kept, withheld


def _state(node: Any) -> dict[str, Any] | None:
    if not isinstance(node, dict):
        return None
    for which in ("waiting", "running", "terminated"):
        detail = node.get(which)
        if isinstance(detail, dict):
            return {
                "state": which,
                "reason": text(detail.get("reason")),
                "exit_code": whole(detail.get("exitCode")),
                "signal": whole(detail.get("signal")),
                "started_at": text(detail.get("startedAt")),
                "finished_at": text(detail.get("finishedAt")),
            }
    return None


def _container(spec: dict[str, Any], status: dict[str, Any], init: bool) -> dict[str, Any]:
    requests, withheld_requests = _resources(at(spec, "resources", "requests"))
    limits, withheld_limits = _resources(at(spec, "resources", "limits"))
    env = items(spec.get("env"))
    return {
        "init": init,
        "name": text(spec.get("name")),
        "image": text(spec.get("image")),
        "requests": requests,
        "limits": limits,
        "resources_withheld": withheld_requests + withheld_limits,
        "ports": [p for port in items(spec.get("ports")) if (p := whole(at(port, "containerPort"))) is not None],
        "env_count": len(env),
        "env_values": [v for entry in env if (v := text(at(entry, "value")))],
        "args_count": len(items(spec.get("command"))) + len(items(spec.get("args"))),
        "ready": flag(status.get("ready")),
        "started": flag(status.get("started")),
        "restart_count": whole(status.get("restartCount")),
        "state": _state(status.get("state")),
        "last_state": _state(status.get("lastState")),
        "image_id": text(status.get("imageID")),
        "container_id": text(status.get("containerID")),
    }


def _containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for init, spec_key, status_key in ((True, "initContainers", "initContainerStatuses"), (False, "containers", "containerStatuses")):
        statuses = {s.get("name"): s for s in items(at(pod, "status", status_key)) if isinstance(s, dict)}
        for spec in items(at(pod, "spec", spec_key), MAX_CONTAINERS):
            if isinstance(spec, dict):
                out.append(_container(spec, statuses.get(spec.get("name"), {}), init))
    return out


def _metadata(meta: Any) -> dict[str, Any]:
    owners = [o for o in items(at(meta, "ownerReferences")) if isinstance(o, dict)] or [{}]
    return {
        "name": text(at(meta, "name")),
        "namespace": text(at(meta, "namespace")),
        "uid": text(at(meta, "uid")),
        "owner_kind": text(owners[0].get("kind")),
        "owner": text(owners[0].get("name")),
        "creation_timestamp": text(at(meta, "creationTimestamp")),
        "deletion_timestamp": text(at(meta, "deletionTimestamp")),
        "labels_count": count(at(meta, "labels")),
        "annotations_count": count(at(meta, "annotations")),
    }


def _spec(spec: Any) -> dict[str, Any]:
    return {
        "node": text(at(spec, "nodeName")),
        "service_account": text(at(spec, "serviceAccountName")),
        "priority_class": text(at(spec, "priorityClassName")),
        "priority": whole(at(spec, "priority")),
        "restart_policy": text(at(spec, "restartPolicy")),
        "dns_policy": text(at(spec, "dnsPolicy")),
        "host_network": flag(at(spec, "hostNetwork")),
        "volumes_count": count(at(spec, "volumes")),
    }


def _condition(condition: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": text(condition.get("type")),
        "status": text(condition.get("status")),
        "reason": text(condition.get("reason")),
        "last_transition_time": text(condition.get("lastTransitionTime")),
    }


def _status(status: Any) -> dict[str, Any]:
    ips = [ip for entry in items(at(status, "podIPs")) if (ip := text(at(entry, "ip")))]
    return {
        "phase": text(at(status, "phase")),
        "reason": text(at(status, "reason")),
        "qos_class": text(at(status, "qosClass")),
        "host_ip": text(at(status, "hostIP")),
        "pod_ips": ips or [ip for ip in [text(at(status, "podIP"))] if ip],
        "start_time": text(at(status, "startTime")),
        "conditions": [_condition(c) for c in items(at(status, "conditions"), 64) if isinstance(c, dict)],
    }


def _pod(pod: dict[str, Any]) -> dict[str, Any]:
    return _metadata(pod.get("metadata")) | _spec(pod.get("spec")) | _status(pod.get("status")) | {"containers": _containers(pod)}


def read(lines: Iterable[str], path: str) -> KubePods:
    """The pods of one ``kubectl get pod -o json|yaml``."""
    doc = document(lines)
    if not isinstance(doc, dict):
        return KubePods(unreadable=True)
    kind = doc.get("kind")
    listed = items(doc.get("items"), MAX_PODS) if kind in ("List", "PodList") else []
    pods: list[KubePod] = []
    withheld = count(doc.get("items")) - len(listed) if listed else 0  # past MAX_PODS
    for item in [doc] if kind == "Pod" else listed:
        if not (isinstance(item, dict) and item.get("kind", "Pod") == "Pod"):
            withheld += 1
            continue
        pod, dropped = build(KubePod, _pod(item))
        pods.append(pod.model_copy(update={"values_withheld": dropped}))
    record, _ = build(KubePods, {"kind": kind if isinstance(kind, str) else None, "items_withheld": withheld})
    return record.model_copy(update={"pods": pods})


_JSON_API = re.compile(r'"apiVersion"\s*:\s*"v1"')
_JSON_POD = re.compile(r'"kind"\s*:\s*"Pod"')
_YAML_API = re.compile(r"^apiVersion: v1\s*$", re.M)
_YAML_POD = re.compile(r"^(?:- |  )?kind: Pod\s*$", re.M)


def recognises(path: str, head: str) -> bool:
    """A Pod or a List of Pods in kubectl's JSON (``"apiVersion": "v1"``, ``"kind"``) or YAML (``apiVersion: v1``, ``kind: Pod``)."""
    if head.lstrip().startswith("{"):
        return _JSON_API.search(head) is not None and _JSON_POD.search(head) is not None
    return head.startswith("apiVersion: v1") and _YAML_API.search(head) is not None and _YAML_POD.search(head) is not None


READER = FormatReader(
    name="kubectl-pod",
    summary="kubectl get pod -o json|yaml (a Pod or a List): phase, conditions, resources, restarts; pod, node, image identities",
    record=KubePods,
    recognises=recognises,
    read=read,
    examples=(
        Example(
            text=(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: falcon-7d9f8-x2kqp\n  namespace: acme-llm\n"
                "spec:\n  nodeName: gpu-node-17\n  containers:\n  - name: vllm\n    image: registry.acme.internal/vllm:v0.11.0\n"
                "    resources:\n      limits:\n        nvidia.com/gpu: 2\n        memory: 256Gi\n"
                '    env:\n    - name: HF_TOKEN\n      value: "hf_secret"\n'
                "status:\n  phase: Running\n  hostIP: 10.20.30.40\n  containerStatuses:\n  - name: vllm\n    restartCount: 1\n"
                '    lastState:\n      terminated:\n        exitCode: 137\n        reason: OOMKilled\n        finishedAt: "2026-11-01T08:59:58Z"\n'
            ),
            path="logs/pod.yaml",
            expect={
                "kind": "Pod",
                "pods": [
                    {
                        "phase": "Running",
                        "name": "falcon-7d9f8-x2kqp",
                        "namespace": "acme-llm",
                        "node": "gpu-node-17",
                        "host_ip": "10.20.30.40",
                        "containers": [
                            {
                                "name": "vllm",
                                "image": "registry.acme.internal/vllm:v0.11.0",
                                "limits": {"nvidia.com/gpu": "2", "memory": "256Gi"},
                                "restart_count": 1,
                                "last_state": {"state": "terminated", "reason": "OOMKilled", "exit_code": 137, "finished_at": "2026-11-01T08:59:58Z"},
                                "env_count": 1,
                                "env_values": ["hf_secret"],
                            }
                        ],
                    }
                ],
            },
        ),
    ),
)
