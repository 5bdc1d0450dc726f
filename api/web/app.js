// recall's page: search, a session's transcript with its memories, snapshots and recovery, and a
// digest. Dependency-free ES modules, no build step; this one is the entry point. Archive text
// only ever enters the page as text nodes (el()), never as markup; highlights are built from
// the API's offsets.

import { api, errorBox } from "./api.js";
import { $, el, fill, setStatus } from "./dom.js";
import { fillFilters, loadFacets } from "./facets.js";
import { onKey } from "./keys.js";
import { FILTERS, PAGE, PERIODS, navigate, open, readState, searchState, setRender, urlFor } from "./router.js";
import { count, t, translatePage } from "./strings.js";
import { fixed, highlighted, markTerms, roleName, shortTime, termsOf } from "./text.js";

// ---------------------------------------------------------------- rendering

function render() {
  const state = readState();
  syncControls(state);
  for (const name of ["search", "session", "digest"]) $(`#view-${name}`).hidden = state.view !== name;
  $("#filters").hidden = state.view !== "search";
  $("#nav-search").toggleAttribute("aria-current", state.view !== "digest");
  $("#nav-digest").toggleAttribute("aria-current", state.view === "digest");
  setStatus("");
  if (state.view === "session") return renderSession(state);
  if (state.view === "digest") return renderDigest(state);
  return renderSearch(state);
}

function syncControls(state) {
  const q = $("#q");
  if (document.activeElement !== q && q.value !== state.q) q.value = state.q;
  for (const radio of document.querySelectorAll('input[name="mode"]')) radio.checked = radio.value === state.mode;
  const filters = $("#filters");
  for (const name of FILTERS) {
    const field = filters.elements[name];
    if (field.tagName === "SELECT" && state[name] && ![...field.options].some((o) => o.value === state[name])) {
      field.append(el("option", { value: state[name] }, state[name])); // a value from a shared link
    }
    field.value = state[name];
  }
}

let renderSeq = 0; // a view's answer that arrives after another render started is dropped
let lastOpened = ""; // the session last opened from the results, focused again on the way back
const searchCache = new Map(); // url -> answer: going back shows the results at once

// -------- search

async function renderSearch(state) {
  const seq = ++renderSeq;
  const view = $("#view-search");
  if (!state.q.trim()) return renderRecent(state, view, seq);
  const url = urlFor(state);
  let body = searchCache.get(url);
  if (!body) {
    setStatus(t("status.searching"));
    view.setAttribute("aria-busy", "true");
    try {
      body = await api("/v1/search", {
        params: { q: state.q, mode: state.mode, since: state.since, until: state.until,
                  channel: state.channel, participant: state.participant, limit: Math.min(state.limit, 100) },
      });
    } catch (error) {
      if (seq === renderSeq) { setStatus(""); view.removeAttribute("aria-busy"); fill(view, errorBox(error)); }
      return;
    }
    remember(url, body);
  }
  if (seq !== renderSeq) return;
  setStatus("");
  view.removeAttribute("aria-busy");
  if (!body.results.length) return fill(view, noMatch(state));
  const more = body.results.length >= state.limit && state.limit < 100;
  fill(view,
    el("p", { class: "count" }, count("results.count", body.results.length)),
    el("ol", { class: "results" }, body.results.map((hit) => resultCard(hit, state))),
    more && el("button", { class: "more", type: "button",
                           onclick: () => navigate({ ...state, limit: state.limit + PAGE }, { replace: true }) },
                t("results.more")),
  );
  refocus(view);
}

function remember(url, body) {
  searchCache.set(url, body);
  if (searchCache.size > 30) searchCache.delete(searchCache.keys().next().value);
}

function noMatch(state) {
  const filtered = FILTERS.some((name) => state[name]);
  return el("div", { class: "empty", id: "no-match" },
    el("p", { class: "empty-title" }, t("results.none", { q: state.q })),
    el("p", {}, t("results.none.hint")),
    filtered && el("button", { type: "button",
      onclick: () => navigate({ ...state, since: "", until: "", channel: "", participant: "" }) },
    t("results.none.filtered")));
}

