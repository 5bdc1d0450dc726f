"""The search page in a real browser: Debian's headless Chromium, driven by Playwright, against
`recall serve` over the sample archive in examples/ (hash embedder). Screenshots go to
test-artifacts/web/.

Without /usr/bin/chromium these tests skip, unless RECALL_REQUIRE_BROWSER is set (CI sets it),
in which case a missing browser fails them."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from .helpers import KESTREL_STANDUPS, make_service, serve

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "sessions"
ARTIFACTS = ROOT / "test-artifacts" / "web"
CHROMIUM = Path("/usr/bin/chromium")
# rebind.test resolves to loopback, as a name whose DNS an attacker turned to 127.0.0.1 would
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--host-resolver-rules=MAP rebind.test 127.0.0.1"]
TOKEN = "web-test-token"
FRIDAY = "5973cc90-8e43-4d93-af48-24614faebc52"  # "Friday deploys allowed (trial)", 2026-03-06
FRIDAY_APRIL = "ffc5daa7-fc63-4623-a3f2-174d04ce78ee"  # the vote that banned them again, 2026-04-20
UPGRADE = "063fbb6a-7c1c-4326-b4de-bb73c5b807f8"  # OpenClaw 升级, 2026-03-22
# read at import: conftest clears RECALL_* variables around each test
REQUIRED = bool(os.environ.get("RECALL_REQUIRE_BROWSER"))

# one worker starts the servers and the browser (pytest -n 2 --dist loadgroup)
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]
if not CHROMIUM.exists() and not REQUIRED:
    pytestmark = [pytest.mark.browser, pytest.mark.skip(
        reason=f"{CHROMIUM} is missing (apt-get install chromium; set RECALL_REQUIRE_BROWSER=1 to fail instead)")]

if REQUIRED:
    from playwright.sync_api import Browser, Page, expect, sync_playwright
else:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    Browser, Page, expect, sync_playwright = (sync_api.Browser, sync_api.Page, sync_api.expect,
                                              sync_api.sync_playwright)

expect.set_options(timeout=15_000)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    home = tmp_path_factory.mktemp("web-home")
    report = make_service(home).index([EXAMPLES])
    assert report.indexed == 14 and not report.rejected
    return home


def _server(home: Path, env: dict | None = None) -> Iterator[str]:
    proc, base = serve(home, env=env)
    try:
        yield base
    finally:
        proc.terminate()
        proc.communicate(timeout=10)


@pytest.fixture(scope="module")
def server(archive: Path) -> Iterator[str]:
    yield from _server(archive)


@pytest.fixture(scope="module")
def changed_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server over sessions where a later decision changed an earlier one."""
    home = tmp_path_factory.mktemp("web-facts")
    service = make_service(home)
    for record in KESTREL_STANDUPS:
        service.ingest_record(record)
    yield from _server(home)


@pytest.fixture(scope="module")
def locked_server(archive: Path) -> Iterator[str]:
    yield from _server(archive, {"RECALL_API_TOKEN": TOKEN})


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"RECALL_REQUIRE_BROWSER is set but {CHROMIUM} is missing")
    with sync_playwright() as p:
        # Debian's Chromium, never a downloaded one; Playwright gives it a fresh profile directory
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True, timeout=60_000)
        yield browser
        browser.close()


class Tab:
    """A page in a fresh browser context, with every request and script error it saw."""

    def __init__(self, browser: Browser, base: str, locale: str) -> None:
        self.base = base
        self.context = browser.new_context(locale=locale, viewport={"width": 1200, "height": 800})
        self.page: Page = self.context.new_page()
        self.page.set_default_timeout(15_000)
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def open(self, path: str = "/") -> Page:
        self.page.goto(self.base + path)
        return self.page

    def shot(self, name: str) -> None:
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        self.page.screenshot(path=ARTIFACTS / f"{name}.png")

    def close(self) -> None:
        self.context.close()
        # offline: every request went to recall itself (no CDN, font or script from elsewhere)
        assert self.requests and all(u.startswith(self.base + "/") for u in self.requests), self.requests
        assert not self.errors, self.errors


@pytest.fixture
def tab(browser: Browser, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, "en-US")
    yield t
    t.close()


@pytest.fixture
def zh_tab(browser: Browser, server: str) -> Iterator[Tab]:
    t = Tab(browser, server, "zh-CN")
    yield t
    t.close()


