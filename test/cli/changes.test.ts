/**
 * The change log from the command line and from serving processes
 * ===============================================================
 * `quiver apply` (a batch appended as the writer; a bad batch refused naming the line, the log as
 * before; refused while a server holds the log, naming its pid), `quiver info --changes`,
 * `quiver compact` (base + log -> a snapshot equal to the live content), and `quiver serve --changes`
 * (replays the log before listening) with a `--follow` replica: no changes path (404), and the same
 * ETag for the same query within 1 s of a batch's 200.
 */

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { openSnapshot } from "../../src/index.js";
import { post, request } from "../support/http.js";
import { eventOf, listening, quiverRun, runQuiver, stop, tempFiles } from "../support/cli.js";

const READ_KEY = "sk_read_0123456789";
const WRITE_KEY = "sk_write_0123456789";
const SECRET = "0123456789abcdefghijklmnopqrstuvwxyz";
const ENTITIES = [
  { entityId: "a", rawIdentifier: "Alpha", type: "0", sourceType: "t" },
  { entityId: "b", rawIdentifier: "Beta", type: "0", sourceType: "t" },
  { entityId: "p", rawIdentifier: "relatesTo", type: "1", sourceType: "t" },
];
const STATEMENTS = [{ subjectEntityId: "a", predicateEntityId: "p", objectEntityId: "b" }];
const BATCH_1 =
  '{"op":"put","entity":{"entityId":"c","rawIdentifier":"Alphabet","type":"2","sourceType":"t"}}\n' +
  '{"op":"put","statement":{"subjectEntityId":"c","predicateEntityId":"p","objectEntityId":"a"}}\n';
const ENV = { QUIVER_API_KEYS: READ_KEY, QUIVER_WRITE_KEYS: WRITE_KEY, QUIVER_CURSOR_SECRET: SECRET };

async function base(): Promise<{ entities: string; statements: string; dir: string; batch: string; bad: string }> {
  const files = await tempFiles({
    "entities.jsonl": ENTITIES.map((e) => JSON.stringify(e)).join("\n") + "\n",
    "statements.jsonl": STATEMENTS.map((s) => JSON.stringify(s)).join("\n") + "\n",
    "batch.jsonl": BATCH_1,
    "bad.jsonl": '{"op":"put","statement":{"subjectEntityId":"zz","predicateEntityId":"p","objectEntityId":"a"}}\n',
  });
  return {
    entities: files["entities.jsonl"]!,
    statements: files["statements.jsonl"]!,
    batch: files["batch.jsonl"]!,
    bad: files["bad.jsonl"]!,
    dir: mkdtempSync(join(tmpdir(), "quiver-cli-changes-")),
  };
}

test("apply: a batch file that is not valid UTF-8 is refused naming the line, the log as it was (regression: the bytes became U+FFFD and the batch applied)", async () => {
  const b = await base();
  const source = ["--entities", b.entities, "--statements", b.statements];
  try {
    const file = join(b.dir, "..", `not-utf8-${process.pid}.jsonl`);
    writeFileSync(
      file,
      Buffer.concat([
        Buffer.from(BATCH_1.split("\n")[0] + "\n" + '{"op":"put","entity":{"entityId":"d","rawIdentifier":"D'),
        Buffer.from([0xe2, 0x82]),
        Buffer.from('","type":"2","sourceType":"t"}}\n'),
      ]),
    );
    try {
      const bad = await quiverRun(["apply", ...source, "--changes", b.dir, file]);
      assert.is(bad.code, 1, bad.stderr);
      assert.match(bad.stderr, /line 2: not valid UTF-8/);
      assert.equal(
        readdirSync(b.dir).filter((n) => n.endsWith(".batch")),
        [],
      );
    } finally {
      rmSync(file, { force: true });
    }
  } finally {
    rmSync(b.dir, { recursive: true, force: true });
  }
});

