// The DOM builder: el() makes every string a text node, so archive text never becomes markup.

export const $ = (selector) => document.querySelector(selector);

// el("a", {href, class}, "text", child...): strings become text nodes, so nothing is parsed as HTML
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

// replaceChildren that skips the false/null left by `cond && el(...)`
export function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c != null && c !== false));
}

export function setStatus(text) {
  $("#status").textContent = text || "";
}
