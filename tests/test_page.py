"""The search page's files as served (no browser here: tests/test_web.py drives one)."""

from __future__ import annotations

import fnmatch
import re
import tomllib
from pathlib import Path

import pytest
from litestar.testing import TestClient

from api import RecallService, Settings
from api.http.app import create_app
from api.http.page import WEB
from indexer import HashEmbedder

ROOT = Path(__file__).resolve().parents[1]
# `import ... from "./x.js"` (or `export ... from`, or a bare `import "./x.js"`) in a page module
IMPORT = re.compile(r'^(?:import\s[^;]*?\sfrom\s*|export\s+(?:\*|\{[^}]*\})\s*from\s*|import\s*)"([^"]+)"',
                    re.MULTILINE)


def page_scripts() -> str:
    """The text of every script of the page: app.js and the modules it imports."""
    return "\n".join(path.read_text("utf-8") for path in sorted(WEB.glob("*.js")))


@pytest.fixture(scope="module")
def locked_client(built_home: Path):
    service = RecallService(Settings(home=built_home, embedder="hash", api_token="page-token"),
                            embedder=HashEmbedder())
    with TestClient(create_app(service.settings, service), base_url="http://127.0.0.1") as c:
        yield c


def test_page_and_assets_need_no_token_but_data_does(locked_client: TestClient) -> None:
    page = locked_client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="/static/app.js">' in page.text
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp and "connect-src 'self'" in csp
    for path, kind in (("/static/app.js", "text/javascript"), ("/static/app.css", "text/css"),
                       ("/static/icon.svg", "image/svg+xml")):
        asset = locked_client.get(path)
        assert asset.status_code == 200 and asset.headers["content-type"].startswith(kind), path
    assert locked_client.get("/static/nothing.js").status_code == 404
    assert locked_client.get("/v1/search", params={"q": "升级"}).status_code == 401
    assert locked_client.get("/v1/facets").status_code == 401
    assert locked_client.get("/schema/openapi.json").status_code == 401
    schema = locked_client.get("/schema/openapi.json", headers={"Authorization": "Bearer page-token"})
    assert "/" not in schema.json()["paths"]  # not an API route


def test_every_module_the_page_imports_is_served(locked_client: TestClient) -> None:
    served, waiting = set(), ["app.js"]
    while waiting:
        name = waiting.pop()
        if name in served:
            continue
        served.add(name)
        module = locked_client.get(f"/static/{name}")
        assert module.status_code == 200, name
        # a module script with any other type is refused by the browser
        kind = module.headers["content-type"]
        assert kind.startswith(("text/javascript", "application/javascript")), (name, kind)
        for target in IMPORT.findall(module.text):
            # relative and flat: resolves under /static/, and the package's web/*.js ships it
            assert re.fullmatch(r"\./[\w-]+\.js", target), (name, target)
            waiting.append(target.removeprefix("./"))
    assert served == {path.name for path in WEB.glob("*.js")}  # no script left out of the page


def test_page_loads_nothing_from_elsewhere() -> None:
    for path in WEB.iterdir():
        # an XML namespace (the icon's xmlns) is a name, not something fetched
        text = re.sub(r'xmlns="[^"]*"', "", path.read_text("utf-8"))
        urls = re.findall(r"(?:https?:)?//[\w.-]+\.\w+", text)
        assert not urls, (path.name, urls)
        assert "@import" not in text and "@font-face" not in text, path.name


def test_archive_text_never_becomes_markup() -> None:
    script = page_scripts()
    for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                 "new Function"):
        assert sink not in script, sink


def test_every_page_file_ships_in_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["api.http"]
    for path in WEB.iterdir():
        name = f"web/{path.name}"
        assert any(fnmatch.fnmatch(name, p) for p in patterns), f"{name} is not in package-data"


def test_both_languages_have_every_string() -> None:
    tables = re.split(r'^  "zh-CN": \{$', (WEB / "strings.js").read_text("utf-8"), flags=re.MULTILINE)
    assert len(tables) == 2
    english = set(re.findall(r'^    "([\w.]+)":', tables[0], flags=re.MULTILINE))
    chinese = set(re.findall(r'^    "([\w.]+)":', tables[1].split("\n};")[0], flags=re.MULTILINE))
    # ".one" forms exist only where a language has a singular
    assert {k for k in english if not k.endswith(".one")} == chinese
    used = set(re.findall(r'\bt\("([\w.]+)"', page_scripts())) | set(
        re.findall(r'data-i18n[\w-]*="([\w.]+)"', (WEB / "index.html").read_text("utf-8")))
    assert used <= english, used - english
