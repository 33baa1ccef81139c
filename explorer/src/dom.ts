/**
 * DOM helpers
 * ===========
 * `h(tag, props, ...children)` builds an element; text is always set as text (never HTML), so a
 * name from the graph cannot inject markup. `svg(tag, attrs, ...)` does the same in the SVG
 * namespace. No framework: the page is a few lists, and every byte counts toward its budget.
 */

type Child = Node | string | null | undefined | false;
type Props = Record<string, string | number | boolean | EventListener | undefined>;

function fill(el: Element, props: Props, children: Child[]): void {
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    // Event handlers are listeners; everything else an attribute.
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) el.append(c);
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  fill(el, props, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag) as SVGElementTagNameMap[K];
  fill(el, props, children);
  return el;
}

export function byId<T extends HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page has no #${id}`);
  return el as T;
}

/** "1,234" in the reader's locale. */
export function count(n: number): string {
  return n.toLocaleString();
}