function scoreText(hit) {
  const parts = Object.entries(hit.score_parts || {}).map(([name, value]) => `${name} ${fixed(value)}`);
  return t("score", { score: fixed(hit.score, 4) }) + (parts.length ? ` (${parts.join(" · ")})` : "");
}

function sessionHref(state, sessionId, messageId) {
  return urlFor({ ...state, view: "session", session: sessionId, msg: messageId || "" });
}

function resultCard(hit, state) {
  const best = hit.messages[0];
  const href = sessionHref(state, hit.session_id, best ? best.id || "summary" : "");
  return el("li", { class: "result nav-item", tabindex: "0", "data-href": href, "data-session": hit.session_id,
                    title: scoreText(hit) },
    el("div", { class: "meta" },
      el("time", { datetime: hit.date }, hit.date),
      hit.channel && el("span", { class: "channel" }, hit.channel),
      el("span", { class: "score" }, scoreText(hit))),
    el("a", { class: "title", href, tabindex: "-1" }, hit.title || t("untitled")),
    el("ul", { class: "hits" }, hit.messages.map((message) =>
      el("li", {},
        el("a", { class: "hit-link", tabindex: "-1", title: t("score", { score: fixed(message.score, 4) }),
                  href: sessionHref(state, hit.session_id, message.id || "summary") },
          el("span", { class: `role role-${message.role}` }, roleName(message)),
          el("span", { class: "snippet" }, highlighted(message.snippet, message.highlights)),
          message.time && el("time", { datetime: message.time }, shortTime(message.time)))))));
}

// Without a query: the newest sessions (matching the filters), to browse by date or channel
async function renderRecent(state, view, seq) {
  let body;
  try {
    body = await api("/v1/sessions", { params: { since: state.since, until: state.until,
      channel: state.channel, participant: state.participant, limit: state.limit } });
  } catch (error) {
    if (seq === renderSeq) fill(view, errorBox(error));
    return;
  }
  if (seq !== renderSeq) return;
  const filtered = FILTERS.some((name) => state[name]);
  if (!body.sessions.length) return fill(view, el("p", { class: "empty" }, t("recent.none")));
  fill(view,
    el("h2", {}, filtered ? t("recent.filtered") : t("recent.title"),
      el("span", { class: "count" }, ` · ${count("results.count", body.total)}`)),
    el("ol", { class: "results" }, body.sessions.map((s) => {
      const href = sessionHref(state, s.session_id, "");
      return el("li", { class: "result nav-item", tabindex: "0", "data-href": href, "data-session": s.session_id },
        el("div", { class: "meta" }, el("time", { datetime: s.date }, s.date),
          s.channel && el("span", { class: "channel" }, s.channel),
          el("span", {}, count("session.messages", s.message_count))),
        el("a", { class: "title", href, tabindex: "-1" }, s.title || s.summary || s.topics.join(" · ") || s.session_id),
        s.topics.length > 0 && el("p", { class: "topics" }, s.topics.map((topic) => el("span", { class: "chip" }, topic))));
    })),
    body.total > body.sessions.length && el("button", { class: "more", type: "button",
      onclick: () => navigate({ ...state, limit: state.limit + 20 }, { replace: true }) }, t("recent.more")),
  );
  refocus(view);
}

// back from a session: put the keyboard where it was
function refocus(view) {
  const active = document.activeElement;
  // leave the focus alone if the user has put it somewhere still on screen
  if (!lastOpened || (active && active !== document.body && !active.closest("[hidden]"))) return;
  const card = [...view.querySelectorAll(".nav-item")].find((node) => node.dataset.session === lastOpened);
  card?.focus();
}

// -------- session

