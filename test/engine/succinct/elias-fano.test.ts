/**
 * Elias-Fano sequence tests: pair, get and window against a plain array of random non-decreasing
 * values (runs of equal values, gaps of every size, low-bit widths from 0 up), pair declining only
 * a scan longer than SCAN_WORDS, the serial form round trip and its shape checks.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { EliasFano, SAMPLE, SCAN_WORDS } from "../../../src/engine/succinct/elias-fano.js";
import { MemorySerialReader, MemorySerialWriter } from "../../../src/engine/serial.js";
import { Rng } from "../../support/oracle.js";

function sequence(rng: Rng, n: number, universe: number): number[] {
  const values = Array.from({ length: n }, () => rng.int(universe + 1)).sort((a, b) => a - b);
  // Now and then runs of one value (empty objects) and a value at the very top.
  if (n > 2 && rng.chance(0.5)) values[n - 1] = universe;
  return values;
}

test("pair, get and window against a plain array; pair declines only a long scan", () => {
  const out = new Uint32Array(2);
  let declined = 0;
  let answered = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const rng = new Rng(seed);
    let n = rng.range(1, rng.chance(0.2) ? 3000 : 100);
    const universe = rng.chance(0.2) ? rng.int(n) : rng.int(n * rng.range(1, 200));
    let values = sequence(rng, n, universe);
    // Now and then one heavy gap (an object with most of the statements): with n large enough,
    // its high bits outgrow SCAN_WORDS, and pair must decline the scan across it.
    if (seed % 10 === 0) {
      n = 20000 + rng.int(5000);
      values = Array.from({ length: n }, (_, i) => i * 2);
      const at = rng.range(1, n - 1);
      for (let i = at; i < n; i++) values[i] = values[i]! + 200 * n;
    }
    const top = values[n - 1]! + rng.int(3);
    const ef = EliasFano.build(n, top, (i) => values[i]!);
    for (let i = 0; i < n; i++) assert.is(ef.get(i), values[i], `seed ${seed} get ${i}`);
    for (let i = 0; i + 1 < n; i++) {
      ef.window(i, out);
      const k = Math.floor(i / SAMPLE);
      assert.is(out[0], values[k * SAMPLE], `seed ${seed} window ${i}`);
      assert.is(out[1], (k + 1) * SAMPLE < n ? values[(k + 1) * SAMPLE] : top, `seed ${seed} window ${i}`);
      if (ef.pair(i, out)) {
        answered++;
        assert.equal([out[0], out[1]], [values[i], values[i + 1]], `seed ${seed} pair ${i}`);
      } else {
        declined++;
        // Declined only when the sample's span really is longer than the budget.
        const L = EliasFano.lowBitsFor(n, top);
        const hi = (k + 1) * SAMPLE < n ? values[(k + 1) * SAMPLE]! : top;
        assert.ok(Math.floor(hi / 2 ** L) - Math.floor(values[k * SAMPLE]! / 2 ** L) > SCAN_WORDS * 32 - 2 * SAMPLE);
      }
    }
  }
  assert.ok(answered > 10000 && declined > 0, `answered ${answered}, declined ${declined}`);
});

test("build refuses values out of order or range; the serial form round-trips and its shape is checked", () => {
  assert.throws(() => EliasFano.build(3, 10, (i) => [1, 0, 2][i]!), /out of order/);
  assert.throws(() => EliasFano.build(2, 10, (i) => [1, 11][i]!), /out of order or range/);
  const values = [0, 0, 3, 7, 7, 7, 20, 41, 41, 90, 100];
  const ef = EliasFano.build(values.length, 100, (i) => values[i]!);
  const w = new MemorySerialWriter();
  ef.serialize(w);
  const read = (fields: Map<string, unknown>) =>
    EliasFano.deserialize(new MemorySerialReader(fields as never, { verify: true, fail: (what) => new Error(what) }));
  const back = read(w.fields);
  assert.equal(
    values.map((_, i) => back.get(i)),
    values,
  );
  assert.is(back.byteLength, ef.byteLength);
  const broken = new Map(w.fields);
  broken.set(
    "high",
    (w.fields.get("high") as Uint32Array).map(() => 0),
  );
  assert.throws(() => read(broken), /wrong number of values/);
  const short = new Map(w.fields);
  short.set("sampled", new Uint32Array(0));
  assert.throws(() => read(short), /wrong size/);
});

test.run();
