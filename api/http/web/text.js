// Archive text for display: highlights at the API's offsets, search words marked, times, scores, roles.

import { el } from "./dom.js";
import { STRINGS, t } from "./strings.js";

// The snippet with <mark>s at the API's [start, end) offsets. The offsets count code points
// (Python), not UTF-16 units, so the text is split with Array.from before slicing.
export function highlighted(text, ranges = []) {
  const chars = Array.from(text);
  const out = [];
  let at = 0;
  for (const [start, end] of [...ranges].sort((a, b) => a[0] - b[0])) {
    if (start < at || end <= start || end > chars.length) continue;
    if (start > at) out.push(chars.slice(at, start).join(""));
    out.push(el("mark", {}, chars.slice(start, end).join("")));
    at = end;
  }
  if (at < chars.length) out.push(chars.slice(at).join(""));
  return out;
}

// The words the search highlighted, found again in a whole message (case-insensitive)
export function markTerms(text, terms) {
  if (!terms.length) return [text];
  const escaped = [...terms].sort((a, b) => b.length - a.length)
    .map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const pattern = new RegExp(escaped.join("|"), "giu");
  const out = [];
  let at = 0;
  for (const match of text.matchAll(pattern)) {
    if (!match[0]) continue;
    if (match.index > at) out.push(text.slice(at, match.index));
    out.push(el("mark", {}, match[0]));
    at = match.index + match[0].length;
  }
  out.push(text.slice(at));
  return out;
}

export function termsOf(hits) {
  const terms = new Set();
  for (const hit of hits) {
    const chars = Array.from(hit.snippet);
    for (const [start, end] of hit.highlights || []) {
      const term = chars.slice(start, end).join("").trim();
      if (term) terms.add(term.toLowerCase());
    }
  }
  return [...terms];
}

// "2026-03-22T21:20:23+08:00" -> "2026-03-22 21:20", in the time zone the message was written in
export function shortTime(value) {
  if (!value) return "";
  const match = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?/.exec(value);
  return match ? [match[1], match[2]].filter(Boolean).join(" ") : value;
}

export const fixed = (x, digits = 3) => (typeof x === "number" ? x.toFixed(digits) : String(x));

export function roleName(message) {
  if (message.role === "memory" && message.memory_type) return t(`memtype.${message.memory_type}`);
  return STRINGS.en[`role.${message.role}`] ? t(`role.${message.role}`) : message.role;
}
