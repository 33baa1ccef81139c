/**
 * Base fingerprints
 * =================
 * Which row of an immutable Graph holds a statement fingerprint: a change names the statement it
 * deletes by fingerprint, and a statement put must not take a fingerprint that another statement
 * holds. A built graph keeps no such map (its pages only go from rows to fingerprints), so the live
 * graph makes one over its base, once, on the first write that needs it.
 *
 * Algorithm: every row's 64-bit fingerprint (a given 16-hex one, or the one derived from its
 * entities' hashes) is entered into a FingerprintTable (open addressing over one Uint32Array of
 * slots, statements/fingerprint-table.ts); the keys are not stored but recomputed from the row when
 * a probe compares them (one 24-byte hash, or a read of the given halves), and only for a slot whose
 * tag (bits of the key's mix, in the slot's bits the row number leaves) matches. Given fingerprints that
 * are not 16 lowercase hex digits (rare) go into a Map by text.
 *
 * Cost: O(statements) to build (about a hash a row); 8 to 16 bytes a statement (the slots) plus the
 * Map of text fingerprints; a look-up is expected O(1) probes, each recomputing one row's key.
 * `state()` and the constructor's `state` carry a map made in one thread to another over the same
 * graph (a compaction's worker builds it beside the graph): O(1) for the slots, which transfer.
 */

import { derivedFingerprintHalves, readHexFingerprint } from "../statements/fingerprint.js";
import { FingerprintTable, type FingerprintTableState, type KeyColumn } from "../statements/fingerprint-table.js";
import type { Hash64 } from "../hash64.js";
import type { GraphParts } from "../graph.js";

/** A map's content, for the same graph's rows in another thread. */
export interface BaseFingerprintsState {
  table: FingerprintTableState;
  /** The text fingerprints and their rows. */
  texts: [string, number][];
}

/** Fingerprints' 64-bit halves a caller holds already (rowsOf): his[i], los[i] are fingerprint i's where known[i] is 1. */
export interface FingerprintKeys {
  his: Uint32Array;
  los: Uint32Array;
  known: Uint8Array;
}

export class BaseFingerprints {
  private readonly table: FingerprintTable;
  private readonly texts = new Map<string, number>();
  private readonly halves: Hash64 = [0, 0];
  private readonly parts: GraphParts;
  /** The row whose key `keyHalves` holds (probes compare hi then lo of one row). */
  private keyRow = -1;
  private readonly key: Hash64 = [0, 0];

  /** `state`: the map of a graph with these very rows, made elsewhere (`state()`); else built here. */
  constructor(parts: GraphParts, state?: BaseFingerprintsState) {
    this.parts = parts;
    const hi: KeyColumn = { get: (row) => this.keyOf(row)[0] };
    const lo: KeyColumn = { get: (row) => this.keyOf(row)[1] };
    const st = parts.statementIndex;
    // The rows are the graph's: the slots' spare bits hold tags (a probe for an absent key, what
    // most of a batch of puts asks, then reads almost no row's key).
    this.table = new FingerprintTable(hi, lo, state?.table, st.length);
    // Each branch: a map handed over is taken as it is (O(1) but the text ones), or one is built.
    if (state !== undefined) {
      for (const [text, row] of state.texts) this.texts.set(text, row);
      return;
    }
    this.table.reserve(st.length);
    for (let row = 0; row < st.length; row++) {
      const given = this.givenText(row);
      // Each branch: a text fingerprint is found by text; any other is a 64-bit key of the table.
      if (given !== undefined) {
        this.texts.set(given, row);
        continue;
      }
      const key = this.keyOf(row);
      this.table.findOrAdd(key[0], key[1], row);
    }
  }

  /** The map's content (the slots shared, not copied), for a BaseFingerprints over the same rows. */
  state(): BaseFingerprintsState {
    return { table: this.table.state(), texts: [...this.texts] };
  }

  /** The base row that holds `fingerprint`, or -1. */
  rowOf(fingerprint: string): number {
    // Each branch: 16 lowercase hex digits are a 64-bit key (given or derived); else a text one.
    if (readHexFingerprint(fingerprint, this.halves)) return this.table.find(this.halves[0], this.halves[1]);
    return this.texts.get(fingerprint) ?? -1;
  }

  /**
   * rowOf for many at once: `out[i]` is the row that holds `fingerprints[i]`, or -1. The 64-bit ones
   * are looked up together (FingerprintTable.findMany: their cache misses overlap). `keys`: the
   * halves of those fingerprints the caller made from halves (`known[i]` 1: derived ones, whose 16
   * hex digits need no reading back), at least n long.
   */
  rowsOf(fingerprints: readonly string[], out: Int32Array, keys?: FingerprintKeys): void {
    const n = fingerprints.length;
    const his = keys?.his ?? new Uint32Array(n);
    const los = keys?.los ?? new Uint32Array(n);
    const known = keys?.known;
    const text = new Uint8Array(n);
    const h = this.halves;
    for (let i = 0; i < n; i++) {
      // Each branch: halves given (kept as they are); a 64-bit key for the table; a text one, by
      // text (its halves left 0, its answer set after).
      if (known !== undefined && known[i] === 1) continue;
      if (readHexFingerprint(fingerprints[i]!, h)) {
        his[i] = h[0];
        los[i] = h[1];
      } else text[i] = 1;
    }
    this.table.findMany(his, los, n, out);
    for (let i = 0; i < n; i++) if (text[i] === 1) out[i] = this.texts.get(fingerprints[i]!) ?? -1;
  }

  /** A row's given fingerprint when it is text (not 16 lowercase hex digits); else undefined. */
  private givenText(row: number): string | undefined {
    const column = this.parts.statementIndex.fingerprints;
    if (column.hexHalves(row, this.halves)) return undefined;
    return column.given(row);
  }

  /** A row's 64-bit fingerprint (given hex or derived), cached for the row last asked. */
  private keyOf(row: number): Hash64 {
    if (row === this.keyRow) return this.key;
    const st = this.parts.statementIndex;
    if (!st.fingerprints.hexHalves(row, this.key)) {
      const e = this.parts.entities;
      const s = st.subjectOf(row);
      const p = st.predicateOf(row);
      const o = st.objectOf(row);
      const d = derivedFingerprintHalves(e.hashHi(s), e.hashLo(s), e.hashHi(p), e.hashLo(p), e.hashHi(o), e.hashLo(o));
      this.key[0] = d[0];
      this.key[1] = d[1];
    }
    this.keyRow = row;
    return this.key;
  }

  get byteLength(): number {
    return this.table.byteLength;
  }
}
