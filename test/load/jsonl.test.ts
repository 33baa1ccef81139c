import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { QuiverError, type QuiverErrorCode } from "../../src/engine/errors.js";
import { GraphBuilder } from "../../src/engine/graph-builder.js";
import { loadGraph, loadJsonLinesFile, type LoadProgress } from "../../src/load/jsonl.js";

let root = "";
let caseNumber = 0;

test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-jsonl-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

const entity = (entityId: string, rawIdentifier = entityId, type = "0") =>
  JSON.stringify({ entityId, rawIdentifier, type, sourceType: "test" });
const statement = (s: string, p: string, o: string, statementFingerprint?: string) =>
  JSON.stringify(
    statementFingerprint === undefined
      ? { subjectEntityId: s, predicateEntityId: p, objectEntityId: o }
      : { subjectEntityId: s, predicateEntityId: p, objectEntityId: o, statementFingerprint },
  );

/** Three entities (one a predicate) every statements test can name. */
const BASE_ENTITIES =
  [entity("a", "Albrecht Dürer"), entity("b", "Nürnberg"), entity("p", "bornIn", "1")].join("\n") + "\n";

/** Writes entities.jsonl and statements.jsonl into a fresh folder; returns their paths. */
async function writeCase(entities: string | Buffer, statements: string | Buffer = "") {
  const dir = join(root, String(++caseNumber));
  await mkdir(dir);
  const paths = { entities: join(dir, "entities.jsonl"), statements: join(dir, "statements.jsonl") };
  await writeFile(paths.entities, entities);
  await writeFile(paths.statements, statements);
  return paths;
}

async function loadError(paths: { entities: string; statements: string }): Promise<unknown> {
  return loadGraph(paths).then(
    () => assert.unreachable("the load should have failed"),
    (e: unknown) => e,
  );
}

/** Loads the pair and asserts the QuiverError code and that the message names `where` (`name:LINE: `). */
async function assertLoadFails(
  entities: string | Buffer,
  statements: string | Buffer,
  code: QuiverErrorCode,
  where: string,
) {
  const error = await loadError(await writeCase(entities, statements));
  assert.instance(error, QuiverError);
  const e = error as QuiverError;
  assert.is(e.code, code, e.message);
  assert.ok(e.message.includes(`${where}: `), `expected "${where}: " in: ${e.message}`);
}

// ---------------------------------------------------------------------------------------------
// good files

test("a plain pair of files loads, with counts", async () => {
  const paths = await writeCase(BASE_ENTITIES, statement("a", "p", "b") + "\n" + statement("b", "p", "a") + "\n");
  const graph = await loadGraph(paths);
  assert.is(graph.entityCount, 3);
  assert.is(graph.statementCount, 2);
});

test("loadJsonLinesFile reports lines, items and bytes", async () => {
  const paths = await writeCase(BASE_ENTITIES + "\n");
  const builder = new GraphBuilder();
  const result = await loadJsonLinesFile(paths.entities, "entities", builder);
  assert.equal(result, { lines: 4, items: 3, bytes: Buffer.byteLength(BASE_ENTITIES) + 1 });
  assert.is(builder.entityCount, 3);
});

test("BOM, CRLF, blank and whitespace-only lines, and no final newline", async () => {
  const entities =
    "\uFEFF" +
    [entity("a", "Albrecht Dürer"), "", "   \t ", entity("b", "Nürnberg"), "\r", entity("p", "bornIn", "1")].join(
      "\r\n",
    );
  const paths = await writeCase(entities, "\r\n" + statement("a", "p", "b") + "\r\n\r\n" + statement("b", "p", "a"));
  const builder = new GraphBuilder();
  const e = await loadJsonLinesFile(paths.entities, "entities", builder);
  const s = await loadJsonLinesFile(paths.statements, "statements", builder);
  assert.equal([e.lines, e.items, s.lines, s.items], [6, 3, 4, 2]);
  const graph = builder.build();
  assert.is(graph.entityCount, 3);
  assert.is(graph.statementCount, 2);
  // The BOM did not end up inside the first entity's id, and CR did not end up in identifiers.
  const [first] = graph.search({ q: "Albrecht Dürer" }).items;
  assert.is(first?.entityId, "a");
  assert.is(first?.rawIdentifier, "Albrecht Dürer");
  assert.is(graph.statements({ subjectEntityId: "a" }).items.length, 1);
});

test("an exact duplicate statement is counted as read but kept once", async () => {
  const paths = await writeCase(BASE_ENTITIES, `${statement("a", "p", "b")}\n${statement("a", "p", "b")}\n`);
  const builder = new GraphBuilder();
  await loadJsonLinesFile(paths.entities, "entities", builder);
  const s = await loadJsonLinesFile(paths.statements, "statements", builder);
  assert.is(s.items, 2);
  assert.is(builder.build().statementCount, 1);
});

