/**
 * mapWorkingArrays (serving/mapped-arrays.ts), in a worker thread of its own (it changes that
 * thread's global constructors): typed arrays made by length in its range sit on a buffer of
 * MAPPED_BUFFER_BYTES, zeroed, of the constructor's own kind and prototype, through `new`, `from`
 * and `of`; smaller and larger ones, views of a buffer given, copies of an array and subclasses are
 * as the constructor makes them. A graph built there, its arrays mapped, has the content tag of the
 * same graph built on this thread (a seeded random graph large enough that the statement columns
 * and the entity arrays are in the range).
 */

import { Worker } from "node:worker_threads";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { MAPPED_BUFFER_BYTES, MAPPED_MAX_BYTES, MAPPED_MIN_BYTES } from "../../src/serving/mapped-arrays.js";
import { buildGraph, generateGraph, Rng } from "../support/oracle.js";

const GRAPH = { entities: 40_000, statements: 300_000 };

/** Runs `body` (an async function's text, given `mapped` and `support`, the modules) in a worker after mapWorkingArrays. */
function inWorker<T>(body: string): Promise<T> {
  const mapped = new URL("../../src/serving/mapped-arrays.js", import.meta.url).href;
  const support = new URL("../support/oracle.js", import.meta.url).href;
  const code = `
    const { parentPort } = require("node:worker_threads");
    (async () => {
      const mapped = await import(${JSON.stringify(mapped)});
      mapped.mapWorkingArrays();
      const support = await import(${JSON.stringify(support)});
      return await (async () => { ${body} })();
    })().then((v) => parentPort.postMessage({ v }), (e) => parentPort.postMessage({ e: String(e && e.stack || e) }));`;
  return new Promise((resolve, reject) => {
    const worker = new Worker(code, { eval: true });
    worker.once("message", (m: { v?: T; e?: string }) => {
      void worker.terminate();
      if (m.e !== undefined) reject(new Error(m.e));
      else resolve(m.v as T);
    });
    worker.once("error", reject);
  });
}

test("arrays made by length in the range have a buffer of their own; others are the constructor's", async () => {
  const r = await inWorker<Record<string, number | boolean | string>>(`
    const out = {};
    const n = ${MAPPED_MIN_BYTES} / 4;
    const a = new Uint32Array(n);
    out.aBuffer = a.buffer.byteLength; out.aLength = a.length; out.aOffset = a.byteOffset;
    let sum = 0; for (let i = 0; i < a.length; i++) sum += a[i];
    out.aSum = sum;
    out.aKind = a instanceof Uint32Array && Object.getPrototypeOf(a) === Object.getPrototypeOf(new Uint32Array(1));
    out.aCtor = a.constructor.name;
    a[n - 1] = 7; out.aLast = a.subarray(n - 2)[1]; out.aSlice = a.slice(n - 1)[0];
    out.belowBuffer = new Uint32Array(n - 1).buffer.byteLength;
    out.aboveBuffer = new Uint8Array(${MAPPED_MAX_BYTES}).buffer.byteLength;
    const f = new Float64Array(${MAPPED_MIN_BYTES} / 8 + 3);
    out.fBuffer = f.buffer.byteLength; out.fLength = f.length;
    const from = Uint16Array.from({ length: ${MAPPED_MIN_BYTES} / 2 }, (_, i) => i & 0xffff);
    out.fromBuffer = from.buffer.byteLength; out.fromAt = from[70000];
    out.ofBuffer = Int32Array.of(1, 2, 3).buffer.byteLength;
    const given = new ArrayBuffer(${MAPPED_MIN_BYTES} * 2);
    out.viewBuffer = new Uint8Array(given, 0, ${MAPPED_MIN_BYTES} * 2).buffer.byteLength;
    out.copyBuffer = new Uint32Array(a).buffer.byteLength;
    class Sub extends Uint32Array {}
    const s = new Sub(n);
    out.subBuffer = s.buffer.byteLength; out.subKind = s instanceof Sub;
    out.bytesPer = Uint32Array.BYTES_PER_ELEMENT; out.name = Uint32Array.name;
    return out;`);
  const n = MAPPED_MIN_BYTES / 4;
  assert.equal(r, {
    aBuffer: MAPPED_BUFFER_BYTES,
    aLength: n,
    aOffset: 0,
    aSum: 0,
    aKind: true,
    aCtor: "Uint32Array",
    aLast: 7,
    aSlice: 7,
    belowBuffer: MAPPED_MIN_BYTES - 4,
    aboveBuffer: MAPPED_MAX_BYTES,
    fBuffer: MAPPED_BUFFER_BYTES,
    fLength: MAPPED_MIN_BYTES / 8 + 3,
    fromBuffer: MAPPED_BUFFER_BYTES,
    fromAt: 70000 & 0xffff,
    ofBuffer: 12,
    viewBuffer: MAPPED_MIN_BYTES * 2,
    copyBuffer: MAPPED_MIN_BYTES,
    subBuffer: MAPPED_MIN_BYTES,
    subKind: true,
    bytesPer: 4,
    name: "Uint32Array",
  });
});

test("a graph built with its working arrays mapped is the graph built without", async () => {
  const tag = await inWorker<string>(`
    const data = support.generateGraph(new support.Rng(3), ${JSON.stringify(GRAPH)});
    return support.buildGraph(data).stats().contentTag;`);
  const expected = buildGraph(generateGraph(new Rng(3), GRAPH)).stats().contentTag;
  assert.is(tag, expected);
});

test.run();
