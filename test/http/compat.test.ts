/**
 * CONTRACT.md "Changes to this page": a client that sends none of the new parameters (order, count)
 * gets the same status and body, byte for byte, as before them. The answers of the router to a fixed
 * set of such requests (whole walks of both endpoints, each page's nextCursor followed, and error
 * answers), on the test graph with its fixed cursor secret, are hashed together and compared with
 * the digest the same requests gave at 4acac57, the commit before order, count and the lookup (computed by running this
 * file's `answers` against a build of that commit). A change that alters any of these bytes (a
 * serializer, the cursor layout, the order of results) fails here: a break of the contract, unless
 * the contract itself changes.
 */

import { createHash } from "node:crypto";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { compileOptions } from "../../src/http/adapter-kit.js";
import { route, serveGraph } from "../../src/http/router.js";
import { KEY, SECRET, buildSmallGraph } from "../support/http.js";

/** SHA-256 of the answers below at 4acac57 (51 answers). */
const DIGEST_BEFORE_ISSUE_26 = "59f883dcce52e1d035f931d66caf12bb593469e4f69994e05ee1c04751d1777d";

function answers(): { target: string; status: number; body: string }[] {
  const served = serveGraph(buildSmallGraph({ items: true }), compileOptions({ apiKeys: [KEY], cursorSecret: SECRET }));
  const out: { target: string; status: number; body: string }[] = [];
  const ask = (target: string) => {
    const r = route(served, { method: "GET", target, headers: { "x-api-key": KEY, "accept-encoding": "identity" } });
    const answer = { target, status: r.status, body: r.body === null ? "" : r.body.toString("utf8") };
    out.push(answer);
    return answer;
  };
  const walk = (path: string) => {
    let cursor: string | null = null;
    do cursor = JSON.parse(ask(path + (cursor === null ? "" : `&cursor=${cursor}`)).body).nextCursor;
    while (cursor !== null);
  };
  walk("/graph/v1/search?q=item&limit=40");
  walk("/graph/v1/search?q=e&type=3&limit=7");
  walk("/graph/v1/statements?limit=60");
  walk("/graph/v1/statements?predicateEntityId=q:located&limit=33");
  walk("/graph/v1/statements?objectEntityId=q:germany&limit=50");
  for (const target of [
    "/graph/v1/search?q=STRASSE",
    "/graph/v1/search?q=he+said",
    "/graph/v1/search?q=",
    "/graph/v1/search?q=a&limit=0",
    "/graph/v1/search?q=a&cursor=AAAA",
    "/graph/v1/statements?subjectEntityId=nobody",
    "/healthz",
    "/graph/v1/search?q=%C3",
  ])
    ask(target);
  return out;
}

test("requests without order or count: the statuses and bodies of before order and count, byte for byte", () => {
  const all = answers();
  assert.is(all.length, 51);
  const hash = createHash("sha256");
  for (const a of all) hash.update(`${a.target}\n${a.status}\n${a.body}\n`);
  assert.is(hash.digest("hex"), DIGEST_BEFORE_ISSUE_26);
});

test.run();