def _query(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlsplit(page.url).query)


def test_search_as_you_type_in_english(tab: Tab) -> None:
    page = tab.open()
    expect(page.locator("#q")).to_have_attribute("placeholder", re.compile("What did I say before"))
    page.keyboard.press("/")
    expect(page.locator("#q")).to_be_focused()
    page.keyboard.type("Friday deploys")  # no Enter: the search runs after a short pause
    # the April vote that banned them again comes first, marked current; the March trial that
    # allowed them follows, with the matched words marked
    expect(page.locator(".result").first).to_have_attribute("data-session", FRIDAY_APRIL)
    expect(page.locator(".result").first.locator(".badge-current")).to_be_visible()
    first = page.locator(".result").nth(1)
    expect(first).to_have_attribute("data-session", FRIDAY)
    expect(first.locator(".badge-superseded")).to_contain_text("2026-04-20")
    expect(first.locator("mark").filter(has_text=re.compile(r"^Friday$")).first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]q=Friday(\+|%20)deploys"))
    first.hover()
    expect(first.locator(".score")).to_be_visible()
    expect(first.locator(".score")).to_contain_text("score 0.")
    tab.shot("search-en")


def test_highlights_after_an_emoji_fall_on_the_word(tab: Tab) -> None:
    # the API counts code points; JavaScript strings count UTF-16 units, two per emoji
    page = tab.open("/?q=Arashiyama+bamboo&mode=keyword")
    snippet = page.locator(".result").first.locator(".snippet").first
    expect(snippet).to_contain_text("🎋")
    expect(snippet.locator("mark")).to_have_text(["Arashiyama", "bamboo"])


def test_search_in_chinese(zh_tab: Tab) -> None:
    page = zh_tab.open()
    expect(page.locator("html")).to_have_attribute("lang", "zh-CN")
    expect(page.locator("#q")).to_have_attribute("placeholder", re.compile("我之前说过什么"))
    expect(page.locator("#nav-digest")).to_have_text("摘要")
    page.locator("#q").fill("升级")
    page.keyboard.press("Enter")
    first = page.locator(".result").first
    expect(first).to_have_attribute("data-session", UPGRADE)
    expect(first.locator("mark").first).to_have_text("升级")
    expect(page.locator(".count")).to_have_text(re.compile(r"\d+ 个会话"))
    expect(first.locator(".role").first).to_have_text(re.compile("助手|用户|摘要"))
    zh_tab.shot("search-zh")


def test_open_a_session_at_the_matched_message(tab: Tab) -> None:
    page = tab.open("/?q=Friday+deploys")
    link = page.locator(f'.result[data-session="{FRIDAY}"] a.hit-link:has(.role-assistant)').first
    message_id = _query_of(link.get_attribute("href"))["msg"][0]
    link.click()
    current = page.locator("#view-session .message.current")
    expect(current).to_have_attribute("data-id", message_id)
    expect(current).to_be_in_viewport()
    expect(current.locator("mark").first).to_be_visible()
    expect(page.locator(".message")).to_have_count(10)
    expect(page.locator(".message .role").first).to_have_text("user")
    expect(page.locator(".message time").first).to_have_text("2026-03-06 11:00")
    expect(page.locator("#memories h3", has_text="Feedback")).to_be_visible()
    expect(page.locator("#memories li", has_text="no headings bigger than h3")).to_be_visible()
    expect(page.locator("#snapshots")).to_contain_text("No snapshots yet.")
    tab.shot("session")
    page.keyboard.press("Escape")  # back to the same results
    expect(page.locator(f'.result[data-session="{FRIDAY}"]')).to_be_visible()
    assert _query(page)["q"] == ["Friday deploys"] and "session" not in _query(page)


def _query_of(href: str | None) -> dict[str, list[str]]:
    assert href
    return parse_qs(urlsplit(href).query)


