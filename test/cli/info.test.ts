/**
 * `quiver info`: what the snapshot of the demo graph holds, as a person reads it and as JSON; the
 * sizes add up to the file; --verify passes on a sound file and fails (exit 1) on a damaged one;
 * a file that is not a snapshot, or is missing, is named.
 */

import { readFile, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { loadGraph, SNAPSHOT_FORMAT_VERSION } from "../../src/index.js";
import { VERSION } from "../../src/cli/version.js";
import { quiverRun, tempFiles } from "../support/cli.js";

const FIXTURES = join(process.cwd(), "fixtures");
const ENTITIES = join(FIXTURES, "entities.jsonl");
const STATEMENTS = join(FIXTURES, "statements.jsonl");

let snapshot = "";
let builtFrom = 0;
let builtTo = 0;

test.before(async () => {
  const files = await tempFiles({ ".keep": "" });
  snapshot = join(files[".keep"]!, "..", "demo.snap");
  builtFrom = Date.now();
  const built = await quiverRun(["build", "--entities", ENTITIES, "--statements", STATEMENTS, "--out", snapshot]);
  builtTo = Date.now();
  assert.is(built.code, 0, built.stderr);
});

test("the description: format, counts, content tag, checksum, build time and writer, bytes per structure", async () => {
  const run = await quiverRun(["info", snapshot]);
  assert.is(run.code, 0, run.stderr);
  const demo = await loadGraph({ entities: ENTITIES, statements: STATEMENTS });
  const text = run.stdout;
  assert.ok(text.startsWith(`${snapshot}\n`));
  assert.match(text, new RegExp(`^  format +${SNAPSHOT_FORMAT_VERSION}$`, "m"));
  assert.match(text, /^ {2}entities +573$/m);
  assert.match(text, /^ {2}statements +566$/m);
  assert.match(text, new RegExp(`^  content tag +${demo.stats().contentTag}$`, "m"));
  assert.match(text, /^ {2}checksum +[0-9a-f]{8} CRC-32 \(not verified: --verify\)$/m);
  assert.match(text, new RegExp(`^  built +\\S+Z by quiver ${VERSION.replace(/\./g, "\\.")}$`, "m"));
  for (const structure of ["header and table", "entities", "search", "statements"]) {
    assert.match(text, new RegExp(`^ {4}${structure} +[0-9,]+$`, "m"));
  }
});

test("--json: everything, and the sizes add up to the file (but for alignment padding)", async () => {
  const run = await quiverRun(["info", snapshot, "--json"]);
  assert.is(run.code, 0, run.stderr);
  const info = JSON.parse(run.stdout);
  assert.is(info.formatVersion, SNAPSHOT_FORMAT_VERSION);
  assert.equal([info.entities, info.statements], [573, 566]);
  assert.is(info.checksumMatches, null);
  const built = Date.parse(info.builtAt);
  assert.ok(built >= builtFrom - 1000 && built <= builtTo + 1000, info.builtAt);
  const fileBytes = (await stat(snapshot)).size;
  assert.is(info.fileBytes, fileBytes);
  const structures = info.structures.reduce((sum: number, s: { bytes: number }) => sum + s.bytes, 0);
  const sections = info.sections.reduce((sum: number, s: { bytes: number }) => sum + s.bytes, 0);
  assert.is(structures, sections);
  assert.ok(info.headerBytes + sections <= fileBytes);
  assert.ok(fileBytes - (info.headerBytes + sections) < 8 * info.sections.length, "only alignment padding between");
  const bySection = await quiverRun(["info", snapshot, "--sections"]);
  for (const s of info.sections) assert.ok(bySection.stdout.includes(`    ${s.name}`), s.name);
});

test("--verify: a sound file passes; a damaged one is described but exits 1", async () => {
  const sound = await quiverRun(["info", snapshot, "--verify"]);
  assert.is(sound.code, 0, sound.stderr);
  assert.match(sound.stdout, /CRC-32 \(verified\)/);
  const bytes = await readFile(snapshot);
  const damaged = `${snapshot}.damaged`;
  const at = bytes.length - 100;
  bytes[at] = bytes[at]! ^ 0xff;
  await writeFile(damaged, bytes);
  const run = await quiverRun(["info", damaged, "--verify"]);
  assert.is(run.code, 1);
  assert.match(run.stdout, /CRC-32 \(DOES NOT MATCH\)/);
  assert.is(run.stderr, `quiver info: ${damaged}: the checksum does not match its content; the file is damaged\n`);
});

test("not a snapshot, missing, no argument", async () => {
  const foreign = await quiverRun(["info", join(FIXTURES, "README.md")]);
  assert.is(foreign.code, 1);
  assert.ok(foreign.stderr.startsWith(`quiver info: ${join(FIXTURES, "README.md")}: `), foreign.stderr);
  const missing = await quiverRun(["info", `${snapshot}.missing`]);
  assert.is(missing.code, 1);
  assert.is(missing.stderr, `quiver info: SNAPSHOT ${snapshot}.missing: no such file or folder\n`);
  const none = await quiverRun(["info"]);
  assert.is(none.code, 2);
});

test.run();
