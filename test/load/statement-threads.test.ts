/**
 * Statement parser thread tests
 * =============================
 * src/load/statement-threads.ts through loadGraph: the same seeded generated graph read with 1 and
 * with 3 threads gives the same content tag and the same snapshot bytes (lines of every shape:
 * other key orders, escapes, non-ASCII text, blank lines, duplicates, CRLF, no last LF, a given
 * fingerprint equal to the derived one); a bad line
 * in the middle of a later range is named with the same file:line: reason as one thread names it;
 * a range cut that falls inside a multi-byte character moves to the line's end.
 */

import { closeSync, openSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { deriveFingerprint } from "../../src/engine/statements/fingerprint.js";
import { loadGraph } from "../../src/load/jsonl.js";
import { splitRanges } from "../../src/load/statement-threads.js";
import { generateGraph, type GraphData, Rng } from "../support/oracle.js";
import { snapshotBytes } from "../support/snapshot.js";

let root = "";
let caseNumber = 0;

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-threads-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Writes the data as JSON Lines, each statement line in one of several shapes the rng picks. */
async function writeData(rng: Rng, data: GraphData, eol: string, lastEol: boolean) {
  const dir = join(root, String(caseNumber++));
  const entities = data.entities.map((e) => JSON.stringify(e));
  const statements: string[] = [];
  for (const st of data.statements) {
    const r = rng.float();
    // Each shape takes a different path: the threads' fast rows, or the lines left to the main thread.
    if (r < 0.65) statements.push(JSON.stringify(st));
    else if (r < 0.7) {
      // The derived fingerprint given: kept as derived (not stored), as one thread decides.
      const { subjectEntityId: s, predicateEntityId: p, objectEntityId: o } = st;
      const statementFingerprint = deriveFingerprint(s, p, o);
      statements.push(
        JSON.stringify({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o, statementFingerprint }),
      );
    } else if (r < 0.8) statements.push(JSON.stringify(st, null, 1).replace(/\n/g, ""));
    else if (r < 0.85) statements.push("");
    else if (r < 0.9) statements.push(JSON.stringify({ extra: "é", ...st }));
    else statements.push(JSON.stringify(st), JSON.stringify(st)); // the same statement twice: kept once
  }
  const text = (lines: string[]) => lines.join(eol) + (lastEol ? eol : "");
  await import("node:fs/promises").then((fs) => fs.mkdir(dir));
  const paths = { entities: join(dir, "entities.jsonl"), statements: join(dir, "statements.jsonl") };
  await writeFile(paths.entities, text(entities));
  await writeFile(paths.statements, text(statements));
  return paths;
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (e) {
    return `${(e as { code?: string }).code}: ${(e as Error).message}`;
  }
  throw new Error("expected the load to fail");
}

for (const [seed, eol, lastEol] of [
  [1, "\n", true],
  [2, "\r\n", true],
  [3, "\n", false],
  [4, "\r\n", false],
] as const) {
  test(`seed ${seed}: 1 and 3 threads give the same content tag and snapshot bytes (${JSON.stringify(eol)}, last LF ${lastEol})`, async () => {
    const rng = new Rng(seed);
    const data = generateGraph(rng, { entities: 400, statements: 6000, edgeFingerprints: true, loneSurrogates: false });
    const paths = await writeData(rng, data, eol, lastEol);
    const one = await loadGraph({ ...paths, threads: 1, searchIndexThread: false });
    const three = await loadGraph({ ...paths, threads: 3, searchIndexThread: false });
    assert.ok(one.stats().statements > 0);
    assert.is(three.contentTag, one.contentTag);
    assert.equal(snapshotBytes(three), snapshotBytes(one));
  });
}

test("a bad line in the middle of a later range is named as one thread names it", async () => {
  const rng = new Rng(7);
  const data = generateGraph(rng, { entities: 200, statements: 3000 });
  const paths = await writeData(rng, data, "\n", true);
  const { readFile } = await import("node:fs/promises");
  const lines = (await readFile(paths.statements, "utf8")).split("\n");
  for (const bad of [
    '{"subjectEntityId":"no such entity","predicateEntityId":"x","objectEntityId":"y"}',
    "{not json",
    '{"subjectEntityId":"a"}',
  ]) {
    const copy = [...lines];
    // Past two thirds of the file: inside the last of three ranges.
    copy.splice(Math.floor(lines.length * 0.8), 0, bad);
    await writeFile(paths.statements, copy.join("\n"));
    const one = await failure(loadGraph({ ...paths, threads: 1, searchIndexThread: false }));
    const three = await failure(loadGraph({ ...paths, threads: 3, searchIndexThread: false }));
    assert.match(one, `statements.jsonl:${Math.floor(lines.length * 0.8) + 1}: `);
    assert.is(three, one);
  }
});

test("lines near the common shape: read by the threads' byte reader or left to the main thread, one graph either way", async () => {
  const dir = join(root, String(caseNumber++));
  await import("node:fs/promises").then((fs) => fs.mkdir(dir));
  const ids = ["a", "b c", "x~y", "é", "Q\\1", 'q"1', "A"];
  const entities = ids.map((entityId) =>
    JSON.stringify({ entityId, rawIdentifier: entityId, type: "0", sourceType: "s" }),
  );
  const plain = (s: string, p: string, o: string, rest = "") =>
    `{"subjectEntityId":"${s}","predicateEntityId":"${p}","objectEntityId":"${o}"${rest}}`;
  const good: string[] = [
    plain("a", "b c", "x~y"),
    plain("a", "a", "a", ',"statementFingerprint":"0123456789abcdef"'),
    // Not 16 lowercase hex digits: texts the main thread keeps as given.
    plain("b c", "a", "a", ',"statementFingerprint":"0123456789ABCDEF"'),
    plain("x~y", "a", "a", ',"statementFingerprint":"0123456789abcde"'),
    plain("x~y", "b c", "a", ',"statementFingerprint":"0123456789abcdef0"'),
    plain("a", "x~y", "b c", ',"statementFingerprint":"fp with space"'),
    // Escapes, non-ASCII, other spacing and key orders: the one-thread reading.
    plain("\\u0041", "a", "a"),
    plain("\u00e9", "a", "b c"),
    JSON.stringify({ subjectEntityId: "é", predicateEntityId: "a", objectEntityId: "A" }),
    JSON.stringify({ subjectEntityId: "Q\\1", predicateEntityId: 'q"1', objectEntityId: "A" }),
    `${plain("A", "A", "A")} `,
    plain("A", "b c", "a").replace(":", " : "),
    JSON.stringify({ objectEntityId: "a", subjectEntityId: "A", predicateEntityId: "x~y" }),
  ];
  const paths = { entities: join(dir, "entities.jsonl"), statements: join(dir, "statements.jsonl") };
  await writeFile(paths.entities, `${entities.join("\n")}\n`);
  // Many copies, so that every range holds each shape (exact duplicates are kept once).
  const lines: string[] = [];
  for (let k = 0; k < 200; k++) lines.push(...good);
  await writeFile(paths.statements, `${lines.join("\n")}\n`);
  const one = await loadGraph({ ...paths, threads: 1, searchIndexThread: false });
  const three = await loadGraph({ ...paths, threads: 3, searchIndexThread: false });
  assert.is(one.stats().statements, good.length);
  assert.is(three.contentTag, one.contentTag);
  assert.equal(snapshotBytes(three), snapshotBytes(one));
  for (const bad of [
    plain("a", "b c", ""),
    plain("a", "b c", "x~y", ',"statementFingerprint":""'),
    plain("a", "b c", "nobody"),
    plain("a", "b", "x~y"),
    `${plain("a", "b c", "x~y")}}`,
  ]) {
    await writeFile(paths.statements, `${[...lines.slice(0, 1500), bad, ...lines.slice(1500)].join("\n")}\n`);
    const oneError = await failure(loadGraph({ ...paths, threads: 1, searchIndexThread: false }));
    assert.match(oneError, "statements.jsonl:1501: ");
    assert.is(await failure(loadGraph({ ...paths, threads: 3, searchIndexThread: false })), oneError);
  }
});

test("a fingerprint conflict across ranges names both lines as one thread does", async () => {
  const dir = join(root, String(caseNumber++));
  await import("node:fs/promises").then((fs) => fs.mkdir(dir));
  const entities = ["a", "b", "c"].map((id) =>
    JSON.stringify({ entityId: id, rawIdentifier: id, type: "0", sourceType: "t" }),
  );
  const st = (s: string, fp: string) =>
    JSON.stringify({ subjectEntityId: s, predicateEntityId: "b", objectEntityId: "c", statementFingerprint: fp });
  const lines = [st("a", "00000000000000aa")];
  for (let i = 0; i < 500; i++) lines.push(st(i % 2 === 0 ? "a" : "b", (1000 + i).toString(16).padStart(16, "0")));
  lines.push(st("b", "00000000000000aa"));
  const paths = { entities: join(dir, "e.jsonl"), statements: join(dir, "s.jsonl") };
  await writeFile(paths.entities, entities.join("\n"));
  await writeFile(paths.statements, lines.join("\n"));
  const one = await failure(loadGraph({ ...paths, threads: 1 }));
  assert.match(one, "FINGERPRINT_CONFLICT");
  assert.is(await failure(loadGraph({ ...paths, threads: 3 })), one);
});

test("a range cut inside a multi-byte character moves to the end of its line", async () => {
  const dir = join(root, String(caseNumber++));
  await import("node:fs/promises").then((fs) => fs.mkdir(dir));
  const path = join(dir, "x.jsonl");
  // "é" is 2 bytes, "😀" 4: the even cuts of 2 and 3 parts land inside them.
  const text = `${"😀".repeat(10)}\n${"é".repeat(20)}\nabc`;
  await writeFile(path, text);
  const size = Buffer.byteLength(text);
  const fd = openSync(path, "r");
  try {
    for (let parts = 2; parts <= 5; parts++) {
      const cuts = splitRanges(fd, size, parts);
      assert.is(cuts[0], 0);
      assert.is(cuts[cuts.length - 1], size);
      const bytes = Buffer.from(text);
      for (const cut of cuts.slice(1, -1)) assert.is(bytes[cut - 1], 0x0a, `cut ${cut} after an LF`);
    }
  } finally {
    closeSync(fd);
  }
});

test("threads must be a whole number from 1", async () => {
  for (const threads of [0, 1.5, -1, Number.NaN]) {
    const message = await failure(loadGraph({ entities: "/nonexistent", statements: "/nonexistent", threads }));
    assert.match(message, "INVALID_PARAMETER: threads must be");
  }
});

test.run();