def test_recovery_for_a_typed_context(tab: Tab) -> None:
    page = tab.open(f"/?session={UPGRADE}")
    context = page.locator("#recover-context")
    context.fill("继续整理记忆系统，把 MEMORY.md 的旧决定标记 superseded")
    page.get_by_role("button", name="Choose a snapshot").click()
    expect(page.locator("#recover-needs-snapshot")).to_be_visible()  # honest: nothing to choose yet
    page.locator("#save-snapshot").click()
    saved = page.locator("#snapshots li")
    expect(saved).to_have_count(1)
    snapshot_id = saved.first.get_attribute("data-id")
    page.get_by_role("button", name="Choose a snapshot").click()
    decision = page.locator("#recover-result .decision")
    expect(decision).to_be_visible()
    expect(decision.locator("[data-strategy]")).to_have_attribute(
        "data-strategy", re.compile("full_restore|partial_restore|merge_current|summarize_only|confirm_first"))
    expect(decision.locator(".confidence")).to_have_text(re.compile(r"^\d{1,3}%$"))
    expect(decision.locator(".selected")).to_have_attribute("title", snapshot_id or "")
    assert decision.locator(".reasons li").count() >= 1
    tab.shot("recovery")


def test_no_match_is_said_plainly(tab: Tab) -> None:
    page = tab.open()
    page.locator("#q").fill("xylophone quasar")
    expect(page.locator("#no-match")).to_contain_text("No match for “xylophone quasar”.")
    expect(page.locator(".result")).to_have_count(0)
    page.locator(".modes label", has_text="keyword").click()
    expect(page).to_have_url(re.compile("mode=keyword"))
    expect(page.locator("#no-match")).to_be_visible()
    tab.shot("no-match")
    # a filter that hides every answer says so, and offers the search without it
    page = tab.open("/?q=Friday+deploys&since=2026-04-01&mode=keyword")
    expect(page.locator("#no-match")).to_be_visible()
    page.get_by_role("button", name="Search without filters").click()
    expect(page.locator(f'.result[data-session="{FRIDAY}"]')).to_be_visible()
    assert "since" not in _query(page)


def test_search_state_lives_in_the_url(tab: Tab) -> None:
    page = tab.open("/?q=Tidepool&since=2026-04-01&channel=webchat")
    expect(page.locator("#q")).to_have_value("Tidepool")
    expect(page.locator('#filters input[name="since"]')).to_have_value("2026-04-01")
    expect(page.locator('#filters select[name="channel"]')).to_have_value("webchat")
    expect(page.locator(".result")).to_have_count(1)
    expect(page.locator(".result time").first).to_have_text("2026-04-20")
    page.reload()  # a bookmark gives the same page
    expect(page.locator(".result")).to_have_count(1)
    page.locator('#filters input[name="since"]').fill("")
    expect(page.locator(".result")).to_have_count(3)
    assert "since" not in _query(page) and _query(page)["channel"] == ["webchat"]
    page.go_back()
    expect(page.locator(".result")).to_have_count(1)
    expect(page.locator('#filters input[name="since"]')).to_have_value("2026-04-01")


def test_more_results(tab: Tab) -> None:
    page = tab.open("/?q=Lin")
    expect(page.locator(".result")).to_have_count(10)
    page.get_by_role("button", name="More results").click()
    expect(page.locator(".result")).to_have_count(11)  # all there are: no button for more
    expect(page.get_by_role("button", name="More results")).to_have_count(0)
    assert _query(page)["limit"] == ["20"]


def test_keyboard_only(tab: Tab) -> None:
    page = tab.open("/?q=Tidepool")
    cards = page.locator(".result")
    expect(cards).to_have_count(4)
    page.keyboard.press("/")
    expect(page.locator("#q")).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(cards.nth(0)).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(cards.nth(1)).to_be_focused()
    second = cards.nth(1).get_attribute("data-session")
    page.keyboard.press("Enter")
    expect(page.locator("#view-session")).to_be_visible()
    assert _query(page)["session"] == [second]
    page.keyboard.press("Escape")
    expect(page.locator(f'.result[data-session="{second}"]')).to_be_focused()  # where we left off
    page.keyboard.press("ArrowUp")
    expect(cards.nth(0)).to_be_focused()
    page.keyboard.press("ArrowUp")
    expect(page.locator("#q")).to_be_focused()


def test_a_superseded_decision_is_marked_with_a_link_to_what_replaced_it(
        browser: Browser, changed_server: str) -> None:
    tab = Tab(browser, changed_server, "en-US")
    try:
        page = tab.open("/?q=Kestrel+standup+every+weekday&mode=keyword")
        old = page.locator(".result", has_text="9:30 every weekday")
        expect(old.locator(".badge-superseded")).to_have_text("superseded on 2026-02-10 by")
        expect(old.locator(".fact-link")).to_contain_text("10:15 instead of 9:30")
        expect(page.locator(".result").first.locator(".badge-current")).to_have_text(
            "current since 2026-02-10")
        tab.shot("superseded")
        old.locator(".fact-link").click()
        assert _query(page)["session"] == ["standup-feb"]
    finally:
        tab.close()


