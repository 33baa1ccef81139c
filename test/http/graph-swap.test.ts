/**
 * Walks across a handler's graph swap
 * ===================================
 * Clients paging through a server while `handler.setGraph` swaps in a rebuilt graph (what a reload
 * does): requests of many walkers are in flight together and the swap lands among them. No request
 * fails, and each walker sees a prefix of the old graph's list, then, from the page after its last
 * old one, exactly the new graph's items after that item's key: nothing skipped, nothing twice.
 * (Moved from the snapshot tests: the swap is the handler's; test/engine/graph-swap.test.ts covers
 * cursors across graphs in the engine.)
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import type { Entity, EntityType, Statement } from "../../src/index.js";
import { after, evolve, randomQuery } from "../support/graph-walks.js";
import { getJson, startServer } from "../support/http.js";
import {
  buildGraph,
  type Filters,
  generateGraph,
  Oracle,
  orderFor,
  randomFilters,
  Rng,
  show,
  statementKey,
} from "../support/oracle.js";

const SECRET = "swap-test-secret";
const WALKERS = 40;
/** The round whose requests the swap lands among: early, so that most walks go on across it. */
const SWAP_ROUND = 2;
/** Matches a walk should have, so that it lasts several pages. */
const MIN_MATCHES = 12;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

interface Walker {
  kind: "search" | "statements";
  q: string;
  type: EntityType | undefined;
  f: Filters;
  cursor: string | null;
  done: boolean;
  /** Items served, page by page. */
  pages: (Entity | Statement)[][];
  /** Pages answered before the swap. */
  pagesBeforeSwap: number;
}

/** Items as text with their keys sorted: equal items, whatever order their keys came in. */
function canonical(items: readonly object[]): string {
  return JSON.stringify(items.map((x) => Object.fromEntries(Object.entries(x).sort())));
}

function target(w: Walker): string {
  const params = new URLSearchParams();
  if (w.kind === "search") {
    params.set("q", w.q);
    if (w.type !== undefined) params.set("type", w.type);
    params.set("limit", "3");
  } else {
    for (const [k, v] of Object.entries(w.f)) params.set(k, v as string);
    params.set("limit", "5");
  }
  if (w.cursor !== null) params.set("cursor", w.cursor);
  return `/graph/v1/${w.kind}?${params}`;
}

test("walkers interleaved across a setGraph never fail, and each sees old pages then the new ones at the right key", async () => {
  const rng = new Rng(123);
  const oldData = generateGraph(rng, { entities: 300, statements: 900 });
  const newData = evolve(rng, oldData);
  const oldOracle = new Oracle(oldData);
  const newOracle = new Oracle(newData);
  const server = await startServer(buildGraph(oldData, SECRET), { cursorSecret: SECRET });
  try {
    const walkers: Walker[] = [];
    for (let tries = 0; walkers.length < WALKERS; tries++) {
      const k = walkers.length;
      const w: Walker = {
        kind: k % 2 === 0 ? "search" : "statements",
        q: randomQuery(rng, oldOracle),
        type: rng.chance(0.3) ? (String(rng.int(8)) as EntityType) : undefined,
        f: randomFilters(rng, k % 8, oldOracle),
        cursor: null,
        done: false,
        pages: [],
        pagesBeforeSwap: 0,
      };
      // A query the HTTP layer can carry: well-formed Unicode (a lone surrogate has no UTF-8).
      if (LONE_SURROGATE.test(w.q)) continue;
      // Mostly walks of several pages, so that they go on across the swap.
      const matches = w.kind === "search" ? oldOracle.search(w.q, w.type).length : oldOracle.statementsFor(w.f).length;
      if (matches < MIN_MATCHES && tries % 40 !== 39) continue;
      walkers.push(w);
    }
    const request = async (w: Walker): Promise<void> => {
      const { status, body } = await getJson(server.port, target(w));
      if (status !== 200) throw new Error(`${target(w)}: ${status} ${show(body)}`);
      w.pages.push(body.items);
      w.cursor = body.nextCursor;
      w.done = body.nextCursor === null;
    };
    let swapped = false;
    for (let round = 0; walkers.some((w) => !w.done); round++) {
      // A walk that never ends is a failure, not a test that runs until memory is gone.
      if (round > 2000) assert.unreachable("walkers still running after 2000 rounds");
      // Requests of one round are in flight together; the swap lands among them.
      const inFlight = walkers.filter((w) => !w.done && rng.chance(0.7)).map(request);
      if (round === SWAP_ROUND) {
        for (const w of walkers) w.pagesBeforeSwap = w.pages.length;
        server.handler.setGraph(buildGraph(newData, "the builder's secret does not matter"));
        swapped = true;
      }
      await Promise.all(inFlight);
    }
    assert.ok(swapped);
    const across = walkers.filter((w) => w.pagesBeforeSwap > 0 && w.pages.length > w.pagesBeforeSwap + 1).length;
    assert.ok(across >= 10, `only ${across} walks went on across the swap`);
    for (const w of walkers) {
      const order = w.kind === "statements" ? orderFor(w.f) : undefined;
      const oldList: (Entity | Statement)[] =
        w.kind === "search" ? oldOracle.search(w.q, w.type) : oldOracle.statementsFor(w.f);
      const newList: (Entity | Statement)[] =
        w.kind === "search" ? newOracle.search(w.q, w.type) : newOracle.statementsFor(w.f);
      const keyOf = (oracle: Oracle, x: Entity | Statement) =>
        order === undefined ? oracle.searchKey(w.q, x as Entity) : statementKey(order, x as Statement);
      const served = w.pages.flat();
      // Some page boundary splits the walk into old pages and new ones (all old when it ended first).
      let explained = false;
      for (let p = 0, at = 0; p <= w.pages.length && !explained; at += w.pages[p]?.length ?? 0, p++) {
        const old = served.slice(0, at);
        if (canonical(old) !== canonical(oldList.slice(0, at))) break;
        const last = old[old.length - 1];
        const rest = last === undefined ? newList : after(newList, (x) => keyOf(newOracle, x), keyOf(oldOracle, last));
        explained =
          canonical(served.slice(at)) === canonical(rest) ||
          (at === served.length && canonical(served) === canonical(oldList));
      }
      assert.ok(explained, `${w.kind} ${show(w.kind === "search" ? [w.q, w.type] : w.f)}: ${show(served)}`);
    }
  } finally {
    await server.close();
  }
});

test.run();
