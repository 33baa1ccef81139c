/**
 * The view, in the URL
 * ====================
 * Everything a person sees is named by the query string of "/", so a link opens the same view and
 * back and forward walk the views: `q` (the search text), `type` ("0".."7"), `order` ("score" or
 * "name"; score when left out) and `entity` (the entity open, by id). The API key is never here.
 * Reading is forgiving (an unknown type or order is ignored, as a person may have edited the link);
 * writing drops what is at its default, so links stay short.
 */

export type Order = "score" | "name";

export interface ViewState {
  q: string;
  type: string;
  order: Order;
  /** The entity open, or "" for the search alone. */
  entity: string;
}

export const DEFAULT_ORDER: Order = "score";
const TYPES = /^[0-7]$/;

export function readState(search: string): ViewState {
  const p = new URLSearchParams(search);
  const type = p.get("type") ?? "";
  const order = p.get("order");
  return {
    q: p.get("q") ?? "",
    type: TYPES.test(type) ? type : "",
    order: order === "name" || order === "score" ? order : DEFAULT_ORDER,
    entity: p.get("entity") ?? "",
  };
}

export function writeState(state: ViewState): string {
  const p = new URLSearchParams();
  if (state.q !== "") p.set("q", state.q);
  if (state.type !== "") p.set("type", state.type);
  if (state.order !== DEFAULT_ORDER) p.set("order", state.order);
  if (state.entity !== "") p.set("entity", state.entity);
  const s = p.toString();
  return s === "" ? location.pathname : `?${s}`;
}

export function sameState(a: ViewState, b: ViewState): boolean {
  return a.q === b.q && a.type === b.type && a.order === b.order && a.entity === b.entity;
}
