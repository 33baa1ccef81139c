/**
 * Bad data through `quiver serve`, as users run it (a child process): each kind of bad file stops
 * the command with exit status 1 and `file:line: reason` on stderr before the graph is built or a
 * port is opened, so nothing half-loaded is ever served; a BOM, CRLF line endings and a 10 MB line
 * load and are served correctly. test/load/jsonl.test.ts covers the loader's rules in-process (every
 * chunk boundary, each builder error); here the whole path is checked: files, CLI, exit, server.
 */

import { writeFile } from "node:fs/promises";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { listening, runQuiver, stop, tempFiles } from "../support/cli.js";

const KEY = "sk_bad_data_test";
const entity = (entityId: string, rawIdentifier = entityId, type = "0") =>
  JSON.stringify({ entityId, rawIdentifier, type, sourceType: "t" });
const statement = (s: string, p: string, o: string) =>
  JSON.stringify({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o });
const ENTITIES = [entity("a", "Albrecht Dürer"), entity("b", "Nürnberg"), entity("p", "bornIn", "1")].join("\n") + "\n";
const STATEMENTS = statement("a", "p", "b") + "\n";

async function files(entities: string | Buffer, statements: string | Buffer): Promise<{ e: string; s: string }> {
  const paths = await tempFiles({ "entities.jsonl": "", "statements.jsonl": "" });
  await writeFile(paths["entities.jsonl"]!, entities);
  await writeFile(paths["statements.jsonl"]!, statements);
  return { e: paths["entities.jsonl"]!, s: paths["statements.jsonl"]! };
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Runs serve on the pair and asserts exit 1 with `file:line: reason` and no sign of a graph or a port. */
async function assertRefused(
  pair: { e: string; s: string },
  which: "e" | "s",
  line: number,
  reason: RegExp,
): Promise<void> {
  const child = runQuiver(["serve", "--port", "0", "--quiet", "--entities", pair.e, "--statements", pair.s], {
    QUIVER_API_KEYS: KEY,
  });
  const code = await child.exited;
  const err = child.stderr();
  assert.is(code, 1, err);
  const m = new RegExp(`${escapeRegExp(pair[which])}:(\\d+): (.*)$`, "m").exec(err);
  assert.ok(m, `no "${pair[which]}:LINE: reason" in:\n${err.slice(0, 500)}`);
  assert.is(Number(m![1]), line, err);
  assert.match(m![2]!, reason);
  // Refused before the build and before any port: no summary, no key lines, no listening line.
  assert.not.match(err, /^ready:|^listening on|^try:/m);
  assert.is(child.stdout(), "");
}

async function search(url: string, q: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${url}/graph/v1/search?q=${encodeURIComponent(q)}`, { headers: { "X-API-Key": KEY } });
  return { status: r.status, body: await r.json() };
}

test("truncated JSON Lines: a file cut mid-object stops at its last line", async () => {
  const cut = ENTITIES + entity("c", "Cut Short").slice(0, 20);
  await assertRefused(await files(cut, STATEMENTS), "e", 4, /^not valid JSON/);
  await assertRefused(await files(ENTITIES, STATEMENTS + STATEMENTS.slice(0, 30)), "s", 2, /^not valid JSON/);
  // Cut inside a multi-byte character: the bytes are the first complaint.
  const bytes = Buffer.from(ENTITIES + entity("c", "Ürsula"));
  const firstByteOfU = bytes.indexOf(Buffer.from("Ü")) + 1;
  await assertRefused(await files(bytes.subarray(0, firstByteOfU), STATEMENTS), "e", 4, /^not valid UTF-8/);
});

test("a line of invalid UTF-8 (stray bytes, an encoded surrogate, a UTF-16 file) stops at that line", async () => {
  const bad = Buffer.concat([
    Buffer.from('{"entityId":"x","rawIdentifier":"'),
    Buffer.from([0xc3, 0x28, 0xff]),
    Buffer.from('","type":"0","sourceType":"t"}\n'),
  ]);
  await assertRefused(
    await files(Buffer.concat([Buffer.from(ENTITIES), bad]), STATEMENTS),
    "e",
    4,
    /^not valid UTF-8$/,
  );
  const surrogate = Buffer.concat([
    Buffer.from('{"entityId":"x","rawIdentifier":"'),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from('","type":"0","sourceType":"t"}\n'),
  ]);
  await assertRefused(
    await files(ENTITIES, Buffer.concat([Buffer.from(STATEMENTS + "\n"), surrogate])),
    "s",
    3,
    /^not valid UTF-8$/,
  );
  const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(ENTITIES, "utf16le")]);
  await assertRefused(await files(utf16, STATEMENTS), "e", 1, /^not valid UTF-8$/);
});

test("a raw NUL or control byte inside a JSON string stops at that line", async () => {
  await assertRefused(
    await files(ENTITIES + '{"entityId":"n\u0000ul","rawIdentifier":"x","type":"0","sourceType":"t"}\n', STATEMENTS),
    "e",
    4,
    /^not valid JSON/,
  );
});

test("a 10 MB line: valid, it loads and is served; not JSON, it stops at its line", async () => {
  // The bulk is in a field the format ignores: identifiers have byte limits (1,024 for rawIdentifier).
  const long = "é".repeat(500) + " ENDMARK";
  const line = JSON.stringify({
    entityId: "long",
    rawIdentifier: long,
    type: "4",
    sourceType: "t",
    note: "é".repeat(5_000_000),
  });
  const good = await files(`${ENTITIES}${line}\n`, `${STATEMENTS}${statement("long", "p", "a")}\n`);
  const child = runQuiver(["serve", "--port", "0", "--quiet", "--entities", good.e, "--statements", good.s], {
    QUIVER_API_KEYS: KEY,
  });
  try {
    const url = await listening(child, 30_000);
    const r = await search(url, "endmark");
    assert.is(r.status, 200);
    assert.is(r.body.items.length, 1);
    assert.is(r.body.items[0].rawIdentifier, long);
    const st = await fetch(`${url}/graph/v1/statements?subjectEntityId=long`, { headers: { "X-API-Key": KEY } });
    assert.is(((await st.json()) as any).items[0].subjectRawIdentifier, long);
  } finally {
    assert.is(await stop(child), 0);
  }
  const unterminated = `{"entityId":"long","rawIdentifier":"${"x".repeat(10_000_000)}`;
  await assertRefused(
    await files(`${ENTITIES}\n${unterminated}\n${entity("after")}\n`, STATEMENTS),
    "e",
    5,
    /^not valid JSON/,
  );
});

test("a BOM and CRLF line endings load and are served exactly (no BOM or CR in any identifier)", async () => {
  const crlf = (s: string) => s.replace(/\n/g, "\r\n");
  const pair = await files("\uFEFF" + crlf(ENTITIES) + "\r\n", "\uFEFF" + crlf(STATEMENTS + statement("b", "p", "a")));
  const child = runQuiver(["serve", "--port", "0", "--quiet", "--entities", pair.e, "--statements", pair.s], {
    QUIVER_API_KEYS: KEY,
  });
  try {
    const url = await listening(child);
    const a = await search(url, "Albrecht Dürer");
    assert.equal(a.body.items, [{ entityId: "a", rawIdentifier: "Albrecht Dürer", type: "0", sourceType: "t" }]);
    const p = await search(url, "bornIn");
    assert.equal(p.body.items, [{ entityId: "p", rawIdentifier: "bornIn", type: "1", sourceType: "t" }]);
    const st = await fetch(`${url}/graph/v1/statements`, { headers: { "X-API-Key": KEY } });
    const body = (await st.json()) as any;
    assert.is(body.items.length, 2);
    assert.equal(
      body.items.map((s: any) => [s.subjectEntityId, s.predicateEntityId, s.objectEntityId]),
      [
        ["a", "p", "b"],
        ["b", "p", "a"],
      ],
    );
    assert.not.match(JSON.stringify(body), /\\r|\\ufeff|\uFEFF/i);
  } finally {
    assert.is(await stop(child), 0);
  }
});

test("duplicate ids and dangling references stop at their line, far into a file too", async () => {
  await assertRefused(await files(`${ENTITIES}\n${entity("b", "Another B")}\n`, STATEMENTS), "e", 5, /entityId "b"/);
  await assertRefused(await files(ENTITIES, `${STATEMENTS}${statement("a", "p", "nobody")}\n`), "s", 2, /nobody/);
  await assertRefused(await files(ENTITIES, `${statement("a", "ghost", "b")}\n`), "s", 1, /ghost/);
  // 60,000 good lines first: the count holds across read chunks, and the last line decides.
  const many = Array.from({ length: 60_000 }, (_, i) => entity(`n${i}`, `Node ${i}`)).join("\n");
  await assertRefused(await files(`${many}\n${entity("n123", "again")}\n`, ""), "e", 60_001, /n123/);
  const statements = Array.from({ length: 60_000 }, (_, i) =>
    statement(`n${i}`, `n${(i + 1) % 60_000}`, `n${(i + 2) % 60_000}`),
  ).join("\n");
  await assertRefused(
    await files(`${many}\n`, `${statements}\n${statement("n1", "n2", "n60000")}\n`),
    "s",
    60_001,
    /n60000/,
  );
});
test.run();
