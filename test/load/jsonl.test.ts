/**
 * JSON Lines loader tests
 * =======================
 * src/load/jsonl.ts against CONTRACT.md "Input format": good files (BOM, CRLF, blank lines, chunk
 * boundaries anywhere, long lines), every kind of bad line named by `file:line` (the first bad line
 * of the file, whatever its kind), the inputs (`-` for stdin, `.gz`, a missing path or a directory)
 * and progress.
 */

import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { gzipSync } from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { QuiverError, type QuiverErrorCode } from "../../src/engine/errors.js";
import { deriveFingerprint } from "../../src/engine/statements/fingerprint.js";
import { GraphBuilder } from "../../src/engine/graph-builder.js";
import {
  loadGraph,
  loadJsonLinesFile,
  throttledBuildProgress,
  type LoadProgress,
  type ReadProgress,
} from "../../src/load/jsonl.js";

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

test("a 10 MB line loads (the bulk in a field the format ignores; identifiers have their limits)", async () => {
  // Two-byte characters, so the 1 MiB read chunks cut the line inside characters too.
  const bulk = "é".repeat(5_000_000);
  const long = `${"é".repeat(500)}ENDMARK`;
  const line = JSON.stringify({ entityId: "long", rawIdentifier: long, type: "0", sourceType: "test", note: bulk });
  const paths = await writeCase(`${entity("a")}\n${line}\n${entity("p", "p", "1")}\n`, statement("long", "p", "a"));
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

test("build progress: each phase reported finished once, also when a worker and the loader both finish it", () => {
  const seen: [string, boolean][] = [];
  const report = throttledBuildProgress((p) => seen.push([p.phase, p.finished]));
  report("search-index", 0, 10);
  report("search-index", 10, 10); // the search index's worker reaches 100%
  report("search-index", 1, 1); // the loader holds the index: the same phase, finished again
  report("score-index", 1, 1);
  report("search-index", 1, 1); // a later phase of the same name is a new phase
  assert.equal(seen, [
    ["search-index", false],
    ["search-index", true],
    ["score-index", true],
    ["search-index", true],
  ]);
});

test("a missing file or a directory is UNREADABLE_INPUT naming the path, before any reading", async () => {
  const paths = await writeCase(`{"bad line":\n${BASE_ENTITIES}`);
  const missing = join(root, "no-such-file.jsonl");
  // the entities file is bad on line 1, but the missing statements file is reported first: nothing was read
  for (const [statements, why] of [
    [missing, /no such file/],
    [root, /is a directory/],
  ] as const) {
    const error = await loadError({ ...paths, statements });
    assert.instance(error, QuiverError);
    assert.is((error as QuiverError).code, "UNREADABLE_INPUT");
    assert.ok((error as Error).message.includes(JSON.stringify(statements)), (error as Error).message);
    assert.match((error as Error).message, why);
  }
  const alone = await loadJsonLinesFile(root, "entities", new GraphBuilder()).then(
    () => assert.unreachable("a directory loaded"),
    (e: unknown) => e,
  );
  assert.is((alone as QuiverError).code, "UNREADABLE_INPUT");
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

// ---------------------------------------------------------------------------------------------
// Review findings

test("finding 6: the first bad line of the file is named, whatever its kind (the review's cases A, B, C)", async () => {
  const E = (id: string) => entity(id);
  const entities = [E("a"), E("b"), E("p")].join("\n") + "\n";
  const cases: [string, string[]][] = [
    // A: a 16-hex conflict on line 2, an unknown entity on line 5
    [
      "A",
      [
        statement("a", "p", "b", "0123456789abcdef"),
        statement("b", "p", "a", "0123456789abcdef"),
        statement("a", "p", "a"),
        statement("b", "p", "b"),
        statement("a", "p", "zz"),
      ],
    ],
    // B: two conflicts; the one on line 2 has the larger fingerprint
    [
      "B",
      [
        statement("a", "p", "b", "ffffffffffffffff"),
        statement("b", "p", "a", "ffffffffffffffff"),
        statement("a", "p", "a", "0000000000000000"),
        statement("b", "p", "b", "0000000000000000"),
      ],
    ],
    // C: the same with text fingerprints
    [
      "C",
      [
        statement("a", "p", "b", "F"),
        statement("b", "p", "a", "F"),
        statement("a", "p", "a", "0"),
        statement("b", "p", "b", "0"),
      ],
    ],
  ];
  for (const [name, lines] of cases) {
    const error = await loadError(await writeCase(entities, lines.join("\n") + "\n"));
    assert.instance(error, QuiverError, name);
    assert.is((error as QuiverError).code, "FINGERPRINT_CONFLICT", `${name}: ${(error as Error).message}`);
    assert.equal((error as QuiverError).source?.line, 2, `${name}: ${(error as Error).message}`);
    assert.ok((error as Error).message.includes("statements.jsonl:1"), `${name}: the earlier line is named too`);
  }
  // and a derived fingerprint spelled out on another triple, then a bad line after it
  const derived = deriveFingerprint("a", "p", "b");
  await assertLoadFails(
    entities,
    [statement("a", "p", "b"), statement("b", "p", "b", derived), "{oops}"].join("\n"),
    "FINGERPRINT_CONFLICT",
    "statements.jsonl:2",
  );
});

test("finding 11: a key repeated in one object is not an error; the last value counts, as JSON.parse reads it", async () => {
  const line =
    '{"entityId":42,"entityId":"a","rawIdentifier":"x","type":"9","type":"0","sourceType":null,"sourceType":"s"}';
  const graph = await loadGraph(await writeCase(`${line}\n`));
  assert.equal(graph.getEntity("a"), { entityId: "a", rawIdentifier: "x", type: "0", sourceType: "s" });
  // and the other way round: a good first value, a bad last one, is a bad line
  await assertLoadFails(
    '{"entityId":"a","rawIdentifier":"x","type":"0","type":"9","sourceType":"s"}\n',
    "",
    "INVALID_DATA",
    "entities.jsonl:1",
  );
});

test("finding 12: a lone surrogate written as a JSON escape is a bad line naming the field", async () => {
  const raw = (fields: string) => `{${fields}}`;
  const ok = { entityId: '"a"', rawIdentifier: '"x"', type: '"0"', sourceType: '"s"' };
  const line = (o: Record<string, string>) =>
    raw(
      Object.entries(o)
        .map(([k, v]) => `"${k}":${v}`)
        .join(","),
    );
  for (const field of ["entityId", "rawIdentifier", "sourceType"]) {
    for (const bad of ['"X\\ud800"', '"\\uDC00"', '"\\ud83d\\ud83d\\ude00"']) {
      const error = await loadError(await writeCase(`${entity("b")}\n${line({ ...ok, [field]: bad })}\n`));
      assert.instance(error, QuiverError);
      assert.is((error as QuiverError).code, "INVALID_DATA");
      assert.match(
        (error as Error).message,
        new RegExp(`^.*entities\\.jsonl:2: field "${field}" is not well-formed Unicode`),
      );
    }
  }
  // a pair written as two escapes is one character, and loads
  const graph = await loadGraph(await writeCase(`${line({ ...ok, entityId: '"\\ud83d\\ude00"' })}\n`));
  assert.is(graph.getEntity("😀")?.rawIdentifier, "x");
  for (const field of ["subjectEntityId", "statementFingerprint"]) {
    const st = JSON.parse(statement("a", "p", "b")) as Record<string, string>;
    const text = JSON.stringify({ ...st, [field]: "PLACEHOLDER" }).replace("PLACEHOLDER", "a\\udfff");
    await assertLoadFails(
      BASE_ENTITIES,
      `${statement("b", "p", "a")}\n${text}\n`,
      "INVALID_DATA",
      "statements.jsonl:2",
    );
  }
});

test("finding 1: a field over its byte limit is a bad line naming the field and the limit", async () => {
  const cases: [string, string, number][] = [
    ["entityId", "é".repeat(256) + "x", 512],
    ["rawIdentifier", "😀".repeat(256) + "x", 1024],
    ["sourceType", "中".repeat(85) + "xx", 256],
  ];
  for (const [field, value, max] of cases) {
    const o = { entityId: "b", rawIdentifier: "B", type: "0", sourceType: "s", [field]: value };
    const error = await loadError(await writeCase(`${entity("a")}\n\n${JSON.stringify(o)}\n`));
    assert.is((error as QuiverError).code, "INVALID_DATA", String(error));
    assert.match(
      (error as Error).message,
      new RegExp(`entities\\.jsonl:3: field "${field}" is ${max + 1} bytes .* ${max}$`),
    );
    // one byte less loads
    const fits = { ...o, [field]: value.slice(0, -1) };
    const graph = await loadGraph(await writeCase(`${JSON.stringify(fits)}\n`));
    assert.is(graph.entityCount, 1);
  }
  const fp = "x".repeat(129);
  await assertLoadFails(BASE_ENTITIES, `${statement("a", "p", "b", fp)}\n`, "INVALID_DATA", "statements.jsonl:1");
});

test("code quality: loadGraph refuses an empty cursor secret before reading anything", async () => {
  // The entities file's first line is bad: an error about it would mean the file was read first.
  const paths = await writeCase(`{oops\n${BASE_ENTITIES}`);
  const e = await loadGraph({ ...paths, cursorSecret: "" }).then(
    () => assert.unreachable("loaded"),
    (x: unknown) => x,
  );
  assert.instance(e, QuiverError);
  assert.is((e as QuiverError).code, "INVALID_PARAMETER");
  assert.is((e as QuiverError).parameter, "cursorSecret");
  const budget = await loadGraph({ ...paths, cacheBytes: -1 }).then(
    () => assert.unreachable("loaded"),
    (x: unknown) => x,
  );
  assert.is((budget as QuiverError).parameter, "cacheBytes");
});

test("`-` reads stdin (named stdin in errors and progress, with no known size)", async () => {
  const paths = await writeCase(BASE_ENTITIES, "");
  const statements = `${statement("a", "p", "b")}\n${statement("b", "p", "a")}\n`;
  const reports: LoadProgress[] = [];
  const graph = await loadGraph({
    entities: paths.entities,
    statements: "-",
    stdin: Readable.from([Buffer.from(statements)]),
    onProgress: (p) => reports.push(p),
  });
  assert.is(graph.statementCount, 2);
  const last = reports.filter((p) => p.phase === "statements").pop();
  assert.ok(last !== undefined && "totalBytes" in last);
  assert.equal(
    [last.file, last.lines, last.bytes, last.totalBytes],
    ["stdin", 2, Buffer.byteLength(statements), undefined],
  );
  // a bad line names stdin
  const error = await loadGraph({
    entities: "-",
    statements: paths.statements,
    stdin: Readable.from([Buffer.from(`${entity("a")}\n{oops}\n`)]),
  }).then(
    () => assert.unreachable("loaded"),
    (x: unknown) => x,
  );
  assert.match((error as Error).message, /^stdin:2: not valid JSON/);
  // both from stdin cannot be
  const both = await loadGraph({ entities: "-", statements: "-", stdin: Readable.from([]) }).then(
    () => assert.unreachable("loaded"),
    (x: unknown) => x,
  );
  assert.is((both as QuiverError).code, "INVALID_PARAMETER");
});

test("a .gz file is read compressed, progress in compressed bytes; bad gzip is a bad line", async () => {
  const dir = join(root, String(++caseNumber));
  await mkdir(dir);
  const entities = join(dir, "entities.jsonl.gz");
  const statements = join(dir, "statements.jsonl.gz");
  const text = "\uFEFF" + BASE_ENTITIES.replace(/\n/g, "\r\n");
  await writeFile(entities, gzipSync(text));
  await writeFile(statements, gzipSync(`${statement("a", "p", "b")}\n`));
  for (const chunkBytes of [1, 7, 1 << 20]) {
    const builder = new GraphBuilder();
    const reports: ReadProgress[] = [];
    const r = await loadJsonLinesFile(entities, "entities", builder, {
      chunkBytes,
      onProgress: (p) => reports.push(p),
    });
    await loadJsonLinesFile(statements, "statements", builder, { chunkBytes });
    assert.equal([r.lines, r.items, r.bytes], [3, 3, gzipSync(text).length], `chunkBytes ${chunkBytes}`);
    const last = reports.pop();
    assert.ok(
      last !== undefined && last.bytes === last.totalBytes,
      `chunkBytes ${chunkBytes}: ${JSON.stringify(last)}`,
    );
    const graph = builder.build();
    assert.is(graph.search({ q: "Albrecht Dürer" }).items[0]?.entityId, "a");
    assert.is(graph.statementCount, 1);
  }
  // not gzip at all, and a truncated stream: INVALID_DATA naming the file
  await writeFile(statements, BASE_ENTITIES);
  const notGzip = await loadError({ entities, statements });
  assert.is((notGzip as QuiverError).code, "INVALID_DATA");
  assert.match((notGzip as Error).message, /statements\.jsonl\.gz:1: not valid gzip data/);
  const whole = gzipSync(`${statement("a", "p", "b")}\n`.repeat(1000));
  await writeFile(statements, whole.subarray(0, whole.length - 20));
  const truncated = await loadError({ entities, statements });
  assert.is((truncated as QuiverError).code, "INVALID_DATA", String(truncated));
  assert.match((truncated as Error).message, /statements\.jsonl\.gz:\d+: not valid gzip data/);
});

// ---------------------------------------------------------------------------------------------
// the optional score, and the fold option

test("an entity's score flows from the file to order=score; a bad one names file, line, field and reason", async () => {
  const scored = (id: string, raw: string, score: unknown) =>
    JSON.stringify({ entityId: id, rawIdentifier: raw, type: "0", sourceType: "t", score });
  const good = [scored("low", "Paris b", 0), scored("high", "Paris c", 4294967295), entity("none", "Paris a")];
  const paths = await writeCase(`${good.join("\n")}\n`, `${statement("none", "none", "low")}\n`);
  const graph = await loadGraph(paths);
  // Scores: high 2^32 - 1 (given), none 1 (its statement, counted once), low 0 (given: a statement
  // names it, but the input's score wins).
  assert.equal(
    graph.search({ q: "paris", order: "score" }).items.map((e) => e.entityId),
    ["high", "none", "low"],
  );
  assert.equal(
    graph.search({ q: "paris" }).items.map((e) => e.entityId),
    ["none", "low", "high"],
  );
  for (const bad of [-1, 1.5, 4294967296, "7", null, true, [1], { n: 1 }, 1e300]) {
    const lines = `${entity("a")}\n\n${scored("b", "B", bad)}\n${scored("c", "C", "also bad")}\n`;
    const error = await loadError(await writeCase(lines));
    assert.instance(error, QuiverError);
    const e = error as QuiverError;
    assert.is(e.code, "INVALID_DATA", e.message);
    assert.match(e.message, /entities\.jsonl:3: /, `the first bad line, by number: ${e.message}`);
    assert.match(e.message, /"score"/, `the field: ${e.message}`);
    assert.match(e.message, /whole number from 0 to 4294967295/, `the reason: ${e.message}`);
    assert.equal(e.source?.line, 3);
  }
});

test("loadGraph's fold option reaches the graph; an unknown one is refused before reading", async () => {
  const paths = await writeCase(`${entity("z", "Zürich")}\n${entity("m", "Malmö")}\n`);
  const folded = await loadGraph({ ...paths, fold: "accents" });
  assert.is(folded.fold, "accents");
  assert.equal(
    folded.search({ q: "zurich" }).items.map((e) => e.entityId),
    ["z"],
  );
  const kept = await loadGraph(paths);
  assert.is(kept.fold, "case");
  assert.equal(kept.search({ q: "zurich" }).items, []);
  const error = await loadGraph({ entities: "/nonexistent", statements: "/nonexistent", fold: "ascii" as never }).then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.instance(error, QuiverError);
  assert.is((error as QuiverError).code, "INVALID_PARAMETER", "the option, not the missing file");
});
test.run();