async function renderSession(state) {
  const seq = ++renderSeq;
  const view = $("#view-session");
  const id = state.session;
  lastOpened = id;
  setStatus(t("status.loading"));
  let record;
  let hits = [];
  try {
    const matching = state.q.trim()
      ? api("/v1/search", { params: { q: state.q, mode: state.mode, session: id, limit: 1 } })
        .catch(() => null) // only for marking words: the transcript shows without it
      : null;
    record = await api(`/v1/sessions/${encodeURIComponent(id)}`);
    hits = (await matching)?.results?.[0]?.messages || [];
  } catch (error) {
    if (seq === renderSeq) { setStatus(""); fill(view, backLink(state), errorBox(error)); }
    return;
  }
  if (seq !== renderSeq) return;
  setStatus("");
  const terms = termsOf(hits);
  const hitIds = new Set(hits.map((hit) => hit.id || "summary"));
  const side = el("aside", { class: "side" });
  fill(view, backLink(state),
    el("div", { class: "session" }, el("article", { class: "transcript" },
      sessionHeader(record, state, terms, hitIds), transcript(record, state, terms, hitIds)), side));
  document.title = `${record.date} · ${record.title || record.summary || id} · recall`.slice(0, 120);
  const current = view.querySelector(".current");
  if (current) {
    current.scrollIntoView({ block: "center" });
    current.focus({ preventScroll: true });
  } else {
    window.scrollTo(0, 0);
  }
  fillSide(side, record, seq);
}

function backLink(state) {
  return el("a", { class: "back", href: urlFor(searchState(state)) }, t("session.back"));
}

function sessionHeader(record, state, terms, hitIds) {
  const summaryHit = hitIds.has("summary");
  const summary = record.summary || "";
  const summaryClass = ["summary", summaryHit && "hit", state.msg === "summary" && "current"].filter(Boolean).join(" ");
  return el("header", { class: "session-head" },
    el("h1", {}, record.title || summary.split(/[。.!?！？\n]/)[0] || record.sessionId),
    el("p", { class: "meta" },
      el("time", { datetime: record.date }, record.date),
      record.channel && el("span", { class: "channel" }, record.channel),
      (record.participants || []).length > 0 && el("span", {}, record.participants.join(", ")),
      el("span", {}, count("session.messages", (record.messages || []).length))),
    (record.topics || []).length > 0 && el("p", { class: "topics", "aria-label": t("session.topics") },
      record.topics.map((topic) => el("span", { class: "chip" }, topic))),
    summary && el("section", { class: summaryClass, tabindex: "-1", "data-id": "summary" },
      el("h2", {}, t("session.summary")), el("p", {}, summaryHit ? markTerms(summary, terms) : summary)),
    (record.decisions || []).length > 0 && el("section", { class: "decisions" },
      el("h2", {}, t("session.decisions")),
      el("ul", {}, record.decisions.map((d) => el("li", {}, typeof d === "string" ? d : d.text,
        d.context && el("span", { class: "muted" }, ` (${d.context})`))))),
    record.retention && el("p", { class: "note" }, t("session.trimmed", { tier: record.retention.tier || "" })));
}

function transcript(record, state, terms, hitIds) {
  const messages = record.messages || [];
  return el("section", {},
    el("h2", {}, t("session.transcript")),
    el("ol", { class: "messages" }, messages.map((message) => {
      const hit = hitIds.has(message.id);
      const classes = ["message", `role-${message.role}`, hit && "hit", message.id === state.msg && "current"];
      const text = typeof message.content === "string" ? message.content : JSON.stringify(message.content);
      return el("li", { class: classes.filter(Boolean).join(" "), "data-id": message.id, tabindex: "-1" },
        el("div", { class: "message-head" },
          el("span", { class: `role role-${message.role}` }, roleName(message)),
          message.name && el("span", { class: "muted" }, message.name),
          message.time && el("time", { datetime: message.time, title: message.time }, shortTime(message.time))),
        el("div", { class: "content" }, hit ? markTerms(text, terms) : text));
    })));
}