test("paths first: a missing batch file, log folder or --out folder is named at once, before the base is loaded", async () => {
  const b = await base();
  const source = ["--entities", b.entities, "--statements", b.statements];
  const missing = join(b.dir, "no-such-log");
  try {
    const apply = await quiverRun(["apply", ...source, "--changes", b.dir, join(b.dir, "no-such-batch.jsonl")]);
    assert.is(apply.code, 1, apply.stderr);
    assert.match(apply.stderr, /^quiver apply: FILE .*no-such-batch\.jsonl: no such file or folder\n/);
    // A log folder that is not there is a typo here, not an empty log (regression: exit 0, the base copied).
    const compact = await quiverRun(["compact", ...source, "--changes", missing, "--out", join(b.dir, "c.qvr")]);
    assert.is(compact.code, 1, compact.stderr);
    assert.match(compact.stderr, /^quiver compact: --changes .*no-such-log: no such file or folder\n/);
    const info = await quiverRun(["info", "--changes", missing]);
    assert.is(info.code, 1, info.stderr);
    assert.match(info.stderr, /^quiver info: --changes .*no-such-log: no such file or folder\n/);
    // Regression: the base was loaded and compacted first, then "ENOENT: ... open '<out>.<pid>.<random>.tmp'".
    const out = await quiverRun(["compact", ...source, "--changes", b.dir, "--out", join(missing, "c.qvr")]);
    assert.is(out.code, 1, out.stderr);
    assert.match(out.stderr, /^quiver compact: --out .*c\.qvr: the folder .*no-such-log does not exist\n/);
    assert.not.match(out.stderr + compact.stderr + apply.stderr, /ENOENT|reading entities/);
  } finally {
    rmSync(b.dir, { recursive: true, force: true });
  }
});

test("apply appends a batch; a refused batch leaves the log as it was; info --changes; compact gives the live content", async () => {
  const b = await base();
  const source = ["--entities", b.entities, "--statements", b.statements];
  try {
    const ok = await quiverRun(["apply", ...source, "--changes", b.dir, b.batch]);
    assert.is(ok.code, 0, ok.stderr);
    assert.equal(JSON.parse(ok.stdout), {
      sequence: 1,
      entities: { put: 1, deleted: 0 },
      statements: { put: 1, deleted: 0 },
    });
    const bad = await quiverRun(["apply", ...source, "--changes", b.dir, b.bad]);
    assert.is(bad.code, 1);
    assert.match(bad.stderr, /line 1/);
    const info = await quiverRun(["info", "--changes", b.dir, "--json"]);
    assert.is(info.code, 0, info.stderr);
    const parsed = JSON.parse(info.stdout);
    assert.is(parsed.last, 1);
    assert.is(parsed.sequence, 1, "the sequence, named as the text names it");
    assert.is(parsed.lockedBy, null, "no writer holds the log");
    assert.is(parsed.torn, null);
    assert.is(parsed.batches, 1);
    assert.ok(parsed.bytes > BATCH_1.length);
    const text = await quiverRun(["info", "--changes", b.dir]);
    assert.match(text.stdout, /sequence {5}1\n/);
    const usage = await quiverRun(["apply", "--changes", b.dir, b.batch]);
    assert.is(usage.code, 2);
    const out = join(b.dir, "..", `compacted-${process.pid}.qvr`);
    const compact = await quiverRun(["compact", ...source, "--changes", b.dir, "--out", out]);
    assert.is(compact.code, 0, compact.stderr);
    const graph = await openSnapshot(out);
    assert.is(graph.entityCount, 4);
    assert.is(graph.statementCount, 2);
    assert.is(graph.getEntity("c")?.rawIdentifier, "Alphabet");
    assert.is(graph.statements({ subjectEntityId: "c" }).items.length, 1);
    rmSync(out, { force: true });
    assert.ok(!readdirSync(join(b.dir, "..")).some((n) => n.includes(`compacted-${process.pid}.qvr.`)));
  } finally {
    rmSync(b.dir, { recursive: true, force: true });
  }
});

