"""What ``kubectl get pod -o json|yaml`` states: resources, phase and restarts public; pod, node, image identities.

Read by ``redact/formats/kubectl_pod.py`` from one Pod or a List of them. Labels, annotations,
commands, arguments, volumes and environment variables are not read (counted; environment
values are kept as secrets, so the known-value check can hunt them but nothing publishes them).
Container names are identities (``container``): operators name them after models and teams.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, NonNegativeInt

from ..publication import PUBLIC, SECRET, IdentityKind, identity
from .base import Count, FormatRecord
from .shapes import IdentityText, KubeQuantity, KubeResource, Rfc3339

__all__ = ["ContainerState", "KubeContainer", "KubePod", "KubePods", "PodCondition", "PodReason"]

# k8s.io/api/core/v1 and the kubelet's reasons for a container's or a pod's state.
PodReason = Literal[
    "ContainerCreating",
    "PodInitializing",
    "CrashLoopBackOff",
    "ErrImagePull",
    "ImagePullBackOff",
    "ErrImageNeverPull",
    "InvalidImageName",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "PreStartHookError",
    "PostStartHookError",
    "StartError",
    "Completed",
    "Error",
    "OOMKilled",
    "ContainerCannotRun",
    "ContainerStatusUnknown",
    "DeadlineExceeded",
    "Evicted",
    "NodeLost",
    "NodeAffinity",
    "Shutdown",
    "Terminated",
    "Unschedulable",
    "SchedulerError",
    "PodCompleted",
    "ContainersNotReady",
    "ReadinessGatesNotReady",
    "UnexpectedAdmissionError",
    "OutOfcpu",
    "OutOfmemory",
    "OutOfephemeral-storage",
    "OutOfpods",
    "OutOfnvidia.com/gpu",
    "TerminationByKubelet",
    "PreemptionByScheduler",
    "DeletionByTaintManager",
    "EvictionByEvictionAPI",
    "DeletionByPodGC",
]
ConditionType = Literal[
    "PodScheduled",
    "PodReadyToStartContainers",
    "PodHasNetwork",
    "Initialized",
    "ContainersReady",
    "Ready",
    "DisruptionTarget",
    "PodResizePending",
    "PodResizeInProgress",
]
OwnerKind = Literal[
    "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController", "Node", "LeaderWorkerSet", "RayCluster", "Workflow"
]

_Int = Annotated[int | None, PUBLIC]
_Time = Annotated[Rfc3339 | None, PUBLIC]
_Resources = Annotated[dict[KubeResource, KubeQuantity], PUBLIC]


class ContainerState(FormatRecord):
    """A container's state or last state: which, why, its exit code and times."""

    state: Annotated[Literal["waiting", "running", "terminated"] | None, PUBLIC] = None
    reason: Annotated[PodReason | None, PUBLIC] = None
    exit_code: _Int = None
    signal: _Int = None
    started_at: _Time = None
    finished_at: _Time = None


class KubeContainer(FormatRecord):
    """One container (or init container): its spec's resources and its status."""

    init: Annotated[bool, PUBLIC] = False
    requests: _Resources = Field(default_factory=dict)
    limits: _Resources = Field(default_factory=dict)
    resources_withheld: Count = Field(default=0, description="resources of a name or quantity no shape admits")
    ports: Annotated[list[NonNegativeInt], PUBLIC] = Field(default_factory=list)
    env_count: Count = 0
    args_count: Count = Field(default=0, description="command and args, counted: they name paths and models")
    ready: Annotated[bool | None, PUBLIC] = None
    started: Annotated[bool | None, PUBLIC] = None
    restart_count: Annotated[NonNegativeInt | None, PUBLIC] = None
    state: ContainerState | None = None
    last_state: ContainerState | None = None

    name: Annotated[IdentityText | None, identity(IdentityKind.CONTAINER)] = None
    image: Annotated[IdentityText | None, identity(IdentityKind.IMAGE)] = None
    image_id: Annotated[IdentityText | None, identity(IdentityKind.IMAGE)] = None
    container_id: Annotated[IdentityText | None, identity(IdentityKind.CONTAINER)] = None
    env_values: Annotated[list[IdentityText], SECRET] = Field(default_factory=list)


class PodCondition(FormatRecord):
    type: Annotated[ConditionType, PUBLIC]
    status: Annotated[Literal["True", "False", "Unknown"], PUBLIC]
    reason: Annotated[PodReason | None, PUBLIC] = None
    last_transition_time: _Time = None


class KubePod(FormatRecord):
    """One Pod."""

    phase: Annotated[Literal["Pending", "Running", "Succeeded", "Failed", "Unknown"] | None, PUBLIC] = None
    reason: Annotated[PodReason | None, PUBLIC] = None
    qos_class: Annotated[Literal["Guaranteed", "Burstable", "BestEffort"] | None, PUBLIC] = None
    restart_policy: Annotated[Literal["Always", "OnFailure", "Never"] | None, PUBLIC] = None
    dns_policy: Annotated[Literal["ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"] | None, PUBLIC] = None
    host_network: Annotated[bool | None, PUBLIC] = None
    priority: _Int = None
    owner_kind: Annotated[OwnerKind | None, PUBLIC] = None
    creation_timestamp: _Time = None
    start_time: _Time = None
    deletion_timestamp: _Time = None
    conditions: list[PodCondition] = Field(default_factory=list)
    containers: list[KubeContainer] = Field(default_factory=list)
    labels_count: Count = 0
    annotations_count: Count = 0
    volumes_count: Count = 0
    values_withheld: Count = Field(default=0, description="values whose shape no public field admits")

    name: Annotated[IdentityText | None, identity(IdentityKind.POD)] = None
    namespace: Annotated[IdentityText | None, identity(IdentityKind.NAMESPACE)] = None
    uid: Annotated[IdentityText | None, identity(IdentityKind.VALUE)] = None
    owner: Annotated[IdentityText | None, identity(IdentityKind.VALUE)] = None
    node: Annotated[IdentityText | None, identity(IdentityKind.HOST)] = None
    host_ip: Annotated[IdentityText | None, identity(IdentityKind.IP)] = None
    pod_ips: Annotated[list[IdentityText], identity(IdentityKind.IP)] = Field(default_factory=list)
    service_account: Annotated[IdentityText | None, identity(IdentityKind.USER)] = None
    priority_class: Annotated[IdentityText | None, identity(IdentityKind.VALUE)] = None


class KubePods(FormatRecord):
    """One ``kubectl get pod`` output: a Pod, or a List of them."""

    kind: Annotated[Literal["Pod", "List", "PodList"] | None, PUBLIC] = None
    pods: list[KubePod] = Field(default_factory=list)
    items_withheld: Count = Field(default=0, description="List items that are not Pods, or past the first 1,000")
    unreadable: Annotated[bool, PUBLIC] = Field(default=False, description="not JSON or YAML this reader can read, or larger than 8 MiB")
