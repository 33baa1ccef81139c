/**
 * Cursors across graphs
 * =====================
 * A cursor carries the last item's sort key, not an offset, so it resumes on another graph: a rebuild
 * with items added and removed (what a reload swaps in) continues at the right key, for every search
 * and every statements filter shape, checked against the oracle of the new data. Graphs sealing
 * cursors with other secrets refuse each other's cursors; graphs with no secret configured share the
 * process's own. (Moved from the snapshot tests: this is the engine's behaviour, whatever carried the
 * new graph; handler swaps are tested in test/http/graph-swap.test.ts.)
 */

import { test } from "uvu";
import * as assert from "uvu/assert";

import { type Entity, type EntityType, isQuiverError, type Statement } from "../../src/index.js";
import { after, evolve, randomQuery } from "../support/graph-walks.js";
import {
  buildGraph,
  generateGraph,
  limitPolicy,
  Oracle,
  orderFor,
  randomFilters,
  Rng,
  show,
  statementKey,
  walkPages,
} from "../support/oracle.js";

const SECRET = "swap-test-secret";

test("a cursor from the old graph resumes on a rebuilt one at its key (items added and removed)", () => {
  let resumed = 0;
  for (let seed = 91; seed <= 96; seed++) {
    const rng = new Rng(seed);
    const oldData = generateGraph(rng, { entities: 200, statements: 600 });
    const newData = evolve(rng, oldData);
    const oldGraph = buildGraph(oldData, SECRET);
    // The builder's secret does not matter: the serving graph's does.
    const newGraph = buildGraph(newData, "another builder").withCursorSecret(SECRET);
    const oldOracle = new Oracle(oldData);
    const newOracle = new Oracle(newData);

    for (let k = 0; k < 25; k++) {
      const q = randomQuery(rng, oldOracle);
      const type = rng.chance(0.3) ? (String(rng.int(8)) as EntityType) : undefined;
      const cursors: [string, Entity][] = [];
      walkPages<Entity>({
        fetch: (limit, cursor) => oldGraph.search({ q, type, limit, cursor }),
        expected: oldOracle.search(q, type),
        nextLimit: () => rng.range(1, 7),
        defaultLimit: 20,
        ctx: `seed ${seed} old search ${show(q)}`,
        onCursor: (c, last) => cursors.push([c, last]),
      });
      for (const [cursor, last] of cursors) {
        walkPages<Entity>({
          fetch: (limit, c) => newGraph.search({ q, type, limit, cursor: c }),
          expected: after(newOracle.search(q, type), (e) => newOracle.searchKey(q, e), oldOracle.searchKey(q, last)),
          nextLimit: limitPolicy(rng, 100),
          defaultLimit: 20,
          cursor,
          ctx: `seed ${seed} search ${show(q)} resumed after ${show(last.entityId)}`,
        });
        resumed++;
      }
    }
    for (let mask = 0; mask < 8; mask++) {
      for (let k = 0; k < 4; k++) {
        const f = randomFilters(rng, mask, oldOracle);
        const order = orderFor(f);
        const cursors: [string, Statement][] = [];
        walkPages<Statement>({
          fetch: (limit, cursor) => oldGraph.statements({ ...f, limit, cursor }),
          expected: oldOracle.statementsFor(f),
          nextLimit: () => rng.range(1, 9),
          defaultLimit: 50,
          ctx: `seed ${seed} old statements ${show(f)}`,
          onCursor: (c, last) => cursors.push([c, last]),
        });
        for (const [cursor, last] of cursors) {
          walkPages<Statement>({
            fetch: (limit, c) => newGraph.statements({ ...f, limit, cursor: c }),
            expected: after(newOracle.statementsFor(f), (s) => statementKey(order, s), statementKey(order, last)),
            nextLimit: limitPolicy(rng, 200),
            defaultLimit: 50,
            cursor,
            ctx: `seed ${seed} statements ${show(f)} resumed after ${show(statementKey(order, last))}`,
          });
          resumed++;
        }
      }
    }
  }
  assert.ok(resumed > 500, String(resumed));
});

test("a cursor sealed with another secret is refused as INVALID_CURSOR (replicas must share the secret)", () => {
  const data = generateGraph(new Rng(5), { entities: 100, statements: 300 });
  const a = buildGraph(data, SECRET);
  const b = buildGraph(data, "another secret");
  const page = a.statements({ limit: 1 });
  assert.ok(page.nextCursor !== null);
  try {
    b.statements({ limit: 1, cursor: page.nextCursor });
    assert.unreachable("accepted a foreign cursor");
  } catch (e) {
    assert.ok(isQuiverError(e));
    assert.is(e.code, "INVALID_CURSOR");
  }
});

test("with no secret configured, two graphs of one process share the process's secret", () => {
  const data = generateGraph(new Rng(6), { entities: 100, statements: 300 });
  const before = buildGraph(data);
  const rebuilt = buildGraph(data);
  const page = before.statements({ limit: 7 });
  assert.ok(page.nextCursor !== null);
  assert.equal(
    rebuilt.statements({ limit: 7, cursor: page.nextCursor }),
    before.statements({ limit: 7, cursor: page.nextCursor }),
  );
});

test.run();