test("serve --changes replays the log before listening and holds it (apply refuses naming the pid); a --follow replica converges within 1 s", async () => {
  const b = await base();
  const source = ["--entities", b.entities, "--statements", b.statements, "--port", "0", "--quiet", "--no-ui"];
  const first = await quiverRun(["apply", ...source.slice(0, 4), "--changes", b.dir, b.batch]);
  assert.is(first.code, 0, first.stderr);
  const writer = runQuiver(["serve", ...source, "--changes", b.dir], ENV);
  let follower: ReturnType<typeof runQuiver> | undefined;
  try {
    const wport = Number(new URL(await listening(writer)).port);
    const replayed = await request(wport, "/graph/v1/entities/c", { key: READ_KEY });
    assert.is(replayed.status, 200);
    assert.is(replayed.headers["x-quiver-sequence"], "1");
    const locked = await quiverRun(["apply", ...source.slice(0, 4), "--changes", b.dir, b.batch]);
    assert.is(locked.code, 1);
    assert.match(locked.stderr, new RegExp(`process ${writer.process.pid}`));

    follower = runQuiver(["serve", ...source, "--follow", b.dir], ENV);
    const fport = Number(new URL(await listening(follower)).port);
    const noPath = await post(fport, "/graph/v1/changes", BATCH_1, { key: WRITE_KEY });
    assert.is(noPath.status, 404);

    const query = "/graph/v1/search?q=alph&limit=10";
    for (let i = 0; i < 3; i++) {
      const line = `{"op":"put","entity":{"entityId":"n${i}","rawIdentifier":"Alphanumeric ${i}","type":"0","sourceType":"t"}}`;
      const r = await post(wport, "/graph/v1/changes", line, { key: WRITE_KEY });
      assert.is(r.status, 200, r.body);
      const answered = Date.now();
      const mine = await request(wport, query, { key: READ_KEY });
      assert.is(mine.headers["x-quiver-sequence"], String(2 + i));
      let theirs = await request(fport, query, { key: READ_KEY });
      while (theirs.headers.etag !== mine.headers.etag && Date.now() - answered < 1000) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        theirs = await request(fport, query, { key: READ_KEY });
      }
      assert.is(theirs.headers.etag, mine.headers.etag, `batch ${2 + i}: the replica's tag within 1 s`);
      assert.is(theirs.body, mine.body);
      assert.is(theirs.headers["x-quiver-sequence"], String(2 + i));
    }
  } finally {
    if (follower !== undefined) await stop(follower);
    assert.is(await stop(writer), 0);
    rmSync(b.dir, { recursive: true, force: true });
  }
});

test("compact's snapshot records its batch: served with the same log it replays only the later batches (the same answers), and apply numbers on", async () => {
  const b = await base();
  const source = ["--entities", b.entities, "--statements", b.statements];
  const serving = ["--port", "0", "--quiet", "--no-ui"];
  const out = join(b.dir, "..", `compacted-seq-${process.pid}.qvr`);
  // Batch 2 takes fingerprint "f" from the statement batch 1 gave it: replayed over the compacted
  // content (where the other statement holds "f"), batch 1 would be a conflict.
  const batches = [
    '{"op":"put","statement":{"subjectEntityId":"a","predicateEntityId":"p","objectEntityId":"a","statementFingerprint":"f"}}',
    '{"op":"delete","statementFingerprint":"f"}\n{"op":"put","statement":{"subjectEntityId":"b","predicateEntityId":"p","objectEntityId":"b","statementFingerprint":"f"}}',
  ];
  const files = await tempFiles({ "1.jsonl": batches[0]!, "2.jsonl": batches[1]!, "3.jsonl": BATCH_1 });
  let writer: ReturnType<typeof runQuiver> | undefined;
  let original: ReturnType<typeof runQuiver> | undefined;
  try {
    for (const name of ["1.jsonl", "2.jsonl"]) {
      const r = await quiverRun(["apply", ...source, "--changes", b.dir, files[name]!]);
      assert.is(r.code, 0, r.stderr);
    }
    const compact = await quiverRun(["compact", ...source, "--changes", b.dir, "--out", out]);
    assert.is(compact.code, 0, compact.stderr);
    assert.match(compact.stderr, /batches up to 2 .*takes the batches after 2/);
    const info = await quiverRun(["info", out]);
    assert.match(info.stdout, /sequence {5}2 \(change batches 1 to 2 are in it\)\n/);
    const third = await quiverRun(["apply", "--snapshot", out, "--changes", b.dir, files["3.jsonl"]!]);
    assert.is(third.code, 0, third.stderr);
    assert.is(JSON.parse(third.stdout).sequence, 3);

    writer = runQuiver(["serve", "--snapshot", out, ...serving, "--changes", b.dir], ENV);
    const port = Number(new URL(await listening(writer)).port);
    original = runQuiver(["serve", ...source, ...serving, "--follow", b.dir], ENV);
    const oport = Number(new URL(await listening(original)).port);
    const query = "/graph/v1/statements?limit=10";
    const mine = await request(port, query, { key: READ_KEY });
    assert.is(mine.headers["x-quiver-sequence"], "3");
    const theirs = await request(oport, query, { key: READ_KEY });
    assert.is(theirs.headers["x-quiver-sequence"], "3");
    assert.is(mine.body, theirs.body);
    // One content; the tags differ, as a page's cursor may (each names a place in its own base).
    assert.is.not(mine.headers.etag, theirs.headers.etag);
    const r = await post(port, "/graph/v1/changes", '{"op":"delete","entityId":"c","cascade":true}', {
      key: WRITE_KEY,
    });
    assert.is(r.status, 200, r.body);
    assert.is(JSON.parse(r.body).sequence, 4);
  } finally {
    if (original !== undefined) await stop(original);
    if (writer !== undefined) assert.is(await stop(writer), 0);
    rmSync(out, { force: true });
    rmSync(b.dir, { recursive: true, force: true });
  }
});

