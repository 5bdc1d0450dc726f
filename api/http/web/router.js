// The view state in the URL: read it, write it, move to another state, and which render is current.

export const PAGE = 10;
const MODES = ["hybrid", "keyword", "vector"];
export const PERIODS = ["day", "week", "month"];
export const FILTERS = ["since", "until", "channel", "participant"];

// app.js's render(), which shows the view the URL names: the views import this module, so it
// is handed in rather than imported
let render = () => {};

export function setRender(fn) {
  render = fn;
}

export let renderSeq = 0; // a view's answer that arrives after another render started is dropped

export function nextRender() {
  return ++renderSeq;
}

export function readState() {
  const params = new URLSearchParams(location.search);
  const get = (name) => params.get(name) || "";
  const limit = Number.parseInt(get("limit"), 10);
  return {
    view: get("session") ? "session" : get("view") === "digest" ? "digest" : "search",
    q: get("q"),
    mode: MODES.includes(get("mode")) ? get("mode") : "hybrid",
    since: get("since"), until: get("until"), channel: get("channel"), participant: get("participant"),
    limit: Number.isFinite(limit) ? Math.min(Math.max(limit, PAGE), 500) : PAGE,
    session: get("session"), msg: get("msg"),
    period: PERIODS.includes(get("period")) ? get("period") : "week",
    date: get("date"),
  };
}

// Only what differs from the defaults goes into the URL, so links stay short and readable
export function urlFor(state) {
  const params = new URLSearchParams();
  const put = (name, value) => { if (value) params.set(name, value); };
  if (state.view === "digest") {
    params.set("view", "digest");
    if (state.period !== "week") put("period", state.period);
    put("date", state.date);
  } else {
    if (state.view === "session") put("session", state.session);
    if (state.view === "session") put("msg", state.msg);
    put("q", state.q);
    if (state.mode !== "hybrid") put("mode", state.mode);
    for (const name of FILTERS) put(name, state[name]);
    if (state.view === "search" && state.limit > PAGE) put("limit", state.limit);
  }
  const query = params.toString();
  return query ? `/?${query}` : "/";
}

export function searchState(state) {
  return { ...state, view: "search", session: "", msg: "" };
}

export function navigate(state, { replace = false } = {}) {
  const url = urlFor(state);
  if (url !== location.pathname + location.search) {
    history[replace ? "replaceState" : "pushState"](null, "", url);
  }
  render();
}

export function open(href) {
  history.pushState(null, "", href);
  render();
}
