/**
 * The neighbourhood picture
 * =========================
 * A small node-link drawing of an entity and its first statements: the entity in the middle, the
 * subjects that point at it on the left, the objects it points at on the right, each edge labelled
 * with its predicate's raw identifier, each neighbour a link to its own page.
 *
 * Plain SVG with a fixed radial layout, not a graph library: the picture holds at most
 * NEIGHBOURS_PER_SIDE nodes a side (one page of each statement list), where a force layout buys
 * nothing a fixed fan does not, and the budget does not fit one (Cytoscape.js is about 430 KB
 * minified, d3-force with its selection code about 40 KB, against the page's 150 KB in all; this
 * file is under 2 KB of the bundle). The layout is deterministic (the same entity, the same
 * picture), instant (no simulation to settle), and readable without JavaScript timing.
 * Cost: linear in the statements given.
 */

import type { Entity, Statement } from "./api.js";
import { svg } from "./dom.js";

const WIDTH = 720;
const HEIGHT = 340;
const RADIUS_X = 250;
const RADIUS_Y = 140;
/** At most this many neighbours on each side; the lists below the picture hold the rest. */
export const NEIGHBOURS_PER_SIDE = 7;
/** Longest node label, in characters, before it is cut with an ellipsis (the full name is its tooltip). */
const LABEL_CHARS = 26;
/** Where along an edge, from the centre, its predicate is written: out where the edges fan apart. */
const EDGE_LABEL_AT = 0.62;

interface Neighbour {
  id: string;
  name: string;
  predicates: string[];
}

/** Neighbours by id, in the order first seen, their predicates gathered (one edge per neighbour). */
function gather(statements: readonly Statement[], self: string, side: "out" | "in"): Neighbour[] {
  const byId = new Map<string, Neighbour>();
  for (const s of statements) {
    const id = side === "out" ? s.objectEntityId : s.subjectEntityId;
    // A statement from the entity to itself has no neighbour to draw.
    if (id === self) continue;
    let n = byId.get(id);
    if (n === undefined) {
      if (byId.size === NEIGHBOURS_PER_SIDE) continue;
      n = { id, name: side === "out" ? s.objectRawIdentifier : s.subjectRawIdentifier, predicates: [] };
      byId.set(id, n);
    }
    if (!n.predicates.includes(s.predicateRawIdentifier)) n.predicates.push(s.predicateRawIdentifier);
  }
  return [...byId.values()];
}

function cut(s: string): string {
  const label = s === "" ? "(empty name)" : s;
  return label.length > LABEL_CHARS ? label.slice(0, LABEL_CHARS - 1) + "…" : label;
}

export function neighbourhood(
  entity: Entity,
  asSubject: readonly Statement[],
  asObject: readonly Statement[],
  href: (id: string) => string,
): SVGSVGElement {
  const cx = WIDTH / 2;
  const cy = HEIGHT / 2;
  const out = gather(asSubject, entity.entityId, "out");
  const inn = gather(asObject, entity.entityId, "in");
  const edges = svg("g", { class: "edges" });
  const nodes = svg("g", { class: "nodes" });
  const place = (list: Neighbour[], side: "out" | "in"): void => {
    list.forEach((n, i) => {
      // Spread over a 140-degree fan on the side's half; one alone sits level with the centre.
      const t = list.length === 1 ? 0.5 : i / (list.length - 1);
      const angle = ((-70 + 140 * t) * Math.PI) / 180;
      const x = cx + (side === "out" ? 1 : -1) * RADIUS_X * Math.cos(angle);
      const y = cy + RADIUS_Y * Math.sin(angle);
      const [x1, y1, x2, y2] = side === "out" ? [cx, cy, x, y] : [x, y, cx, cy];
      edges.append(
        svg("line", { x1, y1, x2, y2, class: "edge", "marker-end": "url(#arrow)" }),
        svg(
          "text",
          {
            x: cx + (x - cx) * EDGE_LABEL_AT,
            y: cy + (y - cy) * EDGE_LABEL_AT - 4,
            class: "edge-label",
            "text-anchor": "middle",
          },
          cut(n.predicates.join(", ")),
        ),
      );
      const anchor = side === "out" ? "start" : "end";
      const dx = side === "out" ? 10 : -10;
      nodes.append(
        svg(
          "a",
          { href: href(n.id), class: "node", "aria-label": `${n.name || n.id} (${n.predicates.join(", ")})` },
          svg("title", {}, `${n.name} (${n.id})`),
          svg("circle", { cx: x, cy: y, r: 7 }),
          svg("text", { x: x + dx, y: y + 4, "text-anchor": anchor }, cut(n.name)),
        ),
      );
    });
  };
  place(out, "out");
  place(inn, "in");
  const centre = svg(
    "g",
    { class: "centre" },
    svg("circle", { cx, cy, r: 11 }),
    svg("text", { x: cx, y: cy + 28, "text-anchor": "middle" }, cut(entity.rawIdentifier)),
  );
  const defs = svg(
    "defs",
    {},
    svg(
      "marker",
      { id: "arrow", viewBox: "0 0 10 10", refX: 18, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
      svg("path", { d: "M0,0L10,5L0,10z", class: "arrow" }),
    ),
  );
  const total = out.length + inn.length;
  return svg(
    "svg",
    {
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      class: "picture",
      role: "group",
      "aria-label": `Neighbourhood of ${entity.rawIdentifier || entity.entityId}: ${total} neighbours drawn`,
    },
    defs,
    edges,
    centre,
    nodes,
  );
}
