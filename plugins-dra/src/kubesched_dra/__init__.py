"""kubesched-dra: Dynamic Resource Allocation (resource.k8s.io/v1) for kubesched.

`api` holds the kinds this package registers (DeviceClass, ResourceClaim,
ResourceClaimTemplate, ResourceSlice); `hooks` registers them with the program.
"""

__version__ = "0.0.1"

__all__ = ["__version__"]
