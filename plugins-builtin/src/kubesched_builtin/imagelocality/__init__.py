"""ImageLocality: prefer nodes that already hold the pod's images (Score)."""

from kubesched_builtin.imagelocality.plugin import (
    MAX_CONTAINER_THRESHOLD,
    MIN_THRESHOLD,
    ImageLocality,
    calculate_priority,
    sum_image_scores,
)

__all__ = [
    "MAX_CONTAINER_THRESHOLD",
    "MIN_THRESHOLD",
    "ImageLocality",
    "calculate_priority",
    "sum_image_scores",
]
