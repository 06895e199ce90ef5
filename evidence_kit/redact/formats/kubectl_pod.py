"""``kubectl get pod -o json`` and ``-o yaml``: a Pod (or a List of Pods) as typed records.

The document is read whole, up to ``MAX_BYTES`` (a larger one is unreadable, read as nothing);
YAML with the safe loader only. Each list is read up to a bound (pods, containers, conditions,
environment entries), so neither size nor YAML aliases make the reading unbounded.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable
from typing import Any

import yaml

from ...model.formats.kubernetes import KubePod, KubePods
from ...model.formats.shapes import KUBE_QUANTITY, KUBE_RESOURCE
from .build import build
from .reader import Example, FormatReader

__all__ = ["READER"]

MAX_BYTES = 8 * 2**20
MAX_PODS, MAX_CONTAINERS, MAX_ITEMS = 1000, 64, 1024
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _at(node: Any, *keys: str) -> Any:
    for key in keys:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _items(node: Any, limit: int = MAX_ITEMS) -> list[Any]:
    return node[:limit] if isinstance(node, list) else []


def _text(value: Any) -> str | None:
    if isinstance(value, dt.datetime):  # an unquoted YAML timestamp
        stamp = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return stamp.isoformat().replace("+00:00", "Z")
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and re.fullmatch(r"-?\d{1,18}", value) else None


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
                "reason": _text(detail.get("reason")),
                "exit_code": _int(detail.get("exitCode")),
                "signal": _int(detail.get("signal")),
                "started_at": _text(detail.get("startedAt")),
                "finished_at": _text(detail.get("finishedAt")),
            }
    return None


def _container(spec: dict[str, Any], status: dict[str, Any], init: bool) -> dict[str, Any]:
    requests, withheld_requests = _resources(_at(spec, "resources", "requests"))
    limits, withheld_limits = _resources(_at(spec, "resources", "limits"))
    env = _items(spec.get("env"))
    return {
        "init": init,
        "name": _text(spec.get("name")),
        "image": _text(spec.get("image")),
        "requests": requests,
        "limits": limits,
        "resources_withheld": withheld_requests + withheld_limits,
        "ports": [p for port in _items(spec.get("ports")) if (p := _int(_at(port, "containerPort"))) is not None],
        "env_count": len(env),
        "env_values": [v for entry in env if (v := _text(_at(entry, "value")))],
        "args_count": len(_items(spec.get("command"))) + len(_items(spec.get("args"))),
        "ready": _flag(status.get("ready")),
        "started": _flag(status.get("started")),
        "restart_count": _int(status.get("restartCount")),
        "state": _state(status.get("state")),
        "last_state": _state(status.get("lastState")),
        "image_id": _text(status.get("imageID")),
        "container_id": _text(status.get("containerID")),
    }


def _containers(pod: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for init, spec_key, status_key in ((True, "initContainers", "initContainerStatuses"), (False, "containers", "containerStatuses")):
        statuses = {s.get("name"): s for s in _items(_at(pod, "status", status_key)) if isinstance(s, dict)}
        for spec in _items(_at(pod, "spec", spec_key), MAX_CONTAINERS):
            if isinstance(spec, dict):
                out.append(_container(spec, statuses.get(spec.get("name"), {}), init))
    return out


def _count(node: Any) -> int:
    return len(node) if isinstance(node, (dict, list)) else 0


def _flag(node: Any) -> bool | None:
    return node if isinstance(node, bool) else None


def _metadata(meta: Any) -> dict[str, Any]:
    owners = [o for o in _items(_at(meta, "ownerReferences")) if isinstance(o, dict)] or [{}]
    return {
        "name": _text(_at(meta, "name")),
        "namespace": _text(_at(meta, "namespace")),
        "uid": _text(_at(meta, "uid")),
        "owner_kind": _text(owners[0].get("kind")),
        "owner": _text(owners[0].get("name")),
        "creation_timestamp": _text(_at(meta, "creationTimestamp")),
        "deletion_timestamp": _text(_at(meta, "deletionTimestamp")),
        "labels_count": _count(_at(meta, "labels")),
        "annotations_count": _count(_at(meta, "annotations")),
    }


def _spec(spec: Any) -> dict[str, Any]:
    return {
        "node": _text(_at(spec, "nodeName")),
        "service_account": _text(_at(spec, "serviceAccountName")),
        "priority_class": _text(_at(spec, "priorityClassName")),
        "priority": _int(_at(spec, "priority")),
        "restart_policy": _text(_at(spec, "restartPolicy")),
        "dns_policy": _text(_at(spec, "dnsPolicy")),
        "host_network": _flag(_at(spec, "hostNetwork")),
        "volumes_count": _count(_at(spec, "volumes")),
    }


def _condition(condition: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": _text(condition.get("type")),
        "status": _text(condition.get("status")),
        "reason": _text(condition.get("reason")),
        "last_transition_time": _text(condition.get("lastTransitionTime")),
    }


def _status(status: Any) -> dict[str, Any]:
    ips = [ip for entry in _items(_at(status, "podIPs")) if (ip := _text(_at(entry, "ip")))]
    return {
        "phase": _text(_at(status, "phase")),
        "reason": _text(_at(status, "reason")),
        "qos_class": _text(_at(status, "qosClass")),
        "host_ip": _text(_at(status, "hostIP")),
        "pod_ips": ips or [ip for ip in [_text(_at(status, "podIP"))] if ip],
        "start_time": _text(_at(status, "startTime")),
        "conditions": [_condition(c) for c in _items(_at(status, "conditions"), 64) if isinstance(c, dict)],
    }


def _pod(pod: dict[str, Any]) -> dict[str, Any]:
    return _metadata(pod.get("metadata")) | _spec(pod.get("spec")) | _status(pod.get("status")) | {"containers": _containers(pod)}


def _document(lines: Iterable[str]) -> Any:
    parts, size = [], 0
    for line in lines:
        size += len(line)
        if size > MAX_BYTES:
            return None
        parts.append(line)
    text = "".join(parts)
    try:
        return json.loads(text) if text.lstrip().startswith("{") else yaml.load(text, Loader=_LOADER)  # noqa: S506 (a safe loader)
    except (ValueError, yaml.YAMLError, RecursionError):
        return None


def read(lines: Iterable[str], path: str) -> KubePods:
    """The pods of one ``kubectl get pod -o json|yaml``."""
    document = _document(lines)
    if not isinstance(document, dict):
        return KubePods(unreadable=True)
    kind = document.get("kind")
    items = [document] if kind == "Pod" else _items(document.get("items"), MAX_PODS) if kind in ("List", "PodList") else []
    pods, withheld = [], 0
    for item in items:
        if not (isinstance(item, dict) and item.get("kind", "Pod") == "Pod"):
            withheld += 1
            continue
        pod, dropped = build(KubePod, _pod(item))
        pods.append(pod.model_copy(update={"values_withheld": dropped}))
    withheld += max(0, len(document.get("items") or []) - MAX_PODS) if isinstance(document.get("items"), list) else 0
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
