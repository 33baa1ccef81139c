/**
 * Changes with --workers
 * ======================
 * `quiver serve --workers 2 --changes DIR`: a POST that lands on any worker is applied once (the
 * primary is the log's one writer) and every worker answers with it right after the 200: the same
 * query on fresh connections (both workers answer; the request log names their pids) gives the same
 * ETag and X-Quiver-Sequence after each batch. A refused batch keeps its code across the hop (409).
 * `--workers 2 --follow DIR`: every worker follows, reaching the writer's tag within 1 s.
 */

import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { post, request, type Reply } from "../support/http.js";
import { eventOf, events, listening, quiverRun, runQuiver, stop, tempFiles } from "../support/cli.js";

const READ_KEY = "sk_read_0123456789";
const WRITE_KEY = "sk_write_0123456789";
const SECRET = "0123456789abcdefghijklmnopqrstuvwxyz";
const ENV = { QUIVER_API_KEYS: READ_KEY, QUIVER_WRITE_KEYS: WRITE_KEY, QUIVER_CURSOR_SECRET: SECRET };
const QUERY = "/graph/v1/search?q=alph&limit=50";
/** Fresh connections per check: enough that both workers answer some. */
const READS = 10;

const entityLine = (id: string, name: string): string =>
  JSON.stringify({ op: "put", entity: { entityId: id, rawIdentifier: name, type: "0", sourceType: "t" } });

/** The pids that answered requests, from the request log lines (`{"pid","id","path",...}`). */
function answeringPids(stdout: string): Set<number> {
  const pids = new Set<number>();
  for (const line of stdout.split("\n"))
    if (line.startsWith("{")) {
      const parsed = JSON.parse(line);
      if (parsed.path === "/graph/v1/search" && parsed.status === 200) pids.add(parsed.pid);
    }
  return pids;
}

/**
 * A graph of two entities (a "Alpha", b "Beta") and no statements as JSON Lines files (`entities`,
 * the entities file's path; `source`, the serve options naming both), and an empty folder for a
 * change log (`dir`, named after `what`).
 */
async function alphaBeta(what: string): Promise<{ entities: string; source: string[]; dir: string }> {
  const files = await tempFiles({
    "entities.jsonl": [entityLine("a", "Alpha"), entityLine("b", "Beta")]
      .map((l) => JSON.stringify(JSON.parse(l).entity))
      .join("\n"),
    "statements.jsonl": "",
  });
  const entities = files["entities.jsonl"]!;
  return {
    entities,
    source: ["--entities", entities, "--statements", files["statements.jsonl"]!],
    dir: mkdtempSync(join(tmpdir(), `quiver-cli-changes-${what}-`)),
  };
}

async function reads(port: number): Promise<Reply[]> {
  const out: Reply[] = [];
  for (let i = 0; i < READS; i++) out.push(await request(port, QUERY, { key: READ_KEY }));
  return out;
}

