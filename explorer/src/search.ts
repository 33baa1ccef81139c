/**
 * The search view
 * ===============
 * Results as the person types: a request SEARCH_DEBOUNCE_MS after the last keystroke, the one in
 * flight cancelled by the next (AbortController), so answers never arrive out of order. Each result
 * shows its tier (exact, prefix, infix; fold.ts) and its name with the matched part marked; the
 * exact total heads the list (count=true); "More results" follows `nextCursor`.
 *
 * Keyboard: ArrowDown from the field moves to the first result, ArrowUp and ArrowDown move between
 * results (ArrowUp from the first goes back to the field), Enter opens the result in focus (the
 * first, from the field), Escape clears the field, or from a result returns to the field.
 */

import { type Entity, isRefused, type Page } from "./api.js";
import type { App } from "./app.js";
import { byId, count, h } from "./dom.js";
import { inferFolding, matchRange, TIER_NAMES, tierOf } from "./fold.js";
import type { ViewState } from "./view-state.js";

/**
 * Long enough to skip the requests of a word typed at speed (keystrokes come 80 to 200 ms apart,
 * bursts of autorepeat or paste faster), short enough that the answer, a few milliseconds of server
 * time behind it, still comes within the issue's 100 ms of the last keystroke.
 */
export const SEARCH_DEBOUNCE_MS = 50;
/** Results a page (the API allows up to 100). */
export const SEARCH_PAGE = 20;

export interface SearchView {
  /** Runs the search the state names, unless it is the one shown (or `force`). */
  show(state: ViewState, force?: boolean): void;
  /** Focus the first result, if there is one. */
  focusFirst(): boolean;
}

export function searchView(app: App): SearchView {
  const list = byId<HTMLOListElement>("results-list");
  const status = byId("status");
  const more = byId<HTMLButtonElement>("more");
  const field = byId<HTMLInputElement>("q");
  let shown = "";
  let controller: AbortController | null = null;
  let cursor: string | null = null;
  let loaded = 0;
  let total: number | undefined;

  const keyOf = (s: ViewState): string => JSON.stringify([s.q, s.type, s.order]);

  const item = (e: Entity, q: string): HTMLLIElement => {
    const tier = tierOf(e.rawIdentifier, q, app.folding);
    const range = matchRange(e.rawIdentifier, q, app.folding);
    const name = e.rawIdentifier;
    const label =
      name === ""
        ? [h("em", {}, "(empty name)")]
        : range === null
          ? [name]
          : [name.slice(0, range.start), h("mark", {}, name.slice(range.start, range.end)), name.slice(range.end)];
    return h(
      "li",
      {},
      h(
        "a",
        { href: app.entityHref(e.entityId), class: "result" },
        h("span", { class: `tier tier-${TIER_NAMES[tier]}`, title: `${TIER_NAMES[tier]} match` }, TIER_NAMES[tier]),
        h("span", { class: "name" }, ...label),
        h(
          "span",
          { class: "meta" },
          h("code", {}, e.entityId),
          ` · type ${e.type}`,
          e.sourceType && ` · ${e.sourceType}`,
        ),
      ),
    );
  };

  const describe = (q: string): void => {
    const shownText = `${count(loaded)} shown`;
    const orderNote = app.state.order === "score" && isRefused("order") ? " (this server ranks by name only)" : "";
    if (loaded === 0) {
      status.textContent = `No entity's name contains “${q}”${app.state.type ? ` among type ${app.state.type}` : ""}. Try fewer letters${app.folding === "case" ? ", or accents as the name writes them (“é” is not “e” unless the graph was built with accent folding)" : ""}.`;
    } else if (total !== undefined) {
      status.textContent = `${count(total)} ${total === 1 ? "entity matches" : "entities match"} “${q}”; ${shownText}${orderNote}.`;
    } else {
      status.textContent = `${shownText}${cursor === null ? "" : " and more"} (this server does not count matches)${orderNote}.`;
    }
  };

  const load = (state: ViewState, append: boolean): void => {
    controller?.abort();
    const mine = new AbortController();
    controller = mine;
    const q = state.q;
    if (!append) status.textContent = "Searching…";
    more.disabled = true;
    app.api
      .search(
        { q, type: state.type, order: state.order, cursor: append ? cursor : null, limit: SEARCH_PAGE },
        mine.signal,
      )
      .then(
        (page: Page<Entity>) => {
          if (controller !== mine) return;
          app.problem(null);
          // The API does not say which folding the graph uses; a result only accent folding explains tells.
          if (
            app.folding === "case" &&
            inferFolding(
              page.items.map((e) => e.rawIdentifier),
              q,
            ) === "accents"
          )
            app.folding = "accents";
          if (!append) list.replaceChildren();
          for (const e of page.items) list.append(item(e, q));
          loaded = (append ? loaded : 0) + page.items.length;
          cursor = page.nextCursor;
          if (page.total !== undefined) total = page.total;
          else if (!append) total = undefined;
          more.hidden = cursor === null;
          more.disabled = false;
          describe(q);
        },
        (e: unknown) => {
          if (controller !== mine) return;
          more.disabled = false;
          if (!append) {
            list.replaceChildren();
            more.hidden = true;
            status.textContent = "";
            shown = "";
          }
          app.problem(e, () => load(app.state, append));
        },
      );
  };

  more.addEventListener("click", () => {
    const before = list.children.length;
    load(app.state, true);
    // Keep the keyboard where it was reading: the first new result takes focus once it is there.
    const watch = new MutationObserver(() => {
      const next = list.children[before]?.querySelector("a");
      if (next) {
        next.focus();
        watch.disconnect();
      }
    });
    watch.observe(list, { childList: true });
    setTimeout(() => watch.disconnect(), 10_000);
  });

  list.addEventListener("keydown", (ev) => {
    const links = [...list.querySelectorAll<HTMLAnchorElement>("a.result")];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (at === -1) return;
    // Each key moves within the list, or back to the field at its top or on Escape.
    if (ev.key === "ArrowDown") {
      (links[at + 1] ?? (more.hidden ? links[at] : more))?.focus();
    } else if (ev.key === "ArrowUp") {
      (at === 0 ? field : links[at - 1])?.focus();
    } else if (ev.key === "Escape") {
      field.focus();
    } else return;
    ev.preventDefault();
  });

  return {
    show(state, force = false) {
      const key = keyOf(state);
      if (!force && key === shown) return;
      shown = key;
      if (state.q === "") {
        controller?.abort();
        controller = null;
        list.replaceChildren();
        more.hidden = true;
        status.textContent = "Type a few letters of a name to search the graph.";
        return;
      }
      load(state, false);
    },
    focusFirst() {
      const first = list.querySelector<HTMLAnchorElement>("a.result");
      first?.focus();
      return first !== null;
    },
  };
}
