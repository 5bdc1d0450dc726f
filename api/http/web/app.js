// The page's entry point: shows the view the URL names, wires the search bar, filters and links.

import { renderDigest } from "./digest.js";
import { $, el, setStatus } from "./dom.js";
import { fillFilters } from "./facets.js";
import { onKey } from "./keys.js";
import { FILTERS, PAGE, navigate, open, readState, searchState, setRender } from "./router.js";
import { renderSearch } from "./search.js";
import { renderSession } from "./session.js";
import { translatePage } from "./strings.js";

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