function showMessage(id) {
  const node = [...document.querySelectorAll("#view-session .message")].find((m) => m.dataset.id === id);
  if (!node) return;
  for (const old of document.querySelectorAll("#view-session .current")) old.classList.remove("current");
  node.classList.add("current");
  node.scrollIntoView({ block: "center", behavior: "smooth" });
  node.focus({ preventScroll: true });
  const state = readState();
  history.replaceState(null, "", urlFor({ ...state, msg: id }));
}

function fillSide(side, record, seq) {
  const id = record.sessionId;
  const memories = el("section", { class: "panel", id: "memories" }, el("h2", {}, t("memories.title")));
  const snapshots = el("section", { class: "panel", id: "snapshots" }, el("h2", {}, t("snapshots.title")));
  fill(side, recoverPanel(id), snapshots, memories);
  loadMemories(memories, id, seq);
  loadSnapshots(snapshots, id, seq);
}

const MEMORY_TYPES = ["user", "feedback", "project", "reference"];

async function loadMemories(panel, id, seq) {
  let body;
  try {
    body = await api(`/v1/sessions/${encodeURIComponent(id)}/memories`, { method: "POST", body: {} });
  } catch (error) {
    if (seq === renderSeq) panel.append(errorBox(error));
    return;
  }
  if (seq !== renderSeq) return;
  if (!body.memories.length) return panel.append(el("p", { class: "muted" }, t("memories.none")));
  for (const type of MEMORY_TYPES) {
    const ofType = body.memories.filter((m) => m.type === type);
    if (!ofType.length) continue;
    panel.append(el("h3", {}, t(`memtype.${type}`)), el("ul", { class: "memories" }, ofType.map((m) =>
      el("li", { title: `${m.kind || m.type} · ${fixed(m.confidence, 2)}` }, m.text,
        m.due_date && el("span", { class: "muted" }, ` · ${t("task.due", { date: m.due_date })}`),
        m.source_message_ids.length > 0 && el("button", { type: "button", class: "link",
          "aria-label": t("memories.source"), title: t("memories.source"),
          onclick: () => showMessage(m.source_message_ids[0]) }, "↗")))));
  }
}

async function loadSnapshots(panel, id, seq) {
  let body;
  try {
    body = await api(`/v1/sessions/${encodeURIComponent(id)}/snapshots`);
  } catch (error) {
    if (seq === renderSeq) panel.append(errorBox(error));
    return;
  }
  if (seq !== renderSeq) return;
  const list = body.snapshots.length
    ? el("ol", { class: "snapshots" }, [...body.snapshots].reverse().map((s) =>
      el("li", { "data-id": s.id, title: s.id }, el("time", { datetime: s.createdAt }, shortTime(s.createdAt)),
        " ", s.description,
        el("span", { class: "muted" }, ` · ${t("snapshots.items", { i: s.intents.length, f: s.facts.length, t: s.tasks.length })}`))))
    : el("p", { class: "muted" }, t("snapshots.none"));
  const save = el("button", { type: "button", id: "save-snapshot", onclick: async () => {
    save.disabled = true;
    try {
      await api(`/v1/sessions/${encodeURIComponent(id)}/snapshots`, { method: "POST" });
    } catch (error) {
      panel.append(errorBox(error));
      save.disabled = false;
      return;
    }
    fill(panel, panel.firstElementChild);
    loadSnapshots(panel, id, renderSeq);
  } }, t("snapshots.save"));
  panel.append(list, save);
}

function recoverPanel(id) {
  const context = el("textarea", { id: "recover-context", rows: "3", placeholder: t("recover.placeholder"),
                                   "aria-label": t("recover.title") });
  const result = el("div", { id: "recover-result", "aria-live": "polite" });
  const form = el("form", { class: "recover", onsubmit: async (event) => {
    event.preventDefault();
    const button = form.querySelector("button");
    button.disabled = true;
    fill(result, el("p", { class: "muted" }, t("status.loading")));
    try {
      const decision = await api("/v1/recovery", { method: "POST",
        body: { session_id: id, context: context.value.trim() || null } });
      fill(result, decisionView(decision));
    } catch (error) {
      fill(result, error.status === 404
        ? el("p", { class: "note", id: "recover-needs-snapshot" }, t("recover.needsnap"))
        : errorBox(error));
    } finally {
      button.disabled = false;
    }
  } }, el("p", { class: "muted" }, t("recover.help")), context,
  el("button", { type: "submit" }, t("recover.run")));
  // Ctrl/Cmd+Enter runs it from the text box
  context.addEventListener("keydown", (event) => {
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) form.requestSubmit();
  });
  return el("section", { class: "panel", id: "recover" }, el("h2", {}, t("recover.title")), form, result);
}