test("serve --changes with a bad QUIVER_WRITE_KEYS stops before loading, naming the variable (regression: reported after the load as a change log that could not be opened)", async () => {
  const b = await base();
  try {
    const source = ["--entities", b.entities, "--statements", b.statements, "--port", "0", "--quiet", "--no-ui"];
    const run = await quiverRun(["serve", ...source, "--changes", b.dir], { ...ENV, QUIVER_WRITE_KEYS: "not-a-key" });
    assert.is(run.code, 2, run.stderr);
    assert.match(run.stderr, /QUIVER_WRITE_KEYS, key 1 of 1: an API key must start with "sk_"/);
    assert.not.match(run.stderr, /change log/);
    assert.not.match(run.stdout, /"startup"/, "nothing loaded");
  } finally {
    rmSync(b.dir, { recursive: true, force: true });
  }
});

test("serve refuses a second writer on a held log, naming the holder", async () => {
  const b = await base();
  const source = ["--entities", b.entities, "--statements", b.statements, "--port", "0", "--quiet", "--no-ui"];
  const writer = runQuiver(["serve", ...source, "--changes", b.dir], ENV);
  try {
    await listening(writer);
    const second = await quiverRun(["serve", ...source, "--changes", b.dir], ENV);
    assert.is(second.code, 1);
    assert.match(second.stderr, new RegExp(`held by process ${writer.process.pid}`));
    const both = await quiverRun(["serve", ...source, "--changes", b.dir, "--follow", b.dir], ENV);
    assert.is(both.code, 2);
  } finally {
    await stop(writer);
    rmSync(b.dir, { recursive: true, force: true });
  }
});

for (const from of ["JSON Lines", "a snapshot"] as const)
  test(`serve --changes --compact-after from ${from}: the delta is compacted in the background while serving; the answers stay, writes go on`, async () => {
    const b = await base();
    // Each branch: the worker loads the JSON Lines again, or opens the snapshot from the head the server holds (shared).
    let input = ["--entities", b.entities, "--statements", b.statements];
    if (from === "a snapshot") {
      const snapshot = `${b.dir}.qvr`;
      const built = await quiverRun(["build", ...input, "--out", snapshot, "--quiet"]);
      assert.is(built.code, 0, built.stderr);
      input = ["--snapshot", snapshot];
    }
    const source = [...input, "--port", "0", "--no-ui"];
    const writer = runQuiver(["serve", ...source, "--changes", b.dir, "--compact-after", "3"], {
      ...ENV,
      QUIVER_API_KEYS: READ_KEY,
    });
    try {
      const port = Number(new URL(await listening(writer)).port);
      const r = await post(port, "/graph/v1/changes", BATCH_1, { key: WRITE_KEY });
      assert.is(r.status, 200, r.body);
      const query = "/graph/v1/search?q=alph&limit=10";
      const before = await request(port, query, { key: READ_KEY });
      const more = await post(port, "/graph/v1/changes", '{"op":"delete","entityId":"b","cascade":true}', {
        key: WRITE_KEY,
      });
      assert.is(more.status, 200, more.body);
      // Sequence 2, most likely still base + delta (the compaction has just started in its worker).
      const atTwo = await request(port, query, { key: READ_KEY });
      const compacted = await eventOf(writer, "compacted", 60_000);
      assert.ok(compacted !== undefined, writer.stderr());
      assert.is(compacted.sequence, 2);
      const after = await request(port, "/graph/v1/statements?limit=10", { key: READ_KEY });
      assert.is(JSON.parse(after.body).items.length, 1);
      const search = await request(port, query, { key: READ_KEY });
      assert.is(search.headers["x-quiver-sequence"], "2");
      assert.is(JSON.parse(search.body).items.length, JSON.parse(before.body).items.length);
      // One content, the same items before and after the swap (the tag names the base too).
      assert.is(search.body, atTwo.body);
      const third = await post(port, "/graph/v1/changes", '{"op":"delete","entityId":"c","cascade":true}', {
        key: WRITE_KEY,
      });
      assert.is(JSON.parse(third.body).sequence, 3);
      const gone = await request(port, "/graph/v1/entities/c", { key: READ_KEY });
      assert.is(gone.status, 404);
    } finally {
      assert.is(await stop(writer), 0);
      rmSync(b.dir, { recursive: true, force: true });
      rmSync(`${b.dir}.qvr`, { force: true });
    }
  });

test.run();
