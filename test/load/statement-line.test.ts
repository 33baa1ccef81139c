/**
 * Statement line fast path tests
 * ==============================
 * src/load/statement-line.ts: which lines it reads (the common shape, ASCII, no escapes) and which
 * it leaves to the general path; and that the two paths give the same outcome, good or bad: every
 * case is loaded once as the common shape and once with a space after each colon (which only the
 * general path reads), and the graphs or the error messages must be the same.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";

import { loadGraph } from "../../src/load/jsonl.js";
import { readStatementLine } from "../../src/load/statement-line.js";

const read = (line: string) => {
  const bytes = Buffer.from(line, "utf8");
  return readStatementLine(bytes, 0, bytes.length);
};

test("reads the common shape, with and without a fingerprint", () => {
  assert.equal(read('{"subjectEntityId":"Q1","predicateEntityId":"P31","objectEntityId":"Q5"}'), [
    "Q1",
    "P31",
    "Q5",
    undefined,
  ]);
  assert.equal(
    read('{"subjectEntityId":"a b","predicateEntityId":"p","objectEntityId":"~","statementFingerprint":"x"}'),
    ["a b", "p", "~", "x"],
  );
  // Empty strings are read: the builder rejects them, with the general path's message (below).
  assert.equal(read('{"subjectEntityId":"","predicateEntityId":"","objectEntityId":""}'), ["", "", "", undefined]);
});

test("reads only bytes [start, end) of the buffer", () => {
  const bytes = Buffer.from('xx{"subjectEntityId":"s","predicateEntityId":"p","objectEntityId":"o"}yy');
  assert.equal(readStatementLine(bytes, 2, bytes.length - 2), ["s", "p", "o", undefined]);
  assert.is(readStatementLine(bytes, 0, bytes.length), null);
});

test("leaves every other line to the general path", () => {
  for (const line of [
    '{"subjectEntityId": "s","predicateEntityId":"p","objectEntityId":"o"}', // whitespace
    ' {"subjectEntityId":"s","predicateEntityId":"p","objectEntityId":"o"}',
    '{"predicateEntityId":"p","subjectEntityId":"s","objectEntityId":"o"}', // key order
    '{"subjectEntityId":"s","predicateEntityId":"p","objectEntityId":"o","extra":"x"}',
    '{"subjectEntityId":"s","predicateEntityId":"p","objectEntityId":"o","statementFingerprint":1}',
    '{"subjectEntityId":"s","subjectEntityId":"t","predicateEntityId":"p","objectEntityId":"o"}',
    '{"subjectEntityId":"s\\u0041","predicateEntityId":"p","objectEntityId":"o"}', // an escape
    '{"subjectEntityId":"s\\"","predicateEntityId":"p","objectEntityId":"o"}',
    '{"subjectEntityId":"Dürer","predicateEntityId":"p","objectEntityId":"o"}', // non-ASCII
    '{"subjectEntityId":"s\u00ff","predicateEntityId":"p","objectEntityId":"o"}',
    '{"subjectEntityId":"s\tx","predicateEntityId":"p","objectEntityId":"o"}', // a control character
    '{"subjectEntityId":"s","predicateEntityId":"p","objectEntityId":"o"}x',
    '{"subjectEntityId":"s","predicateEntityId":"p"}',
    "",
  ]) {
    assert.is(read(line), null, line);
  }
  // Bytes that are not UTF-8 (a lone 0xff) are never read as Latin-1 text.
  const bad = Buffer.from('{"subjectEntityId":"s?","predicateEntityId":"p","objectEntityId":"o"}');
  bad[bad.indexOf(0x3f)] = 0xff;
  assert.is(readStatementLine(bad, 0, bad.length), null);
});

let root = "";
let caseNumber = 0;
test.before(async () => {
  root = await mkdtemp(join(tmpdir(), "quiver-statement-line-"));
});
test.after(async () => {
  await rm(root, { recursive: true, force: true });
});

const ENTITIES = ["a", "b", "p", "q"]
  .map((id) => JSON.stringify({ entityId: id, rawIdentifier: `name ${id}`, type: "0", sourceType: "t" }))
  .join("\n");

/** A statement line in the common shape. */
const common = (s: string, p: string, o: string, fp?: string): string =>
  `{"subjectEntityId":"${s}","predicateEntityId":"${p}","objectEntityId":"${o}"` +
  (fp === undefined ? "}" : `,"statementFingerprint":"${fp}"}`);
/** The same line as the general path must read it (a space after each colon). */
const spaced = (line: string): string => line.replaceAll('":"', '": "');

/** The graph's statements, or the error message, of loading `lines`. */
async function outcome(lines: readonly string[]): Promise<string> {
  const dir = join(root, String(++caseNumber));
  const paths = { entities: `${dir}-entities.jsonl`, statements: `${dir}-statements.jsonl` };
  await writeFile(paths.entities, ENTITIES);
  await writeFile(paths.statements, lines.join("\n"));
  try {
    const graph = await loadGraph(paths);
    return JSON.stringify([...graph.exportStatements()]);
  } catch (e) {
    // The file name differs between the two loads; the rest of the message must not.
    return `error: ${(e as Error).message.replaceAll(paths.statements, "statements.jsonl")}`;
  }
}

test("both paths give the same graph or the same first error", async () => {
  const long = "f".repeat(2000);
  const cases: string[][] = [
    [common("a", "p", "b"), common("b", "q", "a", "fp1"), common("a", "p", "b")],
    [common("a", "p", "b", "0123456789abcdef"), common("a", "p", "b", "0123456789abcdef")],
    [common("a", "p", "b"), common("", "p", "b")],
    [common("a", "", "b")],
    [common("a", "p", "")],
    [common("a", "p", "b", "")],
    [common("a", "p", "b", long)],
    [common("a", "p", "zz")],
    [common("zz", "p", "b", "")],
    [common("a", "p", "b", "same"), common("b", "p", "a", "same")],
    [common("a", "p", "b", "0123456789abcdef"), common("b", "p", "a", "0123456789abcdef")],
  ];
  for (const lines of cases) {
    const fast = await outcome(lines);
    const general = await outcome(lines.map(spaced));
    assert.is(fast, general, lines.join("\n"));
  }
  // And the cases did reach both kinds of outcome.
  assert.ok((await outcome(cases[0]!)).startsWith("["));
  assert.ok((await outcome(cases[2]!)).includes(':2: field "subjectEntityId" must not be empty'));
});

test.run();
