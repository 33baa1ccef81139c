/**
 * `quiver build` and `quiver serve --snapshot`, through the command as a user runs it: a snapshot
 * built from JSON Lines serves the same answers, SIGHUP swaps in a rebuilt snapshot while serving
 * (cursors issued before carry on), a failed reload keeps the old graph, and a damaged snapshot is
 * refused before the port opens.
 */

import { readFile, writeFile } from "node:fs/promises";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { listening, runQuiver, stop, tempFiles } from "../support/cli.js";

const KEY = "sk_snapshot_test";
const ENV = { QUIVER_API_KEYS: KEY, QUIVER_CURSOR_SECRET: "replica-secret-0123456789abcdefXY" };

const entity = (id: string, name: string) =>
  JSON.stringify({ entityId: id, rawIdentifier: name, type: "0", sourceType: "t" });
const statement = (s: string, p: string, o: string) =>
  JSON.stringify({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o });

async function get(url: string): Promise<{ status: number; body: any }> {
  const r = await fetch(url, { headers: { "X-API-Key": KEY } });
  return { status: r.status, body: await r.json() };
}

async function build(
  entities: string,
  statements: string,
  out: string,
): Promise<{ code: number | string; stderr: string }> {
  const child = runQuiver(["build", "--entities", entities, "--statements", statements, "--out", out]);
  const code = await child.exited;
  return { code, stderr: child.stderr() };
}

const until = async (check: () => boolean, what: string, ms = 10000): Promise<void> => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

test("build, serve --snapshot, SIGHUP reload with a cursor carried across, failed reload keeps serving", async () => {
  const files = await tempFiles({
    "e1.jsonl":
      ["alpha one", "alpha two", "alpha three", "beta"].map((n, i) => entity(`E${i}`, n)).join("\n") +
      "\n" +
      entity("P", "knows") +
      "\n",
    "s1.jsonl": statement("E0", "P", "E1") + "\n",
    "e2.jsonl":
      ["alpha one", "alpha one and a half", "alpha three", "alpha four"].map((n, i) => entity(`E${i}`, n)).join("\n") +
      "\n" +
      entity("P", "knows") +
      "\n",
    "s2.jsonl": statement("E0", "P", "E1") + "\n" + statement("E2", "P", "E3") + "\n",
  });
  const snap = files["e1.jsonl"]!.replace(/e1\.jsonl$/, "graph.snap");
  const built = await build(files["e1.jsonl"]!, files["s1.jsonl"]!, snap);
  assert.is(built.code, 0, built.stderr);
  assert.match(built.stderr, /wrote .*graph\.snap/);

  const child = runQuiver(["serve", "--snapshot", snap, "--port", "0", "--quiet"], ENV);
  try {
    const url = await listening(child);
    const first = await get(`${url}/graph/v1/search?q=alpha&limit=1`);
    assert.is(first.status, 200);
    assert.equal(
      first.body.items.map((e: any) => e.rawIdentifier),
      ["alpha one"],
    );
    assert.type(first.body.nextCursor, "string");

    // Rebuild the snapshot from other data and reload: "alpha two" is gone, two names are new.
    const rebuilt = await build(files["e2.jsonl"]!, files["s2.jsonl"]!, snap);
    assert.is(rebuilt.code, 0, rebuilt.stderr);
    child.process.kill("SIGHUP");
    await until(() => /reloaded;/.test(child.stderr()), "the reload");
    const next = await get(`${url}/graph/v1/search?q=alpha&limit=10&cursor=${first.body.nextCursor}`);
    assert.is(next.status, 200);
    // Resumes after "alpha one" in the new graph's order (its cursor carries the key, not an offset):
    // "alpha four" is new but sorts before the cursor's key, so it is not on the following pages.
    assert.equal(
      next.body.items.map((e: any) => e.rawIdentifier),
      ["alpha one and a half", "alpha three"],
    );
    assert.is((await get(`${url}/graph/v1/statements`)).body.items.length, 2);

    // A damaged snapshot: the reload fails and the previous graph keeps answering.
    const bytes = await readFile(snap);
    const middle = bytes.length >> 1;
    bytes[middle] = (bytes[middle] as number) ^ 0xff;
    await writeFile(snap, bytes);
    child.process.kill("SIGHUP");
    await until(
      () => /reload failed, still serving the previous graph: .*graph\.snap/.test(child.stderr()),
      "the failed reload",
    );
    assert.is((await get(`${url}/graph/v1/statements`)).body.items.length, 2);
    assert.is((await get(`${url}/healthz`)).status, 200);
  } finally {
    assert.is(await stop(child), 0);
  }
});

test("a damaged or missing snapshot is refused before the port opens, naming the file", async () => {
  const files = await tempFiles({ "bad.snap": "QUIVERSN but not really a snapshot" });
  for (const path of [files["bad.snap"]!, `${files["bad.snap"]}.missing`]) {
    const child = runQuiver(["serve", "--snapshot", path, "--port", "0"], ENV);
    assert.is(await child.exited, 1);
    assert.not.match(child.stderr(), /listening on/);
    assert.ok(child.stderr().includes(path), child.stderr());
  }
});

test("--snapshot with JSON Lines files is a usage error; build without --out too", async () => {
  const serve = runQuiver(["serve", "--snapshot", "x.snap", "--entities", "e.jsonl", "--statements", "s.jsonl"], ENV);
  assert.is(await serve.exited, 2);
  assert.match(serve.stderr(), /--snapshot alone/);
  const build = runQuiver(["build", "--entities", "e.jsonl", "--statements", "s.jsonl"]);
  assert.is(await build.exited, 2);
  assert.match(build.stderr(), /--out/);
});

test.run();
