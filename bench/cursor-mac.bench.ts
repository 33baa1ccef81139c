/**
 * The cost of a cursor MAC
 * ========================
 * What one HMAC-SHA256 of a cursor body costs (src/engine/cursor/hmac.ts), timed with tinybench:
 * `macInto` of a 70-byte body (a search cursor of short identifiers) and of a 400-byte one (long
 * identifiers), `CursorCodec.decode` of a cursor its cache does not hold (a base64url decode, one
 * MAC and the checks), and `createHmac` with the key as bytes, the platform's plain form, for scale.
 * Each task runs BATCH calls, so the timer's own cost is spread; the table gives microseconds a call,
 * the median of the batches and their mean (the mean carries the garbage collector's pauses).
 *
 * Run: `npm run bench:cursor-mac` (about 10 s). The same file, copied into an older checkout that has
 * `HmacSha256.macInto` and built there, times that checkout's MAC.
 */

import { createHmac, randomBytes } from "node:crypto";
import { Bench } from "tinybench";
import { CursorCodec, ENDPOINT_SEARCH, queryTag } from "../src/engine/cursor/cursor.js";
import { HmacSha256 } from "../src/engine/cursor/hmac.js";
import { isMainModule } from "../tools/main-module.js";

/** Calls per timed iteration. */
const BATCH = 100;
/** Time per task, after WARMUP_MS of warm-up. */
const TIME_MS = 2000;
const WARMUP_MS = 300;
const SECRET = Buffer.from("a cursor secret of some 32 bytes");
const MAC_BYTES = 16;

export async function run(): Promise<void> {
  const hmac = new HmacSha256(SECRET);
  const short = randomBytes(70);
  const long = randomBytes(400);
  const out = Buffer.alloc(MAC_BYTES);
  // A cursor sealed by one codec, decoded by another with no cache, so each decode computes the MAC.
  const tag = queryTag(["stras", ""]);
  const parts = ["Straßenbahn", "Q12345", "305a704894b4fb95.00000004"];
  const cursor = new CursorCodec(SECRET, 0).encode(ENDPOINT_SEARCH, tag, 1, parts);
  const reader = new CursorCodec(SECRET, 0);

  const bench = new Bench({ time: TIME_MS, warmupTime: WARMUP_MS });
  bench
    .add("HmacSha256.macInto, 70-byte body", () => {
      for (let i = 0; i < BATCH; i++) hmac.macInto(short, short.length, out, 0, MAC_BYTES);
    })
    .add("HmacSha256.macInto, 400-byte body", () => {
      for (let i = 0; i < BATCH; i++) hmac.macInto(long, long.length, out, 0, MAC_BYTES);
    })
    .add(`CursorCodec.decode, uncached (${cursor.length} chars)`, () => {
      for (let i = 0; i < BATCH; i++) reader.decode(cursor, ENDPOINT_SEARCH, tag);
    })
    .add("createHmac(key bytes), 70-byte body", () => {
      for (let i = 0; i < BATCH; i++) createHmac("sha256", SECRET).update(short).digest().copy(out, 0, 0, MAC_BYTES);
    });
  await bench.run();

  const rows = bench.tasks.map((task) => {
    const latency = task.result?.state === "completed" ? task.result.latency : undefined;
    if (latency === undefined) throw new Error(`${task.name}: did not complete`);
    return {
      task: task.name,
      "median µs": ((latency.p50 ?? Number.NaN) * 1000) / BATCH,
      "mean µs": (latency.mean * 1000) / BATCH,
      "±%": latency.rme,
    };
  });
  console.log(`Node ${process.version}, ${BATCH} calls an iteration, ${TIME_MS} ms a task`);
  console.table(
    rows.map((r) => ({
      ...r,
      "median µs": r["median µs"].toFixed(3),
      "mean µs": r["mean µs"].toFixed(3),
      "±%": r["±%"].toFixed(1),
    })),
  );
}

if (isMainModule(import.meta.url)) await run();
