"""Container image names as the scheduler compares them.

The cache counts the nodes holding each image and ImageLocality looks the pod's images up
in those counts: both must write a name the same way, so the rule lives here.
"""

from __future__ import annotations

__all__ = ["normalized_image_name"]


def normalized_image_name(name: str) -> str:
    """The image name with ":latest" added when it has neither a tag nor a digest.

    Upstream: pkg/scheduler/framework/plugins/imagelocality (normalizedImageName): a name
    whose last ":" does not come after its last "/" has no tag (`host:5000/app` has none).
    """
    if name.rfind(":") <= name.rfind("/"):
        return name + ":latest"
    return name
