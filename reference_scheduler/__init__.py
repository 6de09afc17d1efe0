"""A reference kube-scheduler in Python that implements KEP-5501, preemption, KEP-5836 and KEP-4671 gangs, and its variants.

It talks to any API server only over HTTP with a kubeconfig, like kube-scheduler (through the
project's client, :mod:`kubeclient`), and runs either in-process on the current event loop
(:class:`Scheduler`, under virtual time in the harness) or as a process (``python -m
reference_scheduler scheduler --kubeconfig PATH``).

Where each part, and each of the suite's readings of the KEP's open questions, is documented:

* ``_reporting``: KEP-5501 itself (decisions 1-4 and 6: seeding, gated pods and the clear,
  events, the retry promise, what the clear writes);
* ``_dispatcher``: KEP-5229 and delayed calls (decision 5: immediate calls overwrite delayed ones,
  a delay is not reset);
* ``_gates``: the feature gates, their defaults and dependencies (decision 7);
* ``_queue``: which events re-run PreEnqueue (decision 8); ``_conditions``: ``lastTransitionTime``;
* ``_plugins``: PreEnqueue and Filter plugins and their messages; ``_dra``: DRA allocation and
  what is not supported; ``_preemption``: kube-scheduler's DefaultPreemption (victims, PDBs, the
  node choice, nominated pods, the victims' condition, delete and event) and what it leaves out; ``_mutants``: the variants (mutants and the sentences they violate,
  controls, shape variants) and what the selftest expects of each; ``_writers``: how a status
  condition is written (the strategic merge patch kube-scheduler sends, and the shape variants'
  PUT, JSON patch and merge patch); ``_resize``: KEP-5836, preemption for a resize the kubelet
  deferred (which pods, the cycle on their node, when they are queued again) and its readings of
  the KEP's open questions; ``_resources``: what a pod counts on its node, its status resources
  included;
* gangs: ``_plugins``' GangQuorum holds the members of a label gang or of a scheduler-plugins
  PodGroup (``scheduling.x-k8s.io``) at PreEnqueue, then schedules them one by one; ``_gang``:
  KEP-4671's ``scheduling.k8s.io/v1beta1`` PodGroups behind ``GenericWorkload`` (off by default),
  as kube-scheduler v1.37 does (the PodGroup informer, GangScheduling's PreEnqueue, a whole
  group placed in one cycle all or nothing, its retries, the PodGroup's
  ``PodGroupInitiallyScheduled`` condition) and what it leaves out; ``_gangpreemption``:
  workload-aware preemption for a group that cannot be placed (victim units, a PodGroup with
  ``disruptionMode.all`` preempted whole).

Not implemented: scoring beyond NodeResourcesFit's LeastAllocated strategy on cpu and memory,
leader election (run one instance, or give it its own ``--scheduler-name``), protobuf, the
streaming list.

The public API is this flat list; everything else lives in private modules.
"""

from kubeclient import (
    ApiError,
    BadRequestError,
    ConflictError,
    ExpiredError,
    Informer,
    KubeClient,
    NotFoundError,
    TransportError,
)
from reference_scheduler._clock import Clock, WallClock
from reference_scheduler._dispatcher import ApiDispatcher, CallResult, PodBindingCall, PodStatusPatchCall
from reference_scheduler._gates import DEPENDENCY_MESSAGE, FeatureGateError, FeatureGates, parse_feature_gates
from reference_scheduler._mutants import MUTANTS, VARIANTS, Mutant, UnknownMutant, get_mutant
from reference_scheduler._plugins import (
    GANG_LABEL,
    GANG_MIN_ANNOTATION,
    GATED_MESSAGE,
    ClusterEvent,
    DynamicResources,
    GangQuorum,
    PreEnqueuePlugin,
    SchedulingGates,
)
from reference_scheduler._podinfo import QueuedPodInfo
from reference_scheduler._queue import SchedulingQueue
from reference_scheduler._reporting import DEFAULT_DELAY, PreEnqueueStatusReporter
from reference_scheduler._scheduler import POD_FIELD_SELECTOR, Scheduler
from reference_scheduler._writers import ConditionWriter

__all__ = [
    "DEFAULT_DELAY",
    "DEPENDENCY_MESSAGE",
    "GANG_LABEL",
    "GANG_MIN_ANNOTATION",
    "GATED_MESSAGE",
    "MUTANTS",
    "POD_FIELD_SELECTOR",
    "VARIANTS",
    "ApiDispatcher",
    "ApiError",
    "BadRequestError",
    "CallResult",
    "Clock",
    "ClusterEvent",
    "ConditionWriter",
    "ConflictError",
    "DynamicResources",
    "ExpiredError",
    "FeatureGateError",
    "FeatureGates",
    "GangQuorum",
    "Informer",
    "KubeClient",
    "Mutant",
    "NotFoundError",
    "PodBindingCall",
    "PodStatusPatchCall",
    "PreEnqueuePlugin",
    "PreEnqueueStatusReporter",
    "QueuedPodInfo",
    "Scheduler",
    "SchedulingGates",
    "SchedulingQueue",
    "TransportError",
    "UnknownMutant",
    "WallClock",
    "get_mutant",
    "parse_feature_gates",
]
