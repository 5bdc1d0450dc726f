// The session view: the transcript at the matched message, with memories, snapshots and recovery.

import { api, errorBox } from "./api.js";
import { $, el, fill, setStatus } from "./dom.js";
import { nextRender, readState, renderSeq, searchState, urlFor } from "./router.js";
import { setLastOpened } from "./search.js";
import { count, t } from "./strings.js";
import { fixed, markTerms, roleName, shortTime, termsOf } from "./text.js";

export async function renderSession(state) {
  const seq = nextRender();
  const view = $("#view-session");
  const id = state.session;
  setLastOpened(id);
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
    el("h1", {}, record.title || summary.split(/[。.!?！？\n]/)[0] || record.session_id),
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
  const id = record.session_id;
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
      el("li", { "data-id": s.id, title: s.id }, el("time", { datetime: s.created_at }, shortTime(s.created_at)),
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
      row(t("recover.selected"), el("span", { class: "selected", title: snap.id }, shortTime(snap.created_at), " ",
        snap.description))),
    el("h3", {}, t("recover.reasons")),
    el("ul", { class: "reasons" }, decision.reasons.map((reason) => el("li", {}, reason))),
    decision.alternatives.length > 0 && [
      el("h3", {}, t("recover.alternatives")),
      el("ul", { class: "alternatives" }, decision.alternatives.map((a) =>
        el("li", { title: a.snapshot_id }, shortTime(a.created_at), ` · ${fixed(a.score, 2)} · `, a.reason)))]);
}
