/**
 * lastSearchPage and lastStatementsPage (engine/internal.ts): after a search, the dense id and match tier of each item of
 * the page, item i at index i, for both orders, with and without types, on every page of a walk
 * (the live graph merges base pages by them instead of looking items up by entityId).
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { graphParts, lastSearchPage, lastStatementsPage } from "../../src/engine/internal.js";
import type { EntityType, SearchOrder } from "../../src/index.js";
import { randomQuery } from "../support/graph-walks.js";
import { buildGraph, generateGraph, Oracle, Rng, randomFilters, show, tier } from "../support/oracle.js";

test("lastSearchPage: each item's dense id and tier, on every page of random walks", () => {
  const rng = new Rng(2511);
  for (let round = 0; round < 6; round++) {
    const data = generateGraph(rng, { entities: rng.range(40, 200), statements: rng.range(50, 400) });
    const graph = buildGraph(data);
    const oracle = new Oracle(data);
    const dictionary = graphParts(graph).dictionary;
    for (let k = 0; k < 20; k++) {
      const q = randomQuery(rng, oracle);
      const fq = oracle.fold(q);
      const type = rng.chance(0.3) ? (String(rng.int(8)) as EntityType) : undefined;
      const order: SearchOrder = rng.chance(0.5) ? "score" : "name";
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = graph.search({ q, type, order, limit: rng.range(1, 7), cursor });
        const keys = lastSearchPage(graph);
        page.items.forEach((e, i) => {
          const ctx = `round ${round} q=${show(q)} type=${show(type)} order=${order} page ${pages} item ${i}`;
          assert.is(keys.ids[i], dictionary.idOf(e.entityId), `${ctx} dense id`);
          assert.is(keys.tiers[i], tier(oracle.fold(e.rawIdentifier), fq), `${ctx} tier`);
        });
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined);
    }
  }
});

test("lastStatementsPage: each item's subject, predicate and object dense ids, on every page of random walks", () => {
  const rng = new Rng(2512);
  for (let round = 0; round < 6; round++) {
    const data = generateGraph(rng, { entities: rng.range(40, 200), statements: rng.range(50, 400) });
    const graph = buildGraph(data);
    const oracle = new Oracle(data);
    const dictionary = graphParts(graph).dictionary;
    for (let mask = 0; mask < 8; mask++) {
      const f = randomFilters(rng, mask, oracle);
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = graph.statements({ ...f, limit: rng.range(1, 9), cursor });
        const ids = lastStatementsPage(graph);
        page.items.forEach((st, i) => {
          const ctx = `round ${round} ${show(f)} page ${pages} item ${i}`;
          assert.is(ids[3 * i], dictionary.idOf(st.subjectEntityId), `${ctx} subject`);
          assert.is(ids[3 * i + 1], dictionary.idOf(st.predicateEntityId), `${ctx} predicate`);
          assert.is(ids[3 * i + 2], dictionary.idOf(st.objectEntityId), `${ctx} object`);
        });
        cursor = page.nextCursor ?? undefined;
        pages++;
      } while (cursor !== undefined);
    }
  }
});

test.run();