def test_digest_for_a_month(tab: Tab) -> None:
    page = tab.open("/?view=digest&period=month&date=2026-03-15")
    expect(page.locator("#view-digest .count")).to_have_text("2026-03-01 – 2026-03-31: 3 sessions, 32 messages")
    expect(page.locator("#digest-topics .chip", has_text="Tidepool")).to_contain_text("2")
    expect(page.locator("#digest-tasks li")).to_contain_text(["remind me to review it after the trial."])
    expect(page.locator("#digest-activity li")).to_have_count(3)
    tab.shot("digest")
    page.get_by_role("button", name="Later →").click()
    expect(page.locator("#view-digest .count")).to_contain_text("2026-04-01 – 2026-04-30")
    assert _query(page)["date"] == ["2026-04-01"]
    page.locator("#digest-topics .chip").first.click()  # a topic opens its search in that period
    expect(page.locator(".result").first).to_be_visible()
    assert _query(page)["since"] == ["2026-04-01"]


def test_asks_for_the_token_once(browser: Browser, locked_server: str) -> None:
    tab = Tab(browser, locked_server, "en-US")
    try:
        unauthorized: list[str] = []
        tab.page.on("response", lambda r: r.status == 401 and unauthorized.append(r.url))
        page = tab.open("/?q=Friday+deploys")
        dialog = page.locator("#token-dialog")
        expect(dialog).to_be_visible()
        page.locator("#token-input").fill("not-the-token")
        page.keyboard.press("Enter")
        expect(page.locator("#token-error")).to_be_visible()  # asked again, saying why
        page.locator("#token-input").fill(TOKEN)
        tab.shot("token")
        page.get_by_role("button", name="Unlock").click()
        expect(dialog).to_be_hidden()
        expect(page.locator(f'.result[data-session="{FRIDAY}"]')).to_be_visible()
        assert page.evaluate("sessionStorage.getItem('recall.token')") == TOKEN
        asked = len(unauthorized)
        page.locator("#q").fill("升级")
        expect(page.locator(f'.result[data-session="{UPGRADE}"]')).to_be_visible()
        page.reload()  # kept for the tab's session
        expect(page.locator(f'.result[data-session="{UPGRADE}"]')).to_be_visible()
        expect(dialog).to_be_hidden()
        assert len(unauthorized) == asked, unauthorized[asked:]
    finally:
        tab.close()



# What a page on another origin tries against a local recall with no token: every route that
# changes something, as "simple" requests (no preflight: a no-cors fetch with a text/plain
# body, a form posting JSON-looking text) and as ordinary JSON fetches (which need a preflight
# this server never grants).
ATTACK = """async ({base, ops}) => {
  const out = [];
  for (const op of ops) {
    for (const [mode, type] of [["no-cors", "text/plain"], ["cors", "application/json"]]) {
      try {
        const r = await fetch(base + op.path, {method: op.method, mode, body: op.body,
                                               headers: {"Content-Type": type}});
        out.push(`${op.method} ${op.path} ${mode}: ${r.type} ${r.status}`);
      } catch (e) {
        out.push(`${op.method} ${op.path} ${mode}: refused (${e.name})`);
      }
    }
  }
  for (const op of ops.filter(op => op.method === "POST")) {  // form posts, into a frame
    const frame = document.createElement("iframe");
    frame.name = "f" + out.length;
    document.body.append(frame);
    const form = document.createElement("form");
    Object.assign(form, {method: "post", action: base + op.path, enctype: "text/plain",
                         target: frame.name});
    const field = document.createElement("input");
    field.name = op.body.slice(0, -1) + ', "x": "';  // the body, then ="} closes it
    field.value = '"}';
    form.append(field);
    document.body.append(form);
    const loaded = new Promise(done => frame.onload = done);
    form.submit();
    await loaded;
    out.push(`form POST ${op.path}: sent`);
  }
  return out;
}"""


