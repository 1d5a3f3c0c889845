"""Image names and Go durations as the scheduler's plugins and messages write them.

Image names: upstream TestNormalizedImageName
(pkg/scheduler/framework/plugins/imagelocality/image_locality_test.go) and the cache's cases.
Durations: Go's time.Duration.String (src/time/time_test.go durationTests).
"""

from __future__ import annotations

import hashlib

import pytest

from kubesched.api import go_duration, normalized_image_name


def _fake_digest(content: str) -> str:
    return "sha256:" + hashlib.sha256(content.encode()).hexdigest()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("root", "root:latest"),
        ("gcr.io:5000/root", "gcr.io:5000/root:latest"),
        ("root:tag", "root:tag"),
        ("root@" + _fake_digest("root"), "root@" + _fake_digest("root")),
        ("nginx", "nginx:latest"),
        ("nginx:1.25", "nginx:1.25"),
        ("registry:5000/app", "registry:5000/app:latest"),
        ("registry:5000/app:v2", "registry:5000/app:v2"),
        ("gcr.io/app@sha256:abcd", "gcr.io/app@sha256:abcd"),
    ],
)
def test_normalized_image_name(name: str, expected: str) -> None:
    assert normalized_image_name(name) == expected


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (0, "0s"),
        (1e-9, "1ns"),
        (1.1e-6, "1.1µs"),
        (2.2e-3, "2.2ms"),
        (0.1, "100ms"),
        (3.3, "3.3s"),
        (10, "10s"),
        (90, "1m30s"),
        (4 * 60 + 5, "4m5s"),
        (4 * 60 + 5.001, "4m5.001s"),
        (5 * 3600 + 6 * 60 + 7.001, "5h6m7.001s"),
        (8 * 60 + 1e-9, "8m0.000000001s"),
        (3600, "1h0m0s"),
        (-90, "-1m30s"),
        (-1e-3, "-1ms"),
    ],
)
def test_go_duration_writes_as_go_does(seconds: float, expected: str) -> None:
    assert go_duration(seconds) == expected
