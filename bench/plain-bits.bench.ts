/**
 * Plain-bits benchmark: the document array's bucket width, A against B on one snapshot
 * ====================================================================================
 * Times DocumentArray.list (search's infix tier; the score index's names array for order=score's
 * prefix tiers) with the arrays a snapshot stores and with the same values rebuilt at other plain
 * widths P (DocumentArray.fromValues), in one process, on one stream of distinct queries: no graph
 * is built, only the snapshot's search sections are read (about 1 GB at 10M entities).
 *
 * Queries: `--queries` substrings of 2..6 code points of random identifiers read from
 * `--entities` (JSON Lines, picked at random byte offsets), as bench/stream.bench.ts draws them,
 * each with the type of the entity it came from; plus the dense ones: every letter and the most
 * common two-letter substrings of those identifiers. Cases, each unfiltered and typed: the infix
 * listing's page 1 (20 ranks from rank 0, the prefix tier as its gap), a deep page (20 ranks from
 * after the first DEEP_RANKS), and the names array's listing of the prefix tier (20 sranks; tiers
 * of more than TIER_READ_MAX ranks, the ones ScoreIndex walks). Each
 * round visits the queries in a new random order and times every width on each query in turn,
 * the order of the widths alternating; a query's figure is its median over the rounds. Every
 * width's listing is checked equal to the stored array's.
 *
 * Run: `npm run build && node --max-old-space-size=8192 dist/bench/plain-bits.bench.js
 *   --snapshot FILE --entities FILE.jsonl [--plain 12,16] [--queries 2000] [--rounds 5] [--only infix,names]`
 * Cost: reading the sections, one decode of the values and one build per extra width per array
 * (about a minute at 10M entities), then queries x cases x widths x rounds listings.
 */

import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ANY_TYPE, DocumentArray } from "../src/engine/search/document-array.js";
import { fold } from "../src/engine/search/fold.js";
import { SearchIndex } from "../src/engine/search/search-index.js";
import type { SerialArray } from "../src/engine/serial.js";
import { ContainerReader } from "../src/snapshot/container-serial.js";
import { readHeader, readTable, type SectionValue, tableEnd } from "../src/snapshot/container.js";
import { mulberry32 } from "../tools/prng.js";
import { shuffled } from "./sample.js";

/** Ranks a page lists. */
const PAGE = 20;
/** A deep page starts after this many infix ranks (page 50 of 20). */
const DEEP_RANKS = 1000;
/** The score index walks its names array for prefix tiers of more ranks than this (TIER_READ_MAX). */
const TIER_READ_MAX = 256;
/** Two-letter dense queries: this many of the most common. */
const DENSE_PAIRS = 40;
const SEED = 20261127;

function arg(name: string, fallback?: string): string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : fallback;
  if (v === undefined) throw new Error(`--${name} is required`);
  return v;
}

/** The sections whose names start with one of `prefixes`, each read into a buffer of its own. */
function readSections(path: string, prefixes: readonly string[]): Map<string, SectionValue> {
  const fd = openSync(path, "r");
  try {
    const { size } = fstatSync(fd);
    const head = new Uint8Array(64);
    readSync(fd, head, 0, head.length, 0);
    const tableBytes = new Uint8Array(tableEnd(readHeader(head, path, size)));
    readSync(fd, tableBytes, 0, tableBytes.length, 0);
    const values = new Map<string, SectionValue>();
    for (const s of readTable(tableBytes, path, size).sections) {
      if (!prefixes.some((p) => s.name.startsWith(p))) continue;
      if (s.kind === "integer") {
        values.set(s.name, s.count);
        continue;
      }
      const bytes = new Uint8Array(s.byteLength);
      for (let done = 0; done < bytes.length; ) done += readSync(fd, bytes, done, bytes.length - done, s.offset + done);
      if (s.kind === "text") values.set(s.name, new TextDecoder().decode(bytes));
      else values.set(s.name, view(s.kind, bytes.buffer));
    }
    return values;
  } finally {
    closeSync(fd);
  }
}

function view(kind: string, buffer: ArrayBuffer): SerialArray {
  // Each branch: the element kind the table names.
  switch (kind) {
    case "u8":
      return new Uint8Array(buffer);
    case "u16":
      return new Uint16Array(buffer);
    case "u32":
      return new Uint32Array(buffer);
    case "i32":
      return new Int32Array(buffer);
    default:
      return new Float64Array(buffer);
  }
}

