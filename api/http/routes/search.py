"""GET /v1/search: the same request and result as `recall search --json` and the MCP tool; and
POST /v1/pack, a context pack built from one search (`recall pack --json`)."""

from __future__ import annotations

import inspect
from typing import Annotated, Any

import msgspec
from litestar import Router, get, post
from litestar.params import JSONBody, QueryParameter

from api.http.params import Service
from api.http.problems import problem_responses
from api.http.scopes import READ
from api.service import RecallService
from api.service.pack import ContextPack
from api.service.search_params import OPTIONS, Param, search_params
from models import SearchResponse

__all__ = ["router"]

def _search(service: RecallService, q: str, **values: Any) -> SearchResponse:
    values["scope"] = values.pop("search_scope", None)
    return service.search(search_params({**values, "query": q}).request())


def _query_parameter(param: Param) -> inspect.Parameter:
    """A search option (api/service/search_params.py) as a query parameter: its type, limits,
    default and help as SearchParams declares them."""
    name = "search_scope" if param.name == "scope" else param.name  # a name Litestar reserves
    kind = param.kind | None if param.optional else param.kind
    annotation = Annotated[kind, QueryParameter(  # type: ignore[valid-type]  # made at run time
        name=param.name if name != param.name else None, description=param.description,
        ge=param.limits.get("ge"), le=param.limits.get("le"),
        max_length=param.limits.get("max_length"), schema_extra=_documented(param))]
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=param.default,
                             annotation=annotation)


def _documented(param: Param) -> dict[str, Any] | None:
    """A rule shown in the schema but checked by search_params, whose message is clearer."""
    return {"pattern": param.limits["pattern"]} if "pattern" in param.limits else None


def _with_search_parameters(fn: Any) -> Any:
    """`fn(service, q, **values)` with the signature Litestar reads: the service, the query
    (`q`, its length limit a setting: create_app names SearchQuery) and every search option."""
    first = [inspect.Parameter("service", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                               annotation=Service),
             inspect.Parameter("q", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                               annotation="SearchQuery")]
    parameters = first + [_query_parameter(p) for p in OPTIONS]
    fn.__signature__ = inspect.Signature(parameters, return_annotation=SearchResponse)
    fn.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": SearchResponse}
    return fn


search_route = get("/search", opt=READ, sync_to_thread=True, name="search_route",
                   responses=problem_responses(400, 503),
                   summary="Search the archive (same result shape as `recall search --json`)"
                   )(_with_search_parameters(_search))


class PackRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    query: str
    budget: int = 1500


@post("/pack", opt=READ, sync_to_thread=True, status_code=200, responses=problem_responses(400, 413, 503),
      summary="The best evidence for a question within a token budget, cited by session, "
              "message, date and agent, in Markdown and JSON (`recall pack --json`)")
def pack_route(service: Service, data: JSONBody[PackRequest]) -> ContextPack:
    return service.pack(data.query, data.budget)


router = Router(path="/", route_handlers=[search_route, pack_route])
