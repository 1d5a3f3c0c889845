"""A pod's volumes as the API server validates them, as far as scheduling reads them: names,
a volume source, and the claims a volume refers to.

upstream: pkg/apis/core/validation/validation.go (ValidateVolumes, validateVolumeSource,
validatePersistentClaimVolumeSource, validateEphemeralVolumeSource). Deviation: the sources
themselves are not validated beyond those that refer to claims, and a volume naming several
sources is not an error here.
"""

from __future__ import annotations

from kubesched.api import Pod, Volume
from kubesched.api.field import FieldError, duplicate, invalid, required
from kubesched.api.validation import is_dns1123_label
from kubesched.cluster.memory._validation_field import name_is_dns_subdomain

__all__ = ["validate_volumes"]


def _source(volume: Volume, pod_name: str, path: str) -> list[FieldError]:
    # sources kubesched does not model are kept as extra fields of the volume
    if volume.persistent_volume_claim is None and volume.ephemeral is None:
        if not volume.model_extra:
            return [required(path, "must specify a volume type")]
        return []
    errors: list[FieldError] = []
    claim = volume.persistent_volume_claim
    if claim is not None and not claim.get("claimName"):
        errors.append(required(f"{path}.persistentVolumeClaim.claimName"))
    if volume.ephemeral is not None:
        if volume.ephemeral.get("volumeClaimTemplate") is None:
            errors.append(required(f"{path}.ephemeral.volumeClaimTemplate"))
        if pod_name and volume.name:
            pvc = f"{pod_name}-{volume.name}"
            for message in name_is_dns_subdomain(pvc):
                detail = f'PVC name "{pvc}": {message}'
                errors.append(invalid(f"{path}.name", volume.name, detail))
    return errors


def validate_volumes(pod: Pod) -> list[FieldError]:
    """Each volume named once with a DNS label and given a source; no claim that a generic
    ephemeral volume of the same pod creates is referred to directly."""
    name = pod.metadata.name
    created = {f"{name}-{v.name}" for v in pod.spec.volumes if v.ephemeral is not None}
    errors: list[FieldError] = []
    names: set[str] = set()
    for i, volume in enumerate(pod.spec.volumes):
        at = f"spec.volumes[{i}]"
        problems = _source(volume, name, at)
        if not volume.name:
            problems.append(required(f"{at}.name"))
        else:
            problems += [
                invalid(f"{at}.name", volume.name, m) for m in is_dns1123_label(volume.name)
            ]
        if volume.name in names:
            problems.append(duplicate(f"{at}.name", volume.name))
        if problems:
            errors += problems
        else:
            names.add(volume.name)
        claim = (volume.persistent_volume_claim or {}).get("claimName")
        if name and claim in created:
            detail = "must not reference a PVC that gets created for an ephemeral volume"
            errors.append(invalid(f"{at}.persistentVolumeClaim.claimName", claim, detail))
    return errors