function decisionView(decision) {
  const snap = decision.selected_snapshot;
  const row = (label, ...value) => [el("dt", {}, label), el("dd", {}, ...value)];
  return el("div", { class: "decision" },
    el("dl", {},
      row(t("recover.strategy"), el("strong", { class: `strategy strategy-${decision.strategy}`, "data-strategy": decision.strategy },
        t(`strategy.${decision.strategy}`))),
      row(t("recover.confidence"), el("span", { class: "confidence" }, `${Math.round(decision.confidence * 100)}%`)),
      row(t("recover.selected"), el("span", { class: "selected", title: snap.id }, shortTime(snap.createdAt), " ",
        snap.description))),
    el("h3", {}, t("recover.reasons")),
    el("ul", { class: "reasons" }, decision.reasons.map((reason) => el("li", {}, reason))),
    decision.alternatives.length > 0 && [
      el("h3", {}, t("recover.alternatives")),
      el("ul", { class: "alternatives" }, decision.alternatives.map((a) =>
        el("li", { title: a.snapshot_id }, shortTime(a.created_at), ` · ${fixed(a.score, 2)} · `, a.reason)))]);
}

// -------- digest

function today() {
  const now = new Date();
  return new Date(now.getTime() - now.getTimezoneOffset() * 60000).toISOString().slice(0, 10);
}

function shiftDate(day, period, step) {
  const d = new Date(`${day}T00:00:00Z`);
  if (period === "day") d.setUTCDate(d.getUTCDate() + step);
  else if (period === "week") d.setUTCDate(d.getUTCDate() + 7 * step);
  else d.setUTCMonth(d.getUTCMonth() + step, 1);
  return d.toISOString().slice(0, 10);
}

