/**
 * What the views share
 * ====================
 * The API client, the current view (view-state.ts), navigation (history push or replace, then a
 * render), the one place problems are shown, and the folding the graph uses. The views (search.ts,
 * entity.ts) get this object and nothing global.
 */

import { type Api, ApiProblem } from "./api.js";
import { byId, h } from "./dom.js";
import type { Folding } from "./fold.js";
import type { ViewState } from "./view-state.js";

export interface App {
  readonly api: Api;
  state: ViewState;
  folding: Folding;
  /** Goes to `next`: a new history entry ("push") or the current one rewritten ("replace"). */
  navigate(next: ViewState, mode: "push" | "replace"): void;
  /** The link that opens an entity, keeping the search around it. */
  entityHref(id: string): string;
  /** Shows a problem (or clears it with null); aborted requests are not shown. */
  problem(e: unknown, retry?: () => void): void;
}

/** The problem area: the sentence, and what the person can do about it. */
export function showProblem(e: unknown, retry?: () => void): void {
  const area = byId("problem");
  area.replaceChildren();
  if (e === null) {
    area.hidden = true;
    return;
  }
  const p = e instanceof ApiProblem ? e : new ApiProblem("api", `The page met an unexpected fault: ${String(e)}`);
  if (p.kind === "aborted") return;
  const title =
    p.kind === "key"
      ? p.status === 401
        ? "The server did not accept this API key."
        : "An API key is needed."
      : p.kind === "offline"
        ? "The server is not answering."
        : p.status > 0
          ? `The server answered ${p.status}${p.code === "" ? "" : ` (${p.code})`}.`
          : "Something went wrong.";
  area.append(h("strong", {}, title), " ", p.message);
  // Each branch offers the one action that helps: enter another key, or try the same again.
  if (p.kind === "key") {
    area.append(" ", h("button", { type: "button", onclick: () => byId("key").focus() }, "Enter a key"));
  } else if (p.kind === "offline" && retry !== undefined) {
    area.append(" ", h("button", { type: "button", onclick: retry }, "Try again"));
  }
  area.hidden = false;
}
