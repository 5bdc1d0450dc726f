// The digest view: a day, week or month of topics, open tasks and activity.

import { api, errorBox } from "./api.js";
import { $, el, fill, setStatus } from "./dom.js";
import { loadFacets } from "./facets.js";
import { PAGE, PERIODS, navigate, nextRender, readState, renderSeq, urlFor } from "./router.js";
import { t } from "./strings.js";

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

export async function renderDigest(state) {
  const seq = nextRender();
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