async function renderDigest(state) {
  const seq = ++renderSeq;
  const view = $("#view-digest");
  const day = /^\d{4}-\d{2}-\d{2}$/.test(state.date) ? state.date : today();
  const go = (changes) => navigate({ ...state, ...changes });
  const controls = el("div", { class: "digest-controls" },
    el("div", { class: "modes", role: "radiogroup" }, PERIODS.map((period) =>
      el("label", {}, el("input", { type: "radio", name: "period", value: period, checked: period === state.period,
        onchange: () => go({ period }) }), el("span", {}, t(`period.${period}`))))),
    el("button", { type: "button", onclick: () => go({ date: shiftDate(day, state.period, -1) }) }, t("digest.prev")),
    el("input", { type: "date", value: day, "aria-label": t("digest.date"),
      onchange: (event) => event.target.value && go({ date: event.target.value }) }),
    el("button", { type: "button", onclick: () => go({ date: shiftDate(day, state.period, 1) }) }, t("digest.next")));
  fill(view, el("h1", {}, t("digest.title")), controls);
  setStatus(t("status.loading"));
  let digest;
  try {
    digest = await api("/v1/digest", { params: { period: state.period, date: day } });
  } catch (error) {
    if (seq === renderSeq) { setStatus(""); view.append(errorBox(error)); }
    return;
  }
  if (seq !== renderSeq) return;
  setStatus("");
  view.append(el("p", { class: "count" }, t("digest.range", digest)));
  if (!digest.sessions) {
    const empty = el("div", { class: "empty" }, el("p", {}, t("digest.empty")));
    view.append(empty);
    const facets = await loadFacets();
    if (seq === renderSeq && facets?.last_date) {
      empty.append(el("a", { href: urlFor({ ...state, date: facets.last_date }) },
        t("digest.latest", { date: facets.last_date })));
    }
    return;
  }
  const searchFor = (text) => urlFor({ ...readState(), view: "search", q: text, mode: "hybrid",
    since: digest.start, until: digest.end, channel: "", participant: "", limit: PAGE });
  view.append(el("div", { class: "digest" },
    el("section", { class: "panel", id: "digest-topics" }, el("h2", {}, t("digest.topics")),
      el("p", { class: "topics" }, digest.topics.map((topic) =>
        el("a", { class: "chip", href: searchFor(topic.topic) }, topic.topic,
          el("span", { class: "muted" }, ` ${topic.sessions}`))))),
    el("section", { class: "panel", id: "digest-tasks" }, el("h2", {}, t("digest.tasks")),
      digest.open_tasks.length
        ? el("ul", {}, digest.open_tasks.map((task) => el("li", {},
          el("a", { href: urlFor({ view: "session", session: task.session_id, msg: task.source_message_ids[0] || "",
            q: "", mode: "hybrid", since: "", until: "", channel: "", participant: "" }) }, task.text),
          task.priority && el("span", { class: `chip priority-${task.priority}` }, t(`priority.${task.priority}`)),
          task.due_date && el("span", { class: "muted" }, ` ${t("task.due", { date: task.due_date })}`))))
        : el("p", { class: "muted" }, t("digest.notasks"))),
    el("section", { class: "panel", id: "digest-activity" }, el("h2", {}, t("digest.activity")),
      el("ol", { class: "activity" }, digest.activity.map((line) => {
        const href = urlFor({ view: "search", q: "", mode: "hybrid", since: line.date, until: line.date,
          channel: "", participant: "", limit: PAGE });
        return el("li", { class: "nav-item", tabindex: "0", "data-href": href },
          el("time", { datetime: line.date }, line.date), " ",
          el("span", { class: "muted" }, `(${line.sessions}) `), line.line);
      })))));
}

// ---------------------------------------------------------------- wiring

function wire() {
  const q = $("#q");
  let typing = 0;
  // search as you type, after a short pause; the URL follows without a history entry per key
  const searchSoon = () => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      const state = readState();
      navigate({ ...searchState(state), q: q.value, limit: PAGE }, { replace: state.view === "search" });
    }, 250);
  };
  // while an input method is composing (pinyin), the text is not the query yet
  q.addEventListener("input", (event) => { if (!event.isComposing) searchSoon(); });
  q.addEventListener("compositionend", searchSoon);
  $("#search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    clearTimeout(typing);
    const state = readState();
    navigate({ ...searchState(state), q: q.value, limit: PAGE });
  });
  for (const radio of document.querySelectorAll('input[name="mode"]')) {
    radio.addEventListener("change", () => navigate({ ...searchState(readState()), q: q.value, mode: radio.value, limit: PAGE }));
  }
  const filters = $("#filters");
  filters.addEventListener("change", () => {
    const values = Object.fromEntries(FILTERS.map((name) => [name, filters.elements[name].value]));
    navigate({ ...searchState(readState()), q: q.value, ...values, limit: PAGE });
  });
  $("#clear-filters").addEventListener("click", () =>
    navigate({ ...searchState(readState()), q: q.value, since: "", until: "", channel: "", participant: "", limit: PAGE }));

  // links inside the page change the view without reloading it
  document.addEventListener("click", (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
    const link = event.target.closest("a[href]");
    if (link && link.origin === location.origin && link.pathname === "/") {
      event.preventDefault();
      return open(link.getAttribute("href"));
    }
    const item = event.target.closest(".nav-item[data-href]");
    if (item && !event.target.closest("a, button, input")) open(item.dataset.href);
  });
  document.addEventListener("keydown", onKey);
  window.addEventListener("popstate", render);
}

translatePage();
setRender(render);
wire();
render();
fillFilters();
