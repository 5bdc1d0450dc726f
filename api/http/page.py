"""The search page: one HTML file at `/` and its script, style and icon under `/static/`.

They hold no archive data (the page fetches everything from /v1 with the user's token), so they
are served without the token: a browser must be able to load the page that asks for it.
"""

from __future__ import annotations

from pathlib import Path

from litestar import Response, get
from litestar.datastructures import CacheControlHeader
from litestar.static_files import create_static_files_router
from litestar.types import ControllerRouterHandler

from api.http.scopes import PUBLIC

__all__ = ["page_routes"]

WEB = Path(__file__).parent / "web"

# Everything comes from this server: no CDN, font or script elsewhere, no inline script, and
# archive text can never run as code even if some of it slipped into the markup.
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CSP, "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}


@get("/", include_in_schema=False, sync_to_thread=False, opt=PUBLIC)
def index_route() -> Response[bytes]:
    # read per request: a small file, and an upgraded install serves its new page at once
    return Response((WEB / "index.html").read_bytes(), media_type="text/html",
                    headers=HEADERS)


def page_routes() -> list[ControllerRouterHandler]:
    static = create_static_files_router(
        path="/static", directories=[WEB], name="page-static",
        # revalidate each load, so a new version of the script never meets an old page
        cache_control=CacheControlHeader(no_cache=True), include_in_schema=False,
        opt=PUBLIC)
    return [index_route, static]
