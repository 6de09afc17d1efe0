"""Kind cluster configs for running the suites on a real cluster.

A kind cluster is described by one YAML document (``kind.x-k8s.io/v1alpha4``
``Cluster``). Feature gates for kube-apiserver and kube-scheduler are not
cluster-wide kind settings: they are flags of the control-plane components,
so they go in through a kubeadm ``ClusterConfiguration`` patch
(``apiServer.extraArgs`` / ``scheduler.extraArgs``, key ``feature-gates``),
which kind merges into the kubeadm config it writes for the control-plane node.

The output is deterministic (sorted gates, fixed key order) so it can be
compared with golden files.

Not yet checked on a real cluster: the patch uses the map form of ``extraArgs``
(kubeadm ``v1beta3``); kubeadm ``v1beta4`` (Kubernetes 1.31+) takes a list of
``{name, value}``, so the form may have to follow the node image's version.
Nothing runs a cluster from this module yet (lifecycle, backends and options are
the next steps of the kind issue).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import yaml

__all__ = ["KindOptions", "kind_config", "node_image"]

_NODE_IMAGE_REPO = "kindest/node"


def node_image(image_or_version: str) -> str:
    """The node image for ``v1.35.0``-style versions, or the image itself.

    A bare version names kind's published image (``kindest/node:v1.35.0``);
    anything containing ``/`` or ``:`` is taken as an image reference.
    """
    if "/" in image_or_version or ":" in image_or_version:
        return image_or_version
    return f"{_NODE_IMAGE_REPO}:{image_or_version}"


@dataclass(frozen=True)
class KindOptions:
    """What the generated cluster config says.

    ``image`` is a node image or a Kubernetes version (see `node_image`);
    None keeps kind's default. Gate maps are component flag values:
    ``{"SchedulerQueueingHints": True}`` becomes
    ``feature-gates: SchedulerQueueingHints=true``.
    """

    image: str | None = None
    apiserver_feature_gates: Mapping[str, bool] = field(default_factory=dict)
    scheduler_feature_gates: Mapping[str, bool] = field(default_factory=dict)


class _Literal(str):
    """A multi-line string written as a YAML block (``|``), as kind docs show patches."""


class _Dumper(yaml.SafeDumper):
    pass


def _literal(dumper: yaml.SafeDumper, value: _Literal) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style="|")


_Dumper.add_representer(_Literal, _literal)


def _gates(gates: Mapping[str, bool]) -> str:
    return ",".join(
        f"{name}={'true' if on else 'false'}" for name, on in sorted(gates.items())
    )


def kind_config(options: KindOptions) -> str:
    """The kind ``Cluster`` YAML for ``options``: one control-plane node."""
    node: dict[str, object] = {"role": "control-plane"}
    if options.image is not None:
        node["image"] = node_image(options.image)
    config: dict[str, object] = {
        "kind": "Cluster",
        "apiVersion": "kind.x-k8s.io/v1alpha4",
        "nodes": [node],
    }
    cluster_configuration: dict[str, object] = {"kind": "ClusterConfiguration"}
    if options.apiserver_feature_gates:
        cluster_configuration["apiServer"] = {
            "extraArgs": {"feature-gates": _gates(options.apiserver_feature_gates)}
        }
    if options.scheduler_feature_gates:
        cluster_configuration["scheduler"] = {
            "extraArgs": {"feature-gates": _gates(options.scheduler_feature_gates)}
        }
    if len(cluster_configuration) > 1:
        config["kubeadmConfigPatches"] = [
            _Literal(yaml.safe_dump(cluster_configuration, sort_keys=False))
        ]
    return yaml.dump(config, Dumper=_Dumper, sort_keys=False)
