/**
 * `quiver serve`, one process, against findings of the 97427d8 review: a SIGHUP while the graph
 * loads is ignored and said (L9), a reload of unchanged data keeps every ETag (L3), a weak cursor
 * secret is refused at start-up with what a strong one is (L4), stdin as a source is refused with
 * why (L10), and QUIVER_API_KEYS of blanks only is named as such (L10).
 */

import http from "node:http";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { eventOf, events, listening, quiverRun, runQuiver, stop, tempFiles } from "../support/cli.js";

const KEY = "sk_findings_test";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; etag: string | undefined }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { headers: { "X-API-Key": KEY, ...headers } }, (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode ?? 0, etag: res.headers.etag }));
      })
      .on("error", reject);
  });
}

/** A graph big enough that loading it takes a moment (a window for a signal). */
async function bigGraph(n: number): Promise<Record<string, string>> {
  const entities: string[] = [];
  const statements: string[] = [];
  for (let i = 0; i < n; i++) {
    entities.push(
      JSON.stringify({ entityId: `Q${i}`, rawIdentifier: `united item number ${i}`, type: "0", sourceType: "t" }),
    );
    if (i > 0)
      statements.push(JSON.stringify({ subjectEntityId: "Q0", predicateEntityId: "Q1", objectEntityId: `Q${i}` }));
  }
  return tempFiles({ "e.jsonl": `${entities.join("\n")}\n`, "s.jsonl": `${statements.join("\n")}\n` });
}

test("a SIGHUP while the graph loads is ignored and logged (L9); a reload of unchanged data keeps every ETag without a cursor secret (L3)", async () => {
  const files = await bigGraph(40_000);
  const child = runQuiver(
    ["serve", "--port", "0", "--quiet", "--entities", files["e.jsonl"]!, "--statements", files["s.jsonl"]!],
    {
      QUIVER_API_KEYS: KEY,
    },
  );
  try {
    assert.ok(await eventOf(child, "startup", 10_000), "started");
    child.process.kill("SIGHUP");
    const url = await listening(child, 60_000);
    const ignored = events(child).find((e) => e.event === "reload-ignored");
    assert.ok(ignored, `the early SIGHUP is logged as ignored:\n${child.stdout()}`);
    assert.is(ignored.reason, "not serving yet");
    const target = `${url}/graph/v1/search?q=united&limit=3`;
    const before = await get(target);
    assert.is(before.status, 200);
    assert.ok(before.etag);
    child.process.kill("SIGHUP");
    for (let i = 0; i < 2400 && !events(child).some((e) => e.event === "reloaded"); i++) await sleep(50);
    assert.ok(
      events(child).some((e) => e.event === "reloaded"),
      child.stdout(),
    );
    const after = await get(target);
    assert.is(after.etag, before.etag, "same data, same tag");
    assert.is((await get(target, { "If-None-Match": before.etag as string })).status, 304);
  } finally {
    assert.is(await stop(child), 0);
  }
});

test("a snapshot given as quiver search takes it (serve graph.snap) is refused saying to use --snapshot", async () => {
  const run = await quiverRun(["serve", "graph.snap", "--port", "0"], { QUIVER_API_KEYS: KEY });
  assert.is(run.code, 2, run.stderr);
  // Regression: node's "Unexpected argument 'graph.snap'. This command does not take positional arguments".
  assert.match(
    run.stderr,
    /^quiver serve: unexpected argument "graph\.snap": serve takes its graph as --snapshot FILE/,
  );
});

test("a weak cursor secret is refused at start-up, saying what a strong one is (L4)", async () => {
  for (const [secret, why] of [
    ["k9", /too short to be safe \(2 characters, at least 32\)/],
    ["a".repeat(40), /too repetitive/],
  ] as const) {
    const run = await quiverRun(["serve", "--port", "0"], { QUIVER_API_KEYS: KEY, QUIVER_CURSOR_SECRET: secret });
    assert.is(run.code, 2, run.stderr);
    assert.match(run.stderr, why);
    assert.match(run.stderr, /openssl rand -hex 16/);
    // The suggested commands paste into a shell as they are: no quotes nested in quotes.
    assert.match(run.stderr, /: openssl rand -hex 16, or node -p "crypto\.randomBytes\(16\)\.toString\('hex'\)"\n/);
    assert.not.match(run.stderr, new RegExp(secret), "the secret itself is never printed");
  }
});

test("stdin as a source is refused with why (L10); QUIVER_API_KEYS of blanks only is named as such (L10)", async () => {
  const files = await tempFiles({ "s.jsonl": "" });
  const stdin = await quiverRun(["serve", "--entities", "-", "--statements", files["s.jsonl"]!]);
  assert.is(stdin.code, 2);
  assert.match(stdin.stderr, /serve cannot read the entities file from stdin \(-\): a reload on SIGHUP reads it again/);
  assert.not.match(stdin.stderr, /does not exist/);

  const blank = runQuiver(["serve", "--port", "0", "--quiet"], { QUIVER_API_KEYS: " , ,," });
  try {
    await listening(blank);
    assert.match(
      blank.stderr(),
      /QUIVER_API_KEYS holds no key \(only blanks and commas\): this run accepts one generated key/,
    );
  } finally {
    await stop(blank);
  }
  const unset = runQuiver(["serve", "--port", "0", "--quiet"]);
  try {
    await listening(unset);
    assert.match(unset.stderr(), /QUIVER_API_KEYS is not set: this run accepts one generated key/);
  } finally {
    await stop(unset);
  }
});

test.run();