test("every chunk size gives the same result (lines cut anywhere, even inside a character)", async () => {
  const entities =
    "\uFEFF" +
    [entity("a", "Albrecht Dürer"), "", entity("b", "İstanbul ΟΔΟΣ 東京"), entity("p", "bornIn", "1")].join("\r\n");
  const paths = await writeCase(entities, statement("a", "p", "b") + "\r\n");
  for (const chunkBytes of [1, 2, 3, 5, 7, 64]) {
    const builder = new GraphBuilder();
    const e = await loadJsonLinesFile(paths.entities, "entities", builder, { chunkBytes });
    const s = await loadJsonLinesFile(paths.statements, "statements", builder, { chunkBytes });
    assert.equal([e.lines, e.items, s.lines, s.items], [4, 3, 1, 1], `chunkBytes ${chunkBytes}`);
    const graph = builder.build();
    assert.is(graph.search({ q: "東京" }).items[0]?.entityId, "b", `chunkBytes ${chunkBytes}`);
    assert.is(graph.search({ q: "Albrecht Dürer" }).items[0]?.entityId, "a", `chunkBytes ${chunkBytes}`);
  }
});

test("a 10 MB line loads", async () => {
  // Two-byte characters, so the 1 MiB read chunks cut the line inside characters too.
  const long = "é".repeat(5_000_000) + "ENDMARK";
  const paths = await writeCase(
    `${entity("a")}\n${entity("long", long)}\n${entity("p", "p", "1")}\n`,
    statement("long", "p", "a"),
  );
  const builder = new GraphBuilder();
  const e = await loadJsonLinesFile(paths.entities, "entities", builder);
  await loadJsonLinesFile(paths.statements, "statements", builder);
  assert.equal([e.lines, e.items], [3, 3]);
  const graph = builder.build();
  assert.is(graph.entityCount, 3);
  const [hit] = graph.search({ q: "endmark" }).items;
  assert.is(hit?.entityId, "long");
  assert.is(hit?.rawIdentifier, long);
});

test("progress: a final report per file with the totals, then the build phases", async () => {
  const paths = await writeCase(BASE_ENTITIES, statement("a", "p", "b") + "\n");
  const reports: LoadProgress[] = [];
  await loadGraph({ ...paths, onProgress: (p) => reports.push(p) });
  const finals = reports.filter((p) => p.finished && (p.phase === "entities" || p.phase === "statements"));
  assert.equal(
    finals.map((p) =>
      p.phase === "entities" || p.phase === "statements"
        ? [p.phase, p.file, p.lines, p.items, p.bytes === p.totalBytes]
        : [],
    ),
    [
      ["entities", paths.entities, 3, 3, true],
      ["statements", paths.statements, 1, 1, true],
    ],
  );
  // Reads come first, then whatever the builder reports, in order.
  const firstBuild = reports.findIndex((p) => p.phase !== "entities" && p.phase !== "statements");
  const lastRead = reports.map((p) => p.phase === "entities" || p.phase === "statements").lastIndexOf(true);
  assert.ok(firstBuild === -1 || firstBuild > lastRead);
});

test("a missing file rejects with the system error", async () => {
  const paths = await writeCase(BASE_ENTITIES);
  const error = await loadError({ ...paths, statements: join(root, "no-such-file.jsonl") });
  assert.instance(error, Error);
  assert.is((error as NodeJS.ErrnoException).code, "ENOENT");
});

// ---------------------------------------------------------------------------------------------
// bad lines: each names its file and exact line

test("not JSON", async () => {
  await assertLoadFails(`${entity("a")}\n\n{"entityId": "b"\n`, "", "INVALID_DATA", "entities.jsonl:3");
  const error = await loadError(await writeCase(`${entity("a")}\n{oops}\n`));
  assert.match((error as Error).message, /entities\.jsonl:2: not valid JSON: /);
});

test("not an object: array, string, number, null", async () => {
  for (const line of ["[1,2]", '"text"', "42", "null", "true"]) {
    await assertLoadFails(`${entity("a")}\n${line}\n`, "", "INVALID_DATA", "entities.jsonl:2");
    await assertLoadFails(
      BASE_ENTITIES,
      `${statement("a", "p", "b")}\n\n${line}`,
      "INVALID_DATA",
      "statements.jsonl:3",
    );
  }
  const error = await loadError(await writeCase(`[]\n`));
  assert.match((error as Error).message, /entities\.jsonl:1: expected a JSON object/);
});

test("a missing field", async () => {
  await assertLoadFails(
    `${entity("a")}\n{"entityId":"b","rawIdentifier":"B","sourceType":"x"}\n`,
    "",
    "INVALID_DATA",
    "entities.jsonl:2",
  );
  await assertLoadFails(`{"rawIdentifier":"B","type":"0","sourceType":"x"}\n`, "", "INVALID_DATA", "entities.jsonl:1");
  await assertLoadFails(
    BASE_ENTITIES,
    `${statement("a", "p", "b")}\n{"subjectEntityId":"a","predicateEntityId":"p"}\n`,
    "INVALID_DATA",
    "statements.jsonl:2",
  );
});

