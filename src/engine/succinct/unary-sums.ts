/**
 * Prefix sums in unary
 * ====================
 * Owns a fixed sequence of m counts c_0 .. c_{m-1} (non-negative, summing to M) and its prefix
 * sums: sumBefore(x) = c_0 + ... + c_{x-1}. The counts are written in unary, each as a 0 followed
 * by c_x ones, then one closing 0, in a bit vector of m + 1 + M bits; so sumBefore(x) is the ones
 * before zero number x: select0(x) - x. The document counting of search (document-counts.ts) keeps
 * its marks this way (Sadakane, "Succinct data structures for flexible text retrieval systems",
 * JDA 5(1), 2007: the marks in unary, 2n + o(n) bits).
 *
 * select0 starts from a sample: the block holding every SELECT_SAMPLE-th zero (a 32-bit word per
 * SELECT_SAMPLE zeros), then reads block counts forward (zeros are about half the bits here, so a
 * few 512-bit blocks at most), then one block's sub-counts and words (bit-vector.ts select0At).
 *
 * Cost: sumBefore O(SELECT_SAMPLE / 256) block headers and one block, two or three cache misses.
 * Space: (m + M) * 1.125 bits plus 32 bits per SELECT_SAMPLE zeros. Serial form: the bit vector
 * (`bits`) and `samples`; restore checks their shapes and the zero count.
 */

import { checkLength, type SerialReader, type SerialWriter } from "../serial.js";
import { BitVector, BLOCK_SHIFT, BLOCK_STRIDE, select0At } from "./bit-vector.js";

/** Zeros between two samples of select0. */
export const SELECT_SAMPLE = 1024;
/** Bits per block of the bit vector (bit-vector.ts). */
const BLOCK_BITS = 1 << BLOCK_SHIFT;

export class UnarySums {
  /** The counts in unary: per count, a 0 then its ones; one closing 0. */
  readonly bits: BitVector;
  /** samples[s] = the block of zero number s * SELECT_SAMPLE. */
  readonly samples: Uint32Array;
  /** m: how many counts. */
  readonly length: number;

  private constructor(bits: BitVector, samples: Uint32Array, length: number) {
    this.bits = bits;
    this.samples = samples;
    this.length = length;
  }

  /** The structure of `counts` (a typed array or anything indexable). */
  static from(counts: ArrayLike<number>): UnarySums {
    const m = counts.length;
    let total = 0;
    for (let x = 0; x < m; x++) total += counts[x]!;
    const bits = new BitVector(m + 1 + total);
    let at = 0;
    for (let x = 0; x < m; x++) {
      at++; // the count's 0
      const c = counts[x]!;
      for (let k = 0; k < c; k++) bits.set(at++);
    }
    bits.seal();
    return new UnarySums(bits, UnarySums.samplesOf(bits, m + 1), m);
  }

  private static samplesOf(bits: BitVector, zeros: number): Uint32Array {
    const samples = new Uint32Array(Math.ceil(zeros / SELECT_SAMPLE));
    for (let s = 0; s < samples.length; s++) {
      // From the previous sample's block: a linear pass over the blocks in all.
      const from = s === 0 ? 0 : samples[s - 1]!;
      samples[s] = Math.floor(select0At(bits.blocks, from, s * SELECT_SAMPLE) / BLOCK_BITS);
    }
    return samples;
  }

  /** c_0 + ... + c_{x-1}, for 0 <= x <= length (not checked). */
  sumBefore(x: number): number {
    return select0At(this.bits.blocks, this.samples[Math.floor(x / SELECT_SAMPLE)]!, x) - x;
  }

  /**
   * Reads the words sumBefore(x) will read first (its sample, the sample's block and the block x's
   * zero most likely lies in, zeros being about half the bits) and returns them combined: a caller
   * with several sums to take touches them all first, so that their cache misses are in flight
   * together (as bit-vector.ts touchRanks does for ranks).
   */
  touch(x: number): number {
    const blocks = this.bits.blocks;
    const sample = this.samples[Math.floor(x / SELECT_SAMPLE)]!;
    const likely = Math.min(sample + ((2 * (x % SELECT_SAMPLE)) >>> BLOCK_SHIFT), blocks.length / BLOCK_STRIDE - 1);
    return blocks[sample * BLOCK_STRIDE]! ^ blocks[likely * BLOCK_STRIDE]!;
  }

  get byteLength(): number {
    return this.bits.byteLength + this.samples.byteLength;
  }

  serialize(w: SerialWriter): void {
    w.integer("length", this.length);
    this.bits.serialize(w.child("bits"));
    w.array("samples", this.samples);
  }

  /** Restores the sums, checking that the bits hold length + 1 zeros and the samples fit. */
  static deserialize(r: SerialReader): UnarySums {
    const length = r.integer("length");
    const bits = BitVector.deserialize(r.child("bits"));
    const samples = r.uint32("samples");
    if (bits.length - bits.ones !== length + 1) r.corrupt("the unary counts do not hold one zero per count");
    checkLength(r, "samples", samples, Math.ceil((length + 1) / SELECT_SAMPLE), "one per sample of zeros");
    const blocks = BitVector.blocksLength(bits.length) / 18;
    for (let s = 0; s < samples.length; s++) {
      if (samples[s]! >= blocks || (s > 0 && samples[s]! < samples[s - 1]!))
        r.corrupt("a select sample is out of place");
    }
    if (r.verify) {
      // Each sample must not lie after its zero (a later block would skip it).
      for (let s = 0; s < samples.length; s++) {
        if (bits.rank0(Math.min(bits.length, samples[s]! * BLOCK_BITS)) > s * SELECT_SAMPLE)
          r.corrupt(`select sample ${s} lies after its zero`);
      }
    }
    return new UnarySums(bits, samples, length);
  }
}
