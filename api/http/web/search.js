// The search view: results for a query, or the newest sessions when there is none.

import { api, errorBox } from "./api.js";
import { $, el, fill, setStatus } from "./dom.js";
import { FILTERS, PAGE, navigate, nextRender, renderSeq, urlFor } from "./router.js";
import { count, t } from "./strings.js";
import { fixed, highlighted, roleName, shortTime } from "./text.js";

let lastOpened = ""; // the session last opened from the results, focused again on the way back
const searchCache = new Map(); // url -> answer: going back shows the results at once

export function setLastOpened(id) {
  lastOpened = id;
}

export async function renderSearch(state) {
  const seq = nextRender();
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
    el("a", { class: "title", href, tabindex: "-1" }, hit.title || hit.opening || t("untitled")),
    el("ul", { class: "hits" }, hit.messages.map((message) =>
      el("li", {},
        el("a", { class: "hit-link", tabindex: "-1", title: t("score", { score: fixed(message.score, 4) }),
                  href: sessionHref(state, hit.session_id, message.id || "summary") },
          el("span", { class: `role role-${message.role}` }, roleName(message)),
          el("span", { class: "snippet" }, highlighted(message.snippet, message.highlights)),
          message.time && el("time", { datetime: message.time }, shortTime(message.time)))))),
    hit.facts && hit.facts.length > 0 && el("ul", { class: "facts" }, hit.facts.map((fact) => factBadge(fact, state))));
}

// A statement of the session about the query: superseded on a date by a later one (linked),
// or current since its day, naming what it replaced.
function factBadge(fact, state) {
  if (fact.superseded_by) {
    const by = fact.superseded_by;
    return el("li", { class: "fact fact-superseded", title: fact.reason || "" },
      el("span", { class: "badge badge-superseded" }, t("fact.superseded", { date: by.date })),
      el("a", { class: "fact-link", href: sessionHref(state, by.session_id, ""),
                title: t("fact.open") }, by.text),
      el("span", { class: "fact-was" }, t("fact.was", { text: fact.text })));
  }
  const replaced = (fact.supersedes || [])[0];
  return el("li", { class: "fact fact-current" },
    el("span", { class: "badge badge-current" }, t("fact.current", { date: fact.valid_from })),
    el("span", {}, fact.text),
    replaced && el("a", { class: "fact-was", href: sessionHref(state, replaced.session_id, "") },
      t("fact.replaces", { date: replaced.date, text: replaced.text })));
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
          el("span", {}, s.trimmed
            ? t("session.trimmed", { n: s.message_count, was: s.trimmed.message_count, tier: s.trimmed.tier })
            : count("session.messages", s.message_count))),
        el("a", { class: "title", href, tabindex: "-1" }, s.title || s.summary || s.opening || s.topics.join(" · ") || s.session_id),
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
