// scratch: not committed
import { buildGeneratedGraph, generateEntities, mulberry32 } from "../dist/tools/generator.js";
const N = Number(process.argv[2] ?? 300000);
const g = buildGeneratedGraph({ entities: N, statements: N * 2, seed: 1, fingerprints: "derived" });
const rand = mulberry32(7);
const qs = [];
let i = 0;
for (const e of generateEntities({ entities: N, statements: N * 2, seed: 1 })) {
  if (rand() < 4000 / N) { const pts = Array.from(e.rawIdentifier); if (pts.length >= 2) { const L = Math.min(pts.length, 2 + Math.floor(rand() * 5)); const s = Math.floor(rand() * (pts.length - L + 1)); const q = pts.slice(s, s + L).join(""); if (q.trim()) qs.push(q); } }
  i++;
}
console.log("queries", qs.length);
import { Session } from "node:inspector/promises";
import { writeFileSync } from "node:fs";
const session = new Session(); session.connect();
await session.post("Profiler.enable"); await session.post("Profiler.setSamplingInterval", { interval: 100 }); await session.post("Profiler.start");
const cursors = [];
let t0 = performance.now();
for (let r = 0; r < 5; r++) for (const q of qs) { const p = g.search({ q, limit: 20 }); if (r === 0 && p.nextCursor) cursors.push([q, p.nextCursor]); }
console.log("page1 mean us", ((performance.now() - t0) * 1000 / (5 * qs.length)).toFixed(1));
t0 = performance.now();
for (let r = 0; r < 5; r++) for (const [q, c] of cursors) g.search({ q, limit: 20, cursor: c });
console.log("page2 mean us", ((performance.now() - t0) * 1000 / (5 * cursors.length)).toFixed(1));
const { profile } = await session.post("Profiler.stop");
writeFileSync("/tmp/prof/query.cpuprofile", JSON.stringify(profile));
