"""``docker inspect CONTAINER``: each container's state, limits and GPU requests as a typed record."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from ...model.formats.docker import DockerContainer, DockerInspect
from .build import build
from .documents import at, count, document, flag, items, text, whole
from .nvidia_smi import UUID
from .reader import Example, FormatReader

__all__ = ["READER"]

MAX_CONTAINERS = 1000
_PORT = re.compile(r"^(?P<port>[0-9]{1,5})/(?:tcp|udp|sctp)$")


def _gpus(host: Any) -> dict[str, Any]:
    """``--gpus``: the NVIDIA device request's driver, count and devices (indices public, UUIDs identities)."""
    requests = [r for r in items(at(host, "DeviceRequests")) if isinstance(r, dict)]
    if not requests:
        return {}
    first = requests[0]
    devices = [d for d in items(first.get("DeviceIDs")) if isinstance(d, str)]
    return {
        "gpu_driver": text(first.get("Driver")),
        "gpu_count": whole(first.get("Count")) if first.get("Count") else None,
        "gpu_indices": [int(d) for d in devices if d.isdigit()],
        "gpus": [d for d in devices if UUID.match(d)],
    }


def _addresses(networks: Any) -> tuple[list[str], list[str]]:
    ips: list[str] = []
    macs: list[str] = []
    for network in list(networks.values())[:64] if isinstance(networks, dict) else []:
        ips += [ip for key in ("IPAddress", "GlobalIPv6Address") if (ip := text(at(network, key)))]
        macs += [mac for mac in [text(at(network, "MacAddress"))] if mac]
    return ips, macs


def _state(state: Any) -> dict[str, Any]:
    return {
        "status": text(at(state, "Status")),
        "running": flag(at(state, "Running")),
        "oom_killed": flag(at(state, "OOMKilled")),
        "exit_code": whole(at(state, "ExitCode")),
        "started_at": text(at(state, "StartedAt")),
        "finished_at": text(at(state, "FinishedAt")),
    }


def _config(config: Any) -> dict[str, Any]:
    env = [e for e in items(at(config, "Env")) if isinstance(e, str)]
    ports = at(config, "ExposedPorts")
    return {
        "hostname": text(at(config, "Hostname")),
        "image": text(at(config, "Image")),
        "user": text(at(config, "User")),
        "working_dir": text(at(config, "WorkingDir")),
        "env_count": len(env),
        "env_values": [value for entry in env if (value := entry.partition("=")[2])],
        "labels_count": count(at(config, "Labels")),
        "exposed_ports": [int(m["port"]) for key in (list(ports)[:64] if isinstance(ports, dict) else []) if (m := _PORT.match(str(key)))],
    }


def _host(host: Any) -> dict[str, Any]:
    return {
        "restart_policy": text(at(host, "RestartPolicy", "Name")),
        "network_mode": text(at(host, "NetworkMode")),
        "memory_bytes": whole(at(host, "Memory")),
        "nano_cpus": whole(at(host, "NanoCpus")),
        "shm_size_bytes": whole(at(host, "ShmSize")),
    } | _gpus(host)


def _network(settings: Any) -> dict[str, Any]:
    ips, macs = _addresses(at(settings, "Networks"))
    ips += [ip for key in ("IPAddress", "GlobalIPv6Address") if (ip := text(at(settings, key)))]
    macs += [mac for mac in [text(at(settings, "MacAddress"))] if mac]
    return {"ips": ips, "macs": macs}


def _container(item: dict[str, Any]) -> dict[str, Any]:
    mounts = [m for m in items(item.get("Mounts")) if isinstance(m, dict)]
    own = {
        "id": text(item.get("Id")),
        "name": text(item.get("Name")),
        "created": text(item.get("Created")),
        "platform": text(item.get("Platform")),
        "storage_driver": text(item.get("Driver")),
        "restart_count": whole(item.get("RestartCount")),
        "image_id": text(item.get("Image")),
        "args_count": len(items(item.get("Args"))) + bool(text(item.get("Path"))),
        "mounts_count": len(mounts),
        "mount_paths": [p for m in mounts for key in ("Source", "Destination") if (p := text(m.get(key)))],
    }
    return own | _state(item.get("State")) | _config(item.get("Config")) | _host(item.get("HostConfig")) | _network(item.get("NetworkSettings"))


def read(lines: Iterable[str], path: str) -> DockerInspect:
    """The containers of one ``docker inspect``."""
    doc = document(lines)
    if not isinstance(doc, list):
        return DockerInspect(unreadable=True)
    containers: list[DockerContainer] = []
    withheld = max(0, len(doc) - MAX_CONTAINERS)
    for item in doc[:MAX_CONTAINERS]:
        if not (isinstance(item, dict) and isinstance(item.get("State"), dict)):  # an image's inspect has no State
            withheld += 1
            continue
        container, dropped = build(DockerContainer, _container(item))
        containers.append(container.model_copy(update={"values_withheld": dropped}))
    return DockerInspect(containers=containers, items_withheld=withheld)


_OPENING = re.compile(r'^\s*\[\s*\{\s*"Id"\s*:\s*"(?:sha256:)?[0-9a-f]{64}"')


def recognises(path: str, head: str) -> bool:
    """``docker inspect``'s JSON array: it opens with a container's 64-hex ``Id`` and names its ``State`` and ``HostConfig``."""
    return _OPENING.match(head) is not None and '"State"' in head and '"HostConfig"' in head


READER = FormatReader(
    name="docker-inspect",
    summary="docker inspect CONTAINER: state, exit code, OOM kill, memory and GPU requests; id, name, image, mounts, addresses identities",
    record=DockerInspect,
    recognises=recognises,
    read=read,
    examples=(
        Example(
            text=(
                '[\n    {\n        "Id": "9d4c7e2a1b3f5d6e8a0c2b4d6f8e0a1c3b5d7f9e1a2c4b6d8f0e2a4c6b8d0f1e",\n'
                '        "Created": "2026-11-01T08:59:00.123456789Z",\n        "Path": "vllm",\n        "Args": ["serve", "/models/falcon"],\n'
                '        "State": {"Status": "exited", "Running": false, "OOMKilled": true, "ExitCode": 137, '
                '"FinishedAt": "2026-11-01T09:10:00.5Z"},\n'
                '        "Name": "/vllm-falcon",\n        "HostConfig": {"ShmSize": 17179869184, "DeviceRequests": '
                '[{"Driver": "nvidia", "Count": -1, "Capabilities": [["gpu"]]}]},\n'
                '        "Config": {"Hostname": "gpu-node-17", "Image": "registry.acme.internal/vllm:v0.11.0", "Env": ["HF_TOKEN=hf_secret"]}\n'
                "    }\n]\n"
            ),
            path="logs/docker-inspect.json",
            expect={
                "containers": [
                    {
                        "status": "exited",
                        "oom_killed": True,
                        "exit_code": 137,
                        "finished_at": "2026-11-01T09:10:00.5Z",
                        "gpu_driver": "nvidia",
                        "gpu_count": -1,
                        "shm_size_bytes": 17179869184,
                        "args_count": 3,
                        "name": "/vllm-falcon",
                        "hostname": "gpu-node-17",
                        "image": "registry.acme.internal/vllm:v0.11.0",
                        "env_values": ["hf_secret"],
                    }
                ]
            },
        ),
    ),
)
