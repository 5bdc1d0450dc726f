// Keyboard navigation: / to search, arrows through the results, Enter to open, Esc back.

import { $ } from "./dom.js";
import { navigate, open, readState, searchState } from "./router.js";

export function onKey(event) {
  if ($("#token-dialog").open || event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  const typing = target.closest?.("input, textarea, select, [contenteditable]");
  const q = $("#q");
  if (event.key === "/" && !typing) {
    event.preventDefault();
    q.focus();
    q.select();
    return;
  }
  const state = readState();
  if (event.key === "Escape") {
    if (state.view === "session" && (!typing || target === q)) navigate(searchState(state));
    else if (target === q) q.blur();
    return;
  }
  const item = target.closest?.(".nav-item");
  if (event.key === "Enter" && item?.dataset.href && target === item) {
    event.preventDefault();
    open(item.dataset.href);
    return;
  }
  if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
  if (!(target === q || item)) return; // elsewhere the arrows scroll, as usual
  const view = $(`#view-${state.view}`);
  const items = [...view.querySelectorAll(".nav-item")];
  if (!items.length) return;
  event.preventDefault();
  const at = item ? items.indexOf(item) : -1;
  const next = event.key === "ArrowDown" ? Math.min(at + 1, items.length - 1) : at - 1;
  if (next < 0) q.focus();
  else {
    items[next].focus();
    items[next].scrollIntoView({ block: "nearest" });
  }
}
