"""Every object of a kind as the API server sends it, for `kubesched snapshot`: a paginated
list (client-go's pager: `limit` and `continue`), each item with its apiVersion and kind
filled in (list items carry neither), as `kubectl get -o yaml` writes them."""

from __future__ import annotations

from typing import Any, Final

from kubesched.api import KindInfo
from kubesched.cluster.kube._resources import collection_path
from kubesched.cluster.kube._transport import ApiError, Transport

__all__ = ["LIST_PAGE_SIZE", "list_raw"]

LIST_PAGE_SIZE: Final = 500
"""Objects per page (client-go's pager default, pager.defaultPageSize)."""


async def list_raw(
    transport: Transport, info: KindInfo, *, page_size: int = LIST_PAGE_SIZE
) -> list[dict[str, Any]]:
    """Every object of `info`'s kind in every namespace, as raw JSON, in the server's order.

    A continue token that expired meanwhile (410) starts the list again once, as the pager
    falls back to a full list; any other refusal is the ApiError (404: the kind is not
    served, a CustomResourceDefinition not installed).
    """
    try:
        return await _pages(transport, info, page_size)
    except ApiError as error:
        if not error.gone:
            raise
    return await _pages(transport, info, page_size)


async def _pages(transport: Transport, info: KindInfo, page_size: int) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    token = ""
    path = collection_path(info)
    while True:
        query = [("limit", str(page_size))]
        if token:
            query.append(("continue", token))
        page = await transport.request("GET", path, query=query)
        for item in page.get("items") or ():
            items.append({"apiVersion": info.api_version, "kind": info.kind, **item})
        token = str((page.get("metadata") or {}).get("continue") or "")
        if not token:
            return items
