// The archive's channels, participants and dates, loaded once, as choices in the filter form.

import { api } from "./api.js";
import { $, el, fill } from "./dom.js";
import { t } from "./strings.js";

let facetsPromise = null;

export function loadFacets() {
  facetsPromise ??= api("/v1/facets").catch(() => { facetsPromise = null; return null; });
  return facetsPromise;
}

export async function fillFilters() {
  const facets = await loadFacets();
  if (!facets) return;
  const form = $("#filters");
  for (const [name, values] of [["channel", facets.channels], ["participant", facets.participants]]) {
    const select = form.elements[name];
    const chosen = select.value;
    fill(select, el("option", { value: "" }, t("filter.any")),
      ...values.map((v) => el("option", { value: v.name }, `${v.name} (${v.sessions})`)));
    if (chosen && !values.some((v) => v.name === chosen)) select.append(el("option", { value: chosen }, chosen));
    select.value = chosen;
  }
  for (const name of ["since", "until"]) {
    form.elements[name].min = facets.first_date || "";
    form.elements[name].max = facets.last_date || "";
  }
}
