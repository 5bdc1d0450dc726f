// The API client: fetch with the token (asked for once in a dialog when needed) and its errors.

import { $, el } from "./dom.js";
import { t } from "./strings.js";

const TOKEN_KEY = "recall.token";
let tokenPrompt = null; // one prompt, shared by every request that waits for the token

class ApiError extends Error {
  constructor(status, detail) {
    super(detail);
    this.status = status;
  }
}

export async function api(path, { method = "GET", params, body } = {}) {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(params || {})) {
    if (value !== undefined && value !== null && value !== "") url.searchParams.set(name, value);
  }
  for (;;) {
    const token = sessionStorage.getItem(TOKEN_KEY);
    const headers = { Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(url, {
      method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (response.status === 401) {
      // a token typed while this request was under way: just try again with it
      if (sessionStorage.getItem(TOKEN_KEY) !== token) continue;
      await askToken(Boolean(token));
      continue;
    }
    const data = response.status === 204 ? null : await response.json().catch(() => null);
    if (!response.ok) throw new ApiError(response.status, data?.detail || response.statusText);
    return data;
  }
}

function askToken(wrong) {
  tokenPrompt ??= new Promise((resolve, reject) => {
    const dialog = $("#token-dialog");
    const input = $("#token-input");
    const listening = new AbortController();
    const finish = (ok) => {
      listening.abort();
      tokenPrompt = null;
      if (ok) resolve();
      else reject(new ApiError(401, t("token.needed")));
    };
    $("#token-error").hidden = !wrong;
    input.value = "";
    $("#token-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const token = input.value.trim();
      if (!token) return;
      sessionStorage.setItem(TOKEN_KEY, token); // this tab only, gone when it closes
      dialog.close();
      finish(true);
    }, { signal: listening.signal });
    dialog.addEventListener("cancel", () => finish(false), { signal: listening.signal });
    dialog.showModal();
    input.focus();
  });
  return tokenPrompt;
}

export function errorBox(error) {
  return el("p", { class: "error", role: "alert" }, t("error", { detail: error.message }));
}
