/**
 * bench:changes' query draws (bench/changes-queries.ts drawQueries): substrings of the names, none
 * cutting a surrogate pair (the HTTP cases send each through encodeURIComponent, which throws on a
 * lone surrogate: the compaction-under-load run stopped with "URI malformed").
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { drawQueries } from "../../bench/changes-queries.js";
import { mulberry32 } from "../../tools/generator.js";

test("drawQueries never cuts a surrogate pair, and each query is a substring of a name", () => {
  const names = [{ rawIdentifier: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 😀😀😀 café" }, { rawIdentifier: "a😀b😀c😀d" }, { rawIdentifier: "plain" }];
  const queries = drawQueries(names, 2000, mulberry32(7));
  assert.is(queries.length, 2000);
  for (const q of queries) {
    assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(q), JSON.stringify(q));
    assert.not.throws(() => encodeURIComponent(q));
    assert.ok(
      names.some((e) => e.rawIdentifier.includes(q)),
      q,
    );
  }
});

test.run();