/** `count` identifiers and types of random lines of a JSON Lines entity file. */
function sampleEntities(path: string, count: number, rand: () => number): { raw: string; type: number }[] {
  const fd = openSync(path, "r");
  const out: { raw: string; type: number }[] = [];
  try {
    const { size } = fstatSync(fd);
    const buf = Buffer.alloc(4096);
    while (out.length < count) {
      const got = readSync(fd, buf, 0, buf.length, Math.floor(rand() * size));
      const text = buf.toString("utf8", 0, got);
      const nl = text.indexOf("\n");
      const end = text.indexOf("\n", nl + 1);
      if (nl < 0 || end < 0) continue;
      const e = JSON.parse(text.slice(nl + 1, end)) as { rawIdentifier: string; type: string };
      out.push({ raw: e.rawIdentifier, type: Number(e.type) });
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

interface Query {
  q: string;
  type: number;
  dense: boolean;
}

function drawQueries(sample: readonly { raw: string; type: number }[], wanted: number, rand: () => number): Query[] {
  const seen = new Set<string>();
  const out: Query[] = [];
  for (const e of sample) {
    if (out.length >= wanted) break;
    const points = Array.from(e.raw);
    if (points.length < 2) continue;
    const length = Math.min(points.length, 2 + Math.floor(rand() * 5));
    const start = Math.floor(rand() * (points.length - length + 1));
    const q = points.slice(start, start + length).join("");
    if (q.trim() === "" || seen.has(q)) continue;
    seen.add(q);
    out.push({ q, type: e.type, dense: false });
  }
  // Dense: every letter, and the most common pairs of letters.
  const pairs = new Map<string, number>();
  for (const e of sample) {
    const f = fold(e.raw);
    for (let i = 0; i + 2 <= f.length; i++) {
      const p = f.slice(i, i + 2);
      if (/^[a-z]{2}$/.test(p)) pairs.set(p, (pairs.get(p) ?? 0) + 1);
    }
  }
  const common = [...pairs].sort((x, y) => y[1] - x[1]).slice(0, DENSE_PAIRS);
  for (const q of [..."abcdefghijklmnopqrstuvwxyz", ...common.map(([p]) => p)])
    out.push({ q, type: sample[out.length % sample.length]!.type, dense: true });
  return out;
}

/** One listing to time: an array's list call's arguments but the array. */
interface Call {
  query: Query;
  kind: "names" | "infix";
  label: string;
  l: number;
  r: number;
  lo: number;
  type: number;
  gapLo: number;
  gapHi: number;
}

function main(): void {
  const snapshot = arg("snapshot");
  const widths = arg("plain", "12,16").split(",").map(Number);
  const wanted = Number(arg("queries", "2000"));
  const rounds = Number(arg("rounds", "5"));
  const rand = mulberry32(SEED);
  let t0 = performance.now();
  const values = readSections(snapshot, ["graph.", "search.", "scoreIndex.names."]);
  const reader = new ContainerReader(values, { fileName: snapshot, verify: false });
  const N = reader.child("graph").integer("entities");
  const search = SearchIndex.deserialize(reader.child("search"), N);
  const names = DocumentArray.deserialize(reader.child("scoreIndex").child("names"));
  console.log(`read ${N} entities' search sections in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const only = arg("only", "infix,names").split(",");
  const arrays = { infix: new Map<number, DocumentArray>(), names: new Map<number, DocumentArray>() };
  for (const [kind, stored] of [
    ["infix", search.documents],
    ["names", names],
  ] as const) {
    if (!only.includes(kind)) continue;
    t0 = performance.now();
    const decoded = stored.values();
    for (const P of widths)
      arrays[kind].set(P, P === stored.plainBits ? stored : DocumentArray.fromValues(decoded, stored.rankBits, P));
    console.log(
      `${kind}: n=${stored.top.length} R=${stored.rankBits} stored P=${stored.plainBits}; ` +
        [...arrays[kind]]
          .map(([P, a]) => `P=${P}: ${a.top.bits} levels, ${(a.byteLength / 1e6).toFixed(0)} MB`)
          .join(", ") +
        ` (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
  const sample = sampleEntities(arg("entities"), 3 * wanted, rand);
  const queries = drawQueries(sample, wanted, rand);
  // The calls: the listings find() makes, fixed by the stored arrays (untimed).
  const calls: Call[] = [];
  const ref = search.documents;
  const scratch: number[] = [];
  for (const query of queries) {
    const b0 = search.bounds(fold(query.q));
    if (b0 === null) continue;
    const { l, r, a, b } = b0;
    for (const type of [ANY_TYPE, query.type]) {
      const typed = type === ANY_TYPE ? "" : " type=";
      calls.push({ query, kind: "infix", label: `infix page 1${typed}`, l, r, lo: 0, type, gapLo: a, gapHi: b });
      scratch.length = 0;
      ref.list(l, r, 0, N, type, DEEP_RANKS, scratch, a, b);
      if (scratch.length === DEEP_RANKS) {
        const lo = scratch[DEEP_RANKS - 1]! + 1;
        // Past the gap's start, the walk lists the segment above the prefix tier alone (find's branch).
        const gap = lo < a ? [a, b] : [0, 0];
        const from = lo < a ? lo : Math.max(lo, b);
        calls.push({
          query,
          kind: "infix",
          label: `infix deep${typed}`,
          l,
          r,
          lo: from,
          type,
          gapLo: gap[0]!,
          gapHi: gap[1]!,
        });
      }
      if (b - a > TIER_READ_MAX)
        calls.push({ query, kind: "names", label: `names tier${typed}`, l: a, r: b, lo: 0, type, gapLo: 0, gapHi: 0 });
    }
  }
  // Every width lists the same.
  const outs = widths.map(() => [] as number[]);
  for (let i = calls.length - 1; i >= 0; i--) if (!only.includes(calls[i]!.kind)) calls.splice(i, 1);
  for (const c of calls) {
    widths.forEach((P, w) => {
      outs[w]!.length = 0;
      arrays[c.kind].get(P)!.list(c.l, c.r, c.lo, N, c.type, PAGE, outs[w]!, c.gapLo, c.gapHi);
    });
    for (let w = 1; w < widths.length; w++)
      if (outs[w]!.join() !== outs[0]!.join())
        throw new Error(`P=${widths[w]} lists otherwise for ${JSON.stringify(c)}`);
  }
  console.log(`${queries.length} queries, ${calls.length} calls, listings equal at every width`);
  // Timed: per call and width, the samples of every round.
  const samples = calls.map(() => widths.map(() => [] as number[]));
  const out: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = shuffled(
      calls.map((_, i) => i),
      rand,
    );
    for (const i of order) {
      const c = calls[i]!;
      for (let j = 0; j < widths.length; j++) {
        const w = (round + i + j) % widths.length;
        const a = arrays[c.kind].get(widths[w]!)!;
        out.length = 0;
        const t = performance.now();
        a.list(c.l, c.r, c.lo, N, c.type, PAGE, out, c.gapLo, c.gapHi);
        samples[i]![w]!.push((performance.now() - t) * 1000);
      }
    }
  }
  const median = (xs: number[]): number => {
    const s = [...xs].sort((x, y) => x - y);
    return s[Math.floor(s.length / 2)]!;
  };
  const pct = (xs: number[], p: number): number => {
    const s = [...xs].sort((x, y) => x - y);
    return s[Math.min(s.length - 1, Math.floor(p * s.length))]!;
  };
  const labels = [...new Set(calls.map((c) => c.label))];
  console.log(`\nµs per listing (a query's median over ${rounds} rounds); then p50 / p99 / max over queries`);
  for (const dense of [false, true]) {
    for (const label of labels) {
      const idx = calls.map((c, i) => (c.label === label && c.query.dense === dense ? i : -1)).filter((i) => i >= 0);
      if (idx.length === 0) continue;
      const cols = widths.map((P, w) => {
        const per = idx.map((i) => median(samples[i]![w]!));
        return `P=${P}: ${pct(per, 0.5).toFixed(1)} / ${pct(per, 0.99).toFixed(1)} / ${pct(per, 1).toFixed(1)}`;
      });
      console.log(
        `${dense ? "dense " : "sparse"} ${label.padEnd(20)} n=${String(idx.length).padStart(5)}  ${cols.join("   ")}`,
      );
    }
  }
  // Page 1 unfiltered by the query's occurrences (r - l): where the width's cost lies.
  console.log("\ninfix page 1 unfiltered by occurrences, p50 / p99 µs:");
  for (let lo = 1, hi = 1000; lo < 1e9; lo = hi, hi *= 10) {
    const idx = calls
      .map((c, i) => (c.label === "infix page 1" && c.r - c.l >= lo && c.r - c.l < hi ? i : -1))
      .filter((i) => i >= 0);
    if (idx.length === 0) continue;
    const cols = widths.map((P, w) => {
      const per = idx.map((i) => median(samples[i]![w]!));
      return `P=${P}: ${pct(per, 0.5).toFixed(1)} / ${pct(per, 0.99).toFixed(1)}`;
    });
    console.log(`  [${lo}, ${hi}) n=${String(idx.length).padStart(5)}  ${cols.join("   ")}`);
  }
  // The dense queries one by one (page 1, unfiltered).
  console.log("\ndense queries, infix page 1 unfiltered, µs (median over rounds):");
  const line: string[] = [];
  calls.forEach((c, i) => {
    if (!c.query.dense || c.label !== "infix page 1") return;
    line.push(`${c.query.q} ${widths.map((_, w) => median(samples[i]![w]!).toFixed(0)).join("/")}`);
  });
  console.log(line.join("  "));
}

main();