# Chromium's Private Network Access already stops a page loaded from a public address from
# reading loopback; Firefox and Safari do not, so the refusal must be the server's. This browser
# has that check off, to show the server's.
NO_PRIVATE_NETWORK_CHECKS = ("--disable-features=LocalNetworkAccessChecks,"
                             "PrivateNetworkAccessSendPreflights,BlockInsecurePrivateNetworkRequests")


def _rebound_read(browser: Browser, port: str) -> list[object]:
    """DNS rebinding: the attacker's name first served its page, then points at 127.0.0.1, so
    the page's own-origin fetches reach recall under that name."""
    other = browser.browser_type.launch(executable_path=str(CHROMIUM), headless=True,
                                        args=[*FLAGS, NO_PRIVATE_NETWORK_CHECKS], timeout=60_000)
    try:
        page = other.new_page()
        rebound = f"http://rebind.test:{port}/"
        page.route(rebound, lambda route: route.fulfill(
            content_type="text/html", body="<!doctype html><title>rebound</title><body>"))
        page.goto(rebound)
        read: list[object] = page.evaluate("""async (id) => {
            const r = await fetch(`/v1/sessions/${id}`);
            return [r.status, await r.text()];
        }""", FRIDAY)
        return read
    finally:
        other.close()


def _attacker_page() -> Iterator[str]:
    """A blank page on another port of localhost: the attacker's origin."""

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>a blog</title><body>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://localhost:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


def _write_operations(base: str) -> list[dict[str, str]]:
    """Every operation of the API that is not a GET, with its path filled in and a body that
    would do harm if it were taken: wipe everything, plant text in a session."""
    planted = json.dumps({"sessionId": FRIDAY, "date": "2026-03-06",
                          "messages": [{"role": "user", "content": "PLANTED: run curl evil.sh"}]})
    bodies = {"/v1/sessions": planted, "/v1/cleanup": '{"older_than": "1d", "dry_run": false}'}
    ops = []
    for path, methods in httpx.get(f"{base}/schema/openapi.json").json()["paths"].items():
        for method in methods:
            if method in ("get", "head", "options") or not path.startswith("/v1/"):
                continue
            filled = (path.replace("{session_id}", FRIDAY).replace("{snapshot_id}", "x")
                      .replace("{todo_id}", "x"))
            ops.append({"method": method.upper(), "path": filled,
                        "body": bodies.get(path, '{"status": "closed", "content": "PLANTED"}')})
    return ops


def _fingerprint(home: Path, base: str) -> str:
    """Every session as stored, and the todos: what an attack would change."""
    digest = hashlib.sha256()
    for path in sorted((home / "archive").rglob("*.json")):
        digest.update(path.name.encode() + path.read_bytes())
    digest.update(json.dumps(httpx.get(f"{base}/v1/todos").json()).encode())
    return digest.hexdigest()


def test_a_page_on_another_origin_can_neither_change_nor_read_the_archive(
        browser: Browser, archive: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(archive, home, ignore=shutil.ignore_patterns("writer.lock"))
    for base, attacker in zip(_server(home), _attacker_page(), strict=True):
        port = base.rsplit(":", 1)[1]
        before = _fingerprint(home, base)
        ops = _write_operations(base)
        assert len(ops) >= 15 and {"POST", "PATCH", "DELETE"} <= {op["method"] for op in ops}
        context = browser.new_context()
        page = context.new_page()
        try:
            # a page of another local origin (another dev server's port), served for real:
            # Chromium lets a loopback page send to loopback
            page.goto(attacker)
            tried = page.evaluate(ATTACK, {"base": base, "ops": ops})
            assert len(tried) == 2 * len(ops) + sum(op["method"] == "POST" for op in ops)
            # JSON needs a preflight, which is never granted: the browser refuses those itself
            assert all("refused" in line for line in tried if " cors:" in line), tried
        finally:
            context.close()
        read = _rebound_read(browser, port)
        assert read[0] == 421, read
        assert "Friday" not in read[1]
        assert _fingerprint(home, base) == before
        stats = httpx.get(f"{base}/v1/stats").json()
        assert stats["sessions"] == 14
        refused = [json.loads(line) for line in (home / "audit.jsonl").read_text().splitlines()]
        assert any(line["outcome"] == "403" and attacker.rstrip("/") in line["note"]
                   for line in refused)
        assert any(line["outcome"] == "421" and "rebind.test" in line["note"]
                   for line in refused)
