"""What ``docker inspect`` states about a container: state, limits and GPU requests public; who and where identities.

Read by ``redact/formats/docker_inspect.py`` from the JSON array ``docker inspect CONTAINER``
prints. Its id, name, hostname, image, mounts' paths, addresses and GPU UUIDs are identities;
its environment values secrets; its command line, labels and networks' names are counted.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, NonNegativeInt

from ..publication import PUBLIC, SECRET, IdentityKind, identity
from .base import Count, Flag, FormatRecord, Whole
from .shapes import IdentityText, Rfc3339

__all__ = ["DockerContainer", "DockerInspect"]

_Time = Annotated[Rfc3339 | None, PUBLIC]


class DockerContainer(FormatRecord):
    """One container of ``docker inspect``."""

    created: _Time = None
    status: Annotated[Literal["created", "running", "paused", "restarting", "removing", "exited", "dead"] | None, PUBLIC] = None
    running: Flag = None
    oom_killed: Flag = None
    exit_code: Annotated[int | None, PUBLIC] = None
    restart_count: Whole = None
    started_at: _Time = None
    finished_at: _Time = None
    platform: Annotated[Literal["linux", "windows"] | None, PUBLIC] = None
    storage_driver: Annotated[
        Literal["overlay2", "overlay", "btrfs", "zfs", "devicemapper", "vfs", "aufs", "fuse-overlayfs", "windowsfilter"] | None, PUBLIC
    ] = None
    restart_policy: Annotated[Literal["no", "always", "unless-stopped", "on-failure"] | None, PUBLIC] = None
    network_mode: Annotated[Literal["bridge", "host", "none", "default"] | None, PUBLIC] = Field(
        default=None, description="a user network's name is not read"
    )
    memory_bytes: Whole = Field(default=None, description="HostConfig.Memory (0: no limit)")
    nano_cpus: Whole = None
    shm_size_bytes: Whole = None
    gpu_driver: Annotated[Literal["nvidia", "cdi"] | None, PUBLIC] = Field(default=None, description="of --gpus' device request")
    gpu_count: Annotated[int | None, PUBLIC] = Field(default=None, description="--gpus N (-1: all)")
    gpu_indices: Annotated[list[NonNegativeInt], PUBLIC] = Field(default_factory=list, description="--gpus device=0,1")
    exposed_ports: Annotated[list[NonNegativeInt], PUBLIC] = Field(default_factory=list)
    env_count: Count = 0
    args_count: Count = 0
    labels_count: Count = 0
    mounts_count: Count = 0
    values_withheld: Count = 0

    id: Annotated[IdentityText | None, identity(IdentityKind.CONTAINER)] = None
    name: Annotated[IdentityText | None, identity(IdentityKind.CONTAINER)] = None
    hostname: Annotated[IdentityText | None, identity(IdentityKind.HOST)] = None
    image: Annotated[IdentityText | None, identity(IdentityKind.IMAGE)] = None
    image_id: Annotated[IdentityText | None, identity(IdentityKind.IMAGE)] = None
    user: Annotated[IdentityText | None, identity(IdentityKind.USER)] = None
    working_dir: Annotated[IdentityText | None, identity(IdentityKind.PATH)] = None
    mount_paths: Annotated[list[IdentityText], identity(IdentityKind.PATH)] = Field(default_factory=list, description="sources and destinations")
    ips: Annotated[list[IdentityText], identity(IdentityKind.IP)] = Field(default_factory=list)
    macs: Annotated[list[IdentityText], identity(IdentityKind.MAC)] = Field(default_factory=list)
    gpus: Annotated[list[IdentityText], identity(IdentityKind.GPU)] = Field(default_factory=list, description="--gpus device=GPU-...")
    env_values: Annotated[list[IdentityText], SECRET] = Field(default_factory=list)


class DockerInspect(FormatRecord):
    """One ``docker inspect`` output: an array of containers."""

    containers: list[DockerContainer] = Field(default_factory=list)
    items_withheld: Count = Field(default=0, description="items that are not containers (an image's inspect), or past the first 1,000")
    unreadable: Annotated[bool, PUBLIC] = Field(default=False, description="not JSON this reader can read, or larger than 8 MiB")