test("--workers 2 --changes: a batch posted to any worker is in every worker's answers right after its 200; --workers 2 --follow converges", async () => {
  const { source, dir } = await alphaBeta("workers");
  const common = [...source, "--port", "0", "--no-ui", "--workers", "2"];
  const writer = runQuiver(["serve", ...common, "--changes", dir], ENV);
  let follower: ReturnType<typeof runQuiver> | undefined;
  try {
    const port = Number(new URL(await listening(writer, 30000)).port);
    const batches = 6;
    for (let n = 1; n <= batches; n++) {
      const r = await post(port, "/graph/v1/changes", entityLine(`n${n}`, `Alphanumeric ${n}`), { key: WRITE_KEY });
      assert.is(r.status, 200, r.body);
      assert.is(JSON.parse(r.body).sequence, n);
      const answers = await reads(port);
      const first = answers[0]!;
      assert.is(first.status, 200, first.body);
      assert.is(JSON.parse(first.body).items.length, 1 + n, `batch ${n}: Alpha and n1..n${n}`);
      for (const a of answers) {
        assert.is(a.headers["x-quiver-sequence"], String(n), `batch ${n}: every answer holds it`);
        assert.is(a.headers.etag, first.headers.etag, `batch ${n}: one tag on every worker`);
      }
    }
    assert.ok(answeringPids(writer.stdout()).size >= 2, "both workers answered reads");
    // A refused batch keeps the writer's code across the hop, and applies nothing.
    const conflict = await post(
      port,
      "/graph/v1/changes",
      JSON.stringify({ op: "put", statement: { subjectEntityId: "zz", predicateEntityId: "a", objectEntityId: "b" } }),
      { key: WRITE_KEY },
    );
    assert.is(conflict.status, 409, conflict.body);
    assert.is(JSON.parse(conflict.body).code, "CHANGE_CONFLICT");
    const read = await post(port, "/graph/v1/changes", entityLine("x", "X"), { key: READ_KEY });
    assert.is(read.status, 403);
    assert.is(readdirSync(dir).filter((n) => n.endsWith(".batch")).length, batches, "one file per batch");

    follower = runQuiver(["serve", ...common, "--follow", dir], ENV);
    const fport = Number(new URL(await listening(follower, 30000)).port);
    const last = await post(port, "/graph/v1/changes", entityLine("z", "Alphabet"), { key: WRITE_KEY });
    assert.is(last.status, 200, last.body);
    const answered = Date.now();
    const mine = (await reads(port))[0]!;
    for (;;) {
      const theirs = await reads(fport);
      if (theirs.every((t) => t.headers.etag === mine.headers.etag)) break;
      assert.ok(Date.now() - answered < 1000, "every follower worker holds the batch within 1 s");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const noPath = await post(fport, "/graph/v1/changes", entityLine("y", "Y"), { key: WRITE_KEY });
    assert.is(noPath.status, 404);
  } finally {
    if (follower !== undefined) assert.is(await stop(follower), 0);
    assert.is(await stop(writer), 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const from of ["JSON Lines", "a snapshot"] as const)
  test(`--workers 2 --changes --compact-after from ${from}: every worker swaps in the primary's compaction (its delta empties) while serving; answers and cursor walks carry on`, async () => {
    const graph = await alphaBeta("rebase");
    const dir = graph.dir;
    let source = graph.source;
    // Each branch: the primary's compaction loads the JSON Lines again, or opens the snapshot from the head it holds (shared).
    if (from === "a snapshot") {
      const built = await quiverRun(["build", ...source, "--out", `${dir}.qvr`, "--quiet"]);
      assert.is(built.code, 0, built.stderr);
      source = ["--snapshot", `${dir}.qvr`];
    }
    const writer = runQuiver(
      ["serve", ...source, "--port", "0", "--no-ui", "--workers", "2", "--changes", dir, "--compact-after", "4"],
      ENV,
    );
    try {
      const port = Number(new URL(await listening(writer, 30000)).port);
      const lines = (from: number, n: number): string =>
        Array.from({ length: n }, (_, i) => entityLine(`n${from + i}`, `Alphanumeric ${from + i}`)).join("\n");
      const first = await post(port, "/graph/v1/changes", lines(0, 2), { key: WRITE_KEY });
      assert.is(first.status, 200, first.body);
      // A walk begun on base + delta, two items a page.
      const page1 = JSON.parse((await request(port, "/graph/v1/search?q=alph&limit=2", { key: READ_KEY })).body);
      assert.is(page1.items.length, 2);
      const second = await post(port, "/graph/v1/changes", lines(2, 3), { key: WRITE_KEY });
      assert.is(second.status, 200, second.body);
      const compacted = await eventOf(writer, "compacted", 20000);
      assert.ok(compacted !== undefined, writer.stderr());
      assert.is(compacted.sequence, 2);
      for (const until = Date.now() + 20000; ; ) {
        const rebased = events(writer).filter((e) => e.event === "worker-rebased");
        if (new Set(rebased.map((e) => e.pid)).size >= 2) {
          for (const e of rebased) assert.is(e.sequence, 2);
          break;
        }
        assert.ok(Date.now() < until, `both workers rebase:\n${writer.stdout()}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.not.ok(events(writer).some((e) => e.event === "rebase-failed"));
      // Writes go on; every worker answers with each batch right after its 200, one tag on all.
      for (let n = 3; n <= 4; n++) {
        const r = await post(port, "/graph/v1/changes", lines(10 * n, 1), { key: WRITE_KEY });
        assert.is(JSON.parse(r.body).sequence, n, r.body);
        const answers = await reads(port);
        for (const a of answers) {
          assert.is(a.headers["x-quiver-sequence"], String(n));
          assert.is(a.headers.etag, answers[0]!.headers.etag);
        }
      }
      // The walk from before the compaction ends with every item there all along exactly once.
      const seen: string[] = page1.items.map((e: { entityId: string }) => e.entityId);
      for (let cursor = page1.nextCursor; cursor !== null; ) {
        const r = await request(port, `/graph/v1/search?q=alph&limit=2&cursor=${cursor}`, { key: READ_KEY });
        assert.is(r.status, 200, r.body);
        const page = JSON.parse(r.body);
        seen.push(...page.items.map((e: { entityId: string }) => e.entityId));
        cursor = page.nextCursor;
      }
      for (const id of ["a", "n0", "n1", "n2", "n3", "n4"]) assert.is(seen.filter((x) => x === id).length, 1, id);
      assert.is(new Set(seen).size, seen.length);
    } finally {
      assert.is(await stop(writer), 0);
      rmSync(dir, { recursive: true, force: true });
      rmSync(`${dir}.qvr`, { force: true });
    }
  });

test("--workers 2 --changes: a worker replacing a killed one holds every batch answered 200 from its first answer (batches land while it starts)", async () => {
  const files = await tempFiles({
    "entities.jsonl": JSON.stringify(JSON.parse(entityLine("a", "Alpha")).entity),
    "statements.jsonl": "",
  });
  const dir = mkdtempSync(join(tmpdir(), "quiver-cli-changes-start-"));
  const source = ["--entities", files["entities.jsonl"]!, "--statements", files["statements.jsonl"]!];
  const writer = runQuiver(["serve", ...source, "--port", "0", "--no-ui", "--workers", "2", "--changes", dir], ENV);
  try {
    const port = Number(new URL(await listening(writer, 30000)).port);
    let sequence = 0;
    const stale: string[] = [];
    for (let kill = 0; kill < 3; kill++) {
      const ready = events(writer).filter((e) => e.event === "worker-ready" || e.event === "ready");
      const pids = ready.map((e) => e.pid as number).filter((pid) => pid !== writer.process.pid);
      const replaced = events(writer).filter((e) => e.event === "worker-replaced").length;
      process.kill(pids.at(-1)!, "SIGKILL");
      // Batches back to back while the replacement opens, replays and starts listening; after
      // each 200, fresh connections (either worker may take them) must all hold it.
      for (const until = Date.now() + 4000; ; ) {
        const r = await post(port, "/graph/v1/changes", entityLine(`n${sequence}`, `Alphanumeric ${sequence}`), {
          key: WRITE_KEY,
        });
        assert.is(r.status, 200, r.body);
        sequence = JSON.parse(r.body).sequence;
        for (const a of await reads(port))
          if (a.headers["x-quiver-sequence"] !== String(sequence))
            stale.push(`batch ${sequence}: an answer at ${a.headers["x-quiver-sequence"]}`);
        const done = events(writer).filter((e) => e.event === "worker-replaced").length > replaced;
        if (done || Date.now() > until) break;
      }
    }
    assert.equal(stale, []);
  } finally {
    assert.is(await stop(writer), 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--workers 2 --changes: SIGHUP is ignored and logged, as one process ignores it; the workers keep the base the log's batches apply to (regression: the pool rolled onto the JSON Lines read again, serving an edited base under the same log)", async () => {
  const { entities, source, dir } = await alphaBeta("workers");
  const writer = runQuiver(["serve", ...source, "--port", "0", "--no-ui", "--workers", "2", "--changes", dir], ENV);
  try {
    const port = Number(new URL(await listening(writer, 30000)).port);
    assert.not.match(writer.stderr(), /kill -HUP/, "the start-up does not offer a reload");
    assert.is(
      (await post(port, "/graph/v1/changes", entityLine("n1", "Alphanumeric"), { key: WRITE_KEY })).status,
      200,
    );
    const before = (await reads(port))[0]!;
    // The base's file edited, then SIGHUP: nothing is read again.
    writeFileSync(
      entities,
      JSON.stringify({ entityId: "a", rawIdentifier: "Alpha edited", type: "0", sourceType: "t" }),
    );
    writer.process.kill("SIGHUP");
    const ignored = await eventOf(writer, "reload-ignored", 10000);
    assert.ok(ignored, writer.stdout());
    assert.match(ignored.reason, /live graph/);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.not.ok(
      events(writer).some((e) => e.event === "reload-started" || e.event === "worker-rolled"),
      writer.stdout(),
    );
    for (const r of await reads(port)) {
      assert.is(r.body, before.body);
      assert.is(r.headers.etag, before.headers.etag);
      assert.is(r.headers["x-quiver-sequence"], "1");
    }
  } finally {
    assert.is(await stop(writer), 0);
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
