/**
 * Quiver explorer: the page's entry
 * =================================
 * Wires the controls of index.html to the views: the API key form (key-store.ts), the search
 * field and its filters (search.ts), the entity page (entity.ts), and the URL (view-state.ts).
 * Navigation: typing rewrites the current history entry (back does not step through keystrokes);
 * a filter, an order or an entity opened adds one; back and forward re-render from the URL.
 * Links inside the page are real links (`?entity=...`), so they open in a new tab too; a plain
 * click is taken over and becomes a history push without reloading.
 */

import { Api } from "./api.js";
import { type App, showProblem } from "./app.js";
import { byId } from "./dom.js";
import { entityView } from "./entity.js";
import { openKeyStore } from "./key-store.js";
import { SEARCH_DEBOUNCE_MS, searchView } from "./search.js";
import { type Order, readState, sameState, type ViewState, writeState } from "./view-state.js";

const keys = openKeyStore();
const field = byId<HTMLInputElement>("q");
const typeSelect = byId<HTMLSelectElement>("type");
const orderSelect = byId<HTMLSelectElement>("order");
const keyField = byId<HTMLInputElement>("key");
const remember = byId<HTMLInputElement>("remember");
const resultsSection = byId("results");
const entitySection = byId("entity");

const app: App = {
  api: new Api(() => keys.key),
  state: readState(location.search),
  folding: "case",
  navigate(next, mode) {
    if (sameState(next, app.state)) return;
    history[mode === "push" ? "pushState" : "replaceState"](null, "", writeState(next));
    app.state = next;
    render();
  },
  entityHref: (id) => writeState({ ...app.state, entity: id }),
  problem: showProblem,
};

const search = searchView(app);
const entity = entityView(app);

/** Shows what `app.state` names: controls set from it, then the view it opens. */
function render(force = false): void {
  const s = app.state;
  if (field.value !== s.q && document.activeElement !== field) field.value = s.q;
  typeSelect.value = s.type;
  orderSelect.value = s.order;
  const open = s.entity !== "";
  resultsSection.hidden = open;
  entitySection.hidden = !open;
  if (!open) document.title = s.q === "" ? "Quiver explorer" : `“${s.q}” — Quiver explorer`;
  // The search runs even under an open entity, so "back to the results" shows them at once.
  search.show(s, force);
  entity.show(s.entity, force);
}

// ---- the key --------------------------------------------------------------------------------

keyField.value = keys.key;
remember.checked = keys.remembered;
byId<HTMLFormElement>("key-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  keys.set(keyField.value, remember.checked);
  showProblem(null);
  render(true);
  // With a key in hand, the next thing to do is search.
  if (keys.key !== "" && app.state.entity === "") field.focus();
});
remember.addEventListener("change", () => keys.set(keyField.value, remember.checked));

// ---- the search field and filters ---------------------------------------------------------

let debounce: ReturnType<typeof setTimeout> | undefined;
field.addEventListener("input", () => {
  clearTimeout(debounce);
  debounce = setTimeout(() => {
    // From an entity's page, a new search is a new history entry; while searching, it rewrites the entry.
    const mode = app.state.entity === "" ? "replace" : "push";
    app.navigate({ ...app.state, q: field.value, entity: "" }, mode);
  }, SEARCH_DEBOUNCE_MS);
});
field.addEventListener("keydown", (ev) => {
  // Each key: down to the results, Enter opens the first, Escape clears the field.
  if (ev.key === "ArrowDown") {
    if (app.state.entity === "" && search.focusFirst()) ev.preventDefault();
  } else if (ev.key === "Enter") {
    ev.preventDefault();
    clearTimeout(debounce);
    const typed: ViewState = { ...app.state, q: field.value, entity: "" };
    if (!sameState(typed, app.state)) app.navigate(typed, app.state.entity === "" ? "replace" : "push");
    else if (app.state.entity === "") byId("results-list").querySelector<HTMLAnchorElement>("a.result")?.click();
  } else if (ev.key === "Escape") {
    ev.preventDefault();
    clearTimeout(debounce);
    field.value = "";
    app.navigate({ ...app.state, q: "", entity: "" }, app.state.entity === "" ? "replace" : "push");
  }
});
byId<HTMLFormElement>("search-form").addEventListener("submit", (ev) => ev.preventDefault());
typeSelect.addEventListener("change", () => app.navigate({ ...app.state, type: typeSelect.value, entity: "" }, "push"));
orderSelect.addEventListener("change", () =>
  app.navigate({ ...app.state, order: orderSelect.value as Order, entity: "" }, "push"),
);

// ---- links and history ----------------------------------------------------------------------

document.addEventListener("click", (ev) => {
  const a = (ev.target as Element | null)?.closest?.("a");
  // Only plain clicks on the page's own view links; a modified click (new tab) is the browser's.
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const href = a.getAttribute("href");
  if (href === null || !(href.startsWith("?") || href === "./" || href === location.pathname)) return;
  ev.preventDefault();
  app.navigate(readState(href.startsWith("?") ? href : ""), "push");
  if (app.state.entity === "") field.focus();
});
window.addEventListener("popstate", () => {
  app.state = readState(location.search);
  // Back and forward set the field even while it has the focus: the view it names has changed.
  clearTimeout(debounce);
  field.value = app.state.q;
  render();
});
document.addEventListener("keydown", (ev) => {
  // Escape anywhere else brings the keyboard back to the search field.
  if (ev.key === "Escape" && !ev.defaultPrevented && document.activeElement !== field) field.focus();
});

render();
if (keys.key === "") keyField.focus();
else if (app.state.entity === "") field.focus();