test("a mistyped field", async () => {
  await assertLoadFails(
    `${entity("a")}\n{"entityId":"b","rawIdentifier":"B","type":0,"sourceType":"x"}\n`,
    "",
    "INVALID_DATA",
    "entities.jsonl:2",
  );
  await assertLoadFails(
    `{"entityId":7,"rawIdentifier":"B","type":"0","sourceType":"x"}\n`,
    "",
    "INVALID_DATA",
    "entities.jsonl:1",
  );
  await assertLoadFails(
    `{"entityId":"b","rawIdentifier":null,"type":"0","sourceType":"x"}\n`,
    "",
    "INVALID_DATA",
    "entities.jsonl:1",
  );
  await assertLoadFails(
    `{"entityId":"","rawIdentifier":"B","type":"0","sourceType":"x"}\n`,
    "",
    "INVALID_DATA",
    "entities.jsonl:1",
  );
  await assertLoadFails(
    BASE_ENTITIES,
    `{"subjectEntityId":"a","predicateEntityId":"p","objectEntityId":["b"]}\n`,
    "INVALID_DATA",
    "statements.jsonl:1",
  );
  await assertLoadFails(BASE_ENTITIES, `${statement("a", "p", "b", "")}\n`, "INVALID_DATA", "statements.jsonl:1");
});

test('type "8" and other types outside "0".."7"', async () => {
  for (const type of ["8", "01", "", "a"]) {
    await assertLoadFails(`${entity("a")}\n\n\n${entity("b", "B", type)}\n`, "", "INVALID_DATA", "entities.jsonl:4");
  }
});

test("a duplicate entityId", async () => {
  await assertLoadFails(
    `${entity("a")}\n${entity("b")}\n\n${entity("a", "other")}\n`,
    "",
    "DUPLICATE_ENTITY",
    "entities.jsonl:4",
  );
});

test("a statement naming an unknown entity", async () => {
  await assertLoadFails(
    BASE_ENTITIES,
    `${statement("a", "p", "b")}\n${statement("a", "p", "nobody")}\n`,
    "UNKNOWN_ENTITY",
    "statements.jsonl:2",
  );
  await assertLoadFails(BASE_ENTITIES, `${statement("a", "nobody", "b")}\n`, "UNKNOWN_ENTITY", "statements.jsonl:1");
});

test("two different statements with one fingerprint", async () => {
  await assertLoadFails(
    BASE_ENTITIES,
    `${statement("a", "p", "b", "fp1")}\n${statement("b", "p", "a", "fp2")}\n${statement("b", "p", "b", "fp1")}\n`,
    "FINGERPRINT_CONFLICT",
    "statements.jsonl:3",
  );
});

test("invalid UTF-8 bytes", async () => {
  const good = Buffer.from(`${entity("a")}\n`);
  const bad = Buffer.concat([
    Buffer.from('{"entityId":"b","rawIdentifier":"'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from('","type":"0","sourceType":"x"}\n'),
  ]);
  await assertLoadFails(Buffer.concat([good, Buffer.from("\n"), bad]), "", "INVALID_DATA", "entities.jsonl:3");
  // A truncated two-byte sequence on a last line without LF; and a UTF-8-encoded surrogate.
  await assertLoadFails(
    Buffer.concat([good, Buffer.from('{"entityId":"'), Buffer.from([0xc3])]),
    "",
    "INVALID_DATA",
    "entities.jsonl:2",
  );
  await assertLoadFails(
    Buffer.concat([good, good.subarray(0, 5), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from("\n")]),
    "",
    "INVALID_DATA",
    "entities.jsonl:2",
  );
  const error = await loadError(await writeCase(bad));
  assert.match((error as Error).message, /entities\.jsonl:1: not valid UTF-8/);
});

test("a BOM anywhere but the start of the file is an error", async () => {
  await assertLoadFails(`${entity("a")}\n\uFEFF${entity("b")}\n`, "", "INVALID_DATA", "entities.jsonl:2");
});

test("a line over the cap is an error naming it, inside one chunk or across many", async () => {
  const paths = await writeCase(`${entity("a")}\n${entity("b", "x".repeat(200))}\n${entity("c")}\n`);
  for (const chunkBytes of [16, 1 << 20]) {
    const error = await loadJsonLinesFile(paths.entities, "entities", new GraphBuilder(), {
      maxLineBytes: 100,
      chunkBytes,
    }).then(
      () => assert.unreachable("should fail"),
      (e: unknown) => e,
    );
    assert.instance(error, QuiverError);
    assert.is((error as QuiverError).code, "INVALID_DATA");
    assert.match((error as Error).message, /entities\.jsonl:2: line is longer than 100 bytes/);
  }
});

test("errors name the displayName when one is given, and count CRLF lines right", async () => {
  const paths = await writeCase(`${entity("a")}\r\n\r\n${entity("a")}\r\n`);
  const error = await loadJsonLinesFile(paths.entities, "entities", new GraphBuilder(), {
    displayName: "people.jsonl",
  }).then(
    () => assert.unreachable("should fail"),
    (e: unknown) => e,
  );
  assert.instance(error, QuiverError);
  assert.is((error as QuiverError).code, "DUPLICATE_ENTITY");
  assert.ok((error as Error).message.startsWith("people.jsonl:3: "), (error as Error).message);
  assert.equal((error as QuiverError).source, { file: "people.jsonl", line: 3 });
});

test.run();
