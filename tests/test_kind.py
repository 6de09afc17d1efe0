from __future__ import annotations

from pathlib import Path

import pytest

from harness._kind import KindOptions, kind_config, node_image

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize(
    ("name", "options"),
    [
        ("kind-default.yaml", KindOptions()),
        ("kind-image.yaml", KindOptions(image="v1.35.0")),
        (
            "kind-feature-gates.yaml",
            KindOptions(
                apiserver_feature_gates={"DynamicResourceAllocation": True},
                scheduler_feature_gates={
                    "SchedulerQueueingHints": False,
                    "DynamicResourceAllocation": True,
                },
            ),
        ),
    ],
)
def test_kind_config_matches_golden(name: str, options: KindOptions) -> None:
    assert kind_config(options) == (GOLDEN / name).read_text()


def test_node_image_from_version_or_image() -> None:
    assert node_image("v1.35.0") == "kindest/node:v1.35.0"
    assert node_image("example.com/node:dev") == "example.com/node:dev"
