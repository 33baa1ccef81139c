/**
 * Statement index
 * ===============
 * The statements in the three orders of CONTRACT.md, and which order serves which filters (`plan`,
 * the one place that decides, as N3.js's readQuads and Oxigraph's quads_for_pattern do).
 *
 * Layout (compact: about 12 bytes a statement at 1M entities / 10M statements, `npm run bench:full`):
 *  - rows: the statements in SPO order (subject, predicate, object, fingerprint), each one packed
 *    record of ceil(log2 N) + ceil(log2 P) + ceil(log2 N) bits (N entities, P distinct predicates;
 *    the predicate is its index among the graph's predicates, in entityId order, so comparing
 *    indexes is comparing entityIds). A row is read in one or two neighbouring words.
 *  - POS and OSP: permutations, ceil(log2 M) bits a position, giving the SPO row at each position of
 *    that order (M statements). From SPO order, a stable pass by object gives (o, s, p, fp) = OSP,
 *    and a stable pass of that by predicate gives (p, o, s, fp) = POS.
 *  - where each subject's rows start (SPO): sampled, one start every OFFSET_SAMPLE entities, the
 *    rest found by binary search inside a window of about OFFSET_SAMPLE * (statements per entity)
 *    rows (a few cache lines, read in order); each object's OSP start exactly, as an Elias-Fano
 *    sequence (succinct/elias-fano.ts: about 5 bits an entity and 1 bit per 8 statements, a cache
 *    line or two a look-up, where a binary search of OSP through the permutation took some thirty
 *    dependent misses on rows anywhere in memory, slower the larger the graph); each predicate's POS
 *    start exactly (P is small).
 *  - fingerprints the input gave, by row (fingerprint-column.ts); the others are derived on output.
 *
 * Building: stable counting sorts on the dense ids, O(M + N) per pass (counting-sort.ts: five
 * passes, run on this thread by build, or shared by several threads through a sorter by
 * buildSorted, load/order-threads.ts; the same index either way; rows already in SPO order, a
 * compaction's, skip the three SPO passes: buildFromSpo); rows of one triple (the same
 * triple under several given fingerprints, rare) are then ordered by fingerprint. No comparison sort
 * touches the statements.
 *
 * Queries: a filter is one contiguous range of positions of its order (two binary searches per bound
 * component, inside the sampled window or the predicate's range); a cursor is one more binary search
 * for the first key after its own (or none, when the cursor carries its position in this very
 * graph). Then a page is read position by position: O(log M + page).
 */

import { EliasFano } from "../succinct/elias-fano.js";
import { FingerprintColumn, type GivenFingerprint, type TouchHalves } from "./fingerprint-column.js";
import { KeySample } from "./key-sample.js";
import { type GatherPass, gatherChunk, type OrderSorter, type SortPass, sortPass } from "./counting-sort.js";
import { IntVector, readBits, threeFieldsBelow, writeBits } from "../succinct/int-vector.js";
import { type SerialReader, type SerialWriter, verifyLater } from "../serial.js";
import { finalArray } from "../array-slab.js";

export type IndexOrder = "SPO" | "POS" | "OSP";

/** Statement components. */
export const SUBJECT = 0;
export const PREDICATE = 1;
export const OBJECT = 2;
export type Component = typeof SUBJECT | typeof PREDICATE | typeof OBJECT;

/** The component order of each index, written once. */
export const ORDER_COMPONENTS: Readonly<Record<IndexOrder, readonly [Component, Component, Component]>> = {
  SPO: [SUBJECT, PREDICATE, OBJECT],
  POS: [PREDICATE, OBJECT, SUBJECT],
  OSP: [OBJECT, SUBJECT, PREDICATE],
};

/** One offset kept per this many entities (subjects in SPO, objects in OSP). */
export const OFFSET_SAMPLE = 16;
/**
 * A range searched by equalRange whose words (the SPO rows, or the POS / OSP permutation) span at
 * most this many 32-bit words (32 cache lines) is read one word a cache line before the search:
 * those reads are independent, so their misses overlap, and the search's dependent probes then hit
 * the cache. A sampled window (OFFSET_SAMPLE entities: about 18 lines of SPO rows at 10 statements
 * an entity) fits; a longer range (a heavy entity, a predicate's range) is probed as it is, since
 * reading it whole would cost more than the log2 of it a search touches.
 */
export const TOUCH_RANGE_WORDS = 512;
/** 32-bit words per cache line. */
const LINE_WORDS = 16;
/** What the build's variable for a working array it is done with holds instead (the array can go). */
const EMPTY_COLUMN = new Uint32Array(0);

/** A filter as dense entity ids; undefined = not filtered on. */
export interface DenseFilter {
  subject: number | undefined;
  predicate: number | undefined;
  object: number | undefined;
}

/** The order that serves a filter and the range of its positions that match. */
export interface QueryPlan {
  order: IndexOrder;
  lo: number;
  hi: number;
}

/**
 * A cursor's key in comparison space: per component (subject, predicate, object) the dense id (for
 * the predicate: its predicate index) where the cursor's entityId sits, and whether it is exactly
 * there (an entityId no longer in the graph sits between two ids and never compares equal).
 */
export interface SeekKey {
  at: [number, number, number];
  exact: [boolean, boolean, boolean];
  fingerprint: string;
}

/**
 * The statements as they leave the builder: dense ids per input row, and what each row gave.
 * StatementIndex.build overwrites the three columns (they are its working space).
 */
export interface StatementRows {
  subject: Uint32Array;
  predicate: Uint32Array;
  object: Uint32Array;
  given: (row: number) => GivenFingerprint;
  /**
   * Called once the build has read every row's given fingerprint (`given` and the fingerprint
   * texts are not asked again): the caller may let its copy of them go then, before the build's
   * last arrays are made, rather than after the build.
   */
  releaseGiven?: () => void;
  /**
   * The rows' fingerprint column, made by the caller from what it holds (FingerprintColumn.fromRows):
   * read by buildFromSpo only, whose input rows are the SPO rows (else `given` is asked row by row).
   */
  spoFingerprints?: () => FingerprintColumn;
  /**
   * What `given` answers, as columns by input row, when no row gave a text fingerprint: `given[r]`
   * 1 when row r gave hex halves, `hi[r]` and `lo[r]` those (FingerprintColumn.gathered). Read by
   * the sorting builds in place of asking `given` twice for every row.
   */
  givenColumns?: () => { given: Uint8Array; hi: Uint32Array; lo: Uint32Array };
  /**
   * Called when the build has let working arrays of M words go, before it makes a large array of
   * its own (it has set the input's columns to empty arrays here): before it packs the rows, when
   * it sorted them itself (`last` false: one of its five is dead, sorts come after), then after its
   * last sort (`last` true: one working array is left, before the POS positions are packed). The
   * caller lets its own references to the columns go and may collect the garbage then (its sort
   * threads' too, when `last`), so that their memory is free before that array is made, not after
   * the build.
   */
  releaseRows?: (last: boolean) => void;
}

export class StatementIndex {
  readonly length: number;
  readonly entityCount: number;
  /** Predicate index -> dense id, ascending. */
  readonly predicates: Uint32Array;
  readonly fingerprints: FingerprintColumn;
  private readonly rows: Uint32Array;
  private readonly subjectBits: number;
  private readonly predicateBits: number;
  private readonly objectBits: number;
  private readonly rowBits: number;
  private readonly pos: IntVector;
  private readonly osp: IntVector;
  /** First SPO row of subject k * OFFSET_SAMPLE, for each k, then M. */
  private readonly subjectStarts: Uint32Array;
  /** First OSP position of every object, then M (N + 1 values): an Elias-Fano sequence. */
  private readonly objectStarts: EliasFano | null;
  /**
   * First OSP position of object k * OFFSET_SAMPLE, for each k, then M: what a format 5 snapshot
   * kept instead of objectStarts (null otherwise). Such a graph searches each object's window, as
   * those files were served, and opens as fast; the full sequence is counted when it is saved.
   */
  private readonly objectSampled: Uint32Array | null;
  /** Where objectStarts writes a pair or a window (reused: plans are synchronous). */
  private readonly objectPair = new Uint32Array(2);
  /** First POS position of predicate index i, for each i, then M. */
  private readonly predicateStarts: Uint32Array;
  /** The object at every KEY_SAMPLE-th POS position (key-sample.ts): narrows a predicate-object search. */
  private readonly posObjects: KeySample;
  /** The subject at every KEY_SAMPLE-th OSP position: narrows an object-subject search. */
  private readonly ospSubjects: KeySample;
  /** Where a key sample writes its narrowed range (reused: plans are synchronous). */
  private readonly narrowed = new Int32Array(4);
  /** What the last touchRows read, folded: written (public) only so that its reads cannot be optimized away. */
  touched = 0;
  /** Where touchRows reads the rows' hex fingerprints (null: it reads none). */
  private readonly fingerprintHalves: TouchHalves | null;

  private constructor(p: {
    length: number;
    entityCount: number;
    predicates: Uint32Array;
    fingerprints: FingerprintColumn;
    rows: Uint32Array;
    pos: IntVector;
    osp: IntVector;
    subjectStarts: Uint32Array;
    objectStarts: EliasFano | null;
    objectSampled: Uint32Array | null;
    predicateStarts: Uint32Array;
  }) {
    this.length = p.length;
    this.entityCount = p.entityCount;
    this.predicates = p.predicates;
    this.fingerprints = p.fingerprints;
    this.fingerprintHalves = p.fingerprints.touchHalves;
    this.rows = p.rows;
    const layout = rowLayout(p.entityCount, p.predicates.length);
    this.subjectBits = layout.sBits;
    this.predicateBits = layout.pBits;
    this.objectBits = layout.sBits;
    this.rowBits = layout.rowBits;
    this.pos = p.pos;
    this.osp = p.osp;
    this.subjectStarts = p.subjectStarts;
    this.objectStarts = p.objectStarts;
    this.objectSampled = p.objectSampled;
    this.predicateStarts = p.predicateStarts;
    this.posObjects = new KeySample({
      length: this.length,
      rowAt: (at) => this.pos.get(at),
      valueOf: (row) => this.objectOf(row),
    });
    this.ospSubjects = new KeySample({
      length: this.length,
      rowAt: (at) => this.osp.get(at),
      valueOf: (row) => this.subjectOf(row),
    });
  }

  /**
   * Sorts `input` into the three orders on this thread. `fingerprintOf(inputRow, s, p, o)` gives
   * each row's fingerprint text (given or derived; s, p, o: its triple's dense ids); it is asked only
   * to order the rows of one triple, which are rare. Consumes `input`: its three columns are
   * overwritten as working space (the build makes two arrays of M words of its own, not five), so
   * the caller must not read them afterwards.
   */
  static build(
    input: StatementRows,
    entityCount: number,
    fingerprintOf: (inputRow: number, s: number, p: number, o: number) => string,
    onProgress?: (done: number, total: number) => void,
  ): StatementIndex {
    const counts = new Uint32Array(Math.max(entityCount, 1));
    const steps = StatementIndex.steps(input, entityCount, fingerprintOf, onProgress, (m) => new Uint32Array(m));
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done === true) return step.value;
      // Each branch: the step is a gather or a sort pass.
      if ("into" in step.value) gatherChunk(step.value, 0, step.value.order.length);
      else sortPass(step.value, counts);
    }
  }

  /**
   * build(), each sort pass run by `sorter` (load/order-threads.ts: on several threads at once). The
   * index is the one build() makes, word for word: a stable sort has one answer. When the sorter
   * wants shared arrays, `input`'s columns must be on SharedArrayBuffers and the build's own working
   * arrays are made there too.
   */
  static async buildSorted(
    input: StatementRows,
    entityCount: number,
    fingerprintOf: (inputRow: number, s: number, p: number, o: number) => string,
    sorter: OrderSorter,
    onProgress?: (done: number, total: number) => void,
  ): Promise<StatementIndex> {
    // Each branch: the other threads read and write the working arrays, so they are shared then.
    const allocate = sorter.shared
      ? (m: number) => new Uint32Array(new SharedArrayBuffer(4 * m))
      : (m: number) => new Uint32Array(m);
    const steps = StatementIndex.steps(input, entityCount, fingerprintOf, onProgress, allocate);
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done === true) return step.value;
      // Each branch: the step is a gather or a sort pass.
      if ("into" in step.value) await sorter.gather(step.value);
      else await sorter.sort(step.value);
    }
  }

  /**
   * build() of rows already in SPO order (a compaction's: the base's rows merged with the delta's,
   * live-compaction.ts, through LiveGraph.feedCompaction): input row j is SPO position j, so the three SPO passes, their two
   * working arrays of M words and the gathers are skipped; the rows are packed from the input's
   * columns as they are, and OSP and POS are sorted as build() sorts them, into the subject column
   * (read for the last time by then) and the object column: no array of M words of its own. The
   * index is the one build()
   * makes of the same rows in any order, word for word. The order is checked (one pass; fingerprint
   * texts asked for runs of one triple only): rows out of order are an Error (a caller's fault).
   * Consumes `input` as build() does.
   */
  static buildFromSpo(
    input: StatementRows,
    entityCount: number,
    fingerprintOf: (inputRow: number, s: number, p: number, o: number) => string,
    onProgress?: (done: number, total: number) => void,
  ): StatementIndex {
    const m = input.subject.length;
    const total = 4;
    const predicates = densePredicates(input, entityCount);
    let subject = input.subject;
    let spoP = input.predicate;
    let object = input.object;
    for (let j = 1; j < m; j++) {
      const c = subject[j - 1]! - subject[j]! || spoP[j - 1]! - spoP[j]! || object[j - 1]! - object[j]!;
      if (c < 0) continue;
      // One triple twice: ordered by fingerprint text (two rows never share one).
      if (c === 0) {
        const [ts, tp, to] = [subject[j]!, predicates[spoP[j]!]!, object[j]!];
        if (fingerprintOf(j - 1, ts, tp, to) < fingerprintOf(j, ts, tp, to)) continue;
      }
      throw new Error(`StatementIndex.buildFromSpo: row ${j} does not follow row ${j - 1} in SPO order`);
    }
    // Each branch: the caller's column as it holds it, or one made row by row.
    const fingerprints = input.spoFingerprints?.() ?? FingerprintColumn.build(m, (j) => input.given(j));
    input.releaseGiven?.();
    onProgress?.(1, total);

    const rows = packRows(m, entityCount, predicates.length, subject, spoP, object);
    const subjectStarts = sampledStarts(m, Math.floor(entityCount / OFFSET_SAMPLE) + 2, (j) => subject[j]!);
    onProgress?.(2, total);

    // The two permutations, sorted on this thread: OSP into the subject column (read for the last
    // time above), POS into the object column. The working arrays are the holder's only (permuted
    // lets each go once it is done with it).
    const work: PermutedWork = { spare: subject, object, spoP };
    input.subject = input.predicate = input.object = EMPTY_COLUMN;
    const counts = new Uint32Array(Math.max(entityCount, 1));
    const tail = StatementIndex.permuted(
      { m, entityCount, predicates, fingerprints, rows, subjectStarts },
      work,
      (sorted) => onProgress?.(2 + sorted, total),
      input.releaseRows,
    );
    subject = spoP = object = EMPTY_COLUMN;
    for (let step = tail.next(); ; step = tail.next()) {
      if (step.done === true) return step.value;
      sortPass(step.value, counts);
    }
  }

  /**
   * The build, as steps: yields each stable counting sort for its driver to run (build on this
   * thread, buildSorted through a sorter) and resumes once it is done; returns the index.
   */
  private static *steps(
    input: StatementRows,
    entityCount: number,
    fingerprintOf: (inputRow: number, s: number, p: number, o: number) => string,
    onProgress: ((done: number, total: number) => void) | undefined,
    allocate: (m: number) => Uint32Array,
  ): Generator<SortPass | GatherPass, StatementIndex, void> {
    const m = input.subject.length;
    const total = 6;
    const predicates = densePredicates(input, entityCount);
    const P = predicates.length;

    // SPO order: least significant key first (object, predicate, subject); then runs of one triple by fingerprint.
    let order = allocate(m);
    for (let i = 0; i < m; i++) order[i] = i;
    let other = allocate(m);
    for (let step = 0; step < 3; step++) {
      // Each branch: the passes' keys, least significant first (object, predicate, subject).
      const key = step === 0 ? input.object : step === 1 ? input.predicate : input.subject;
      yield* run({ order, key, range: step === 1 ? P : entityCount, out: other });
      [order, other] = [other, order];
      onProgress?.(step + 1, total);
    }
    // The three ids in SPO order, gathered once (the only random reads of the input rows here):
    // the runs of one triple and the packed rows below read them in order. Each is gathered into
    // the array the one before it left free (the sort's spare first, then each input column once
    // read): five arrays of M words at once, not eight.
    // Each gather is yielded to the driver (on several threads when it has them); each must end
    // before the next, which writes over the column the one before it read.
    let subject = other;
    other = EMPTY_COLUMN;
    yield* run({ into: subject, column: input.subject, order });
    let spoP = input.subject;
    yield* run({ into: spoP, column: input.predicate, order });
    let object = input.predicate;
    yield* run({ into: object, column: input.object, order });
    // The input's columns are this build's working arrays now, held by its own variables only (the
    // object column, read for the last time, by none).
    input.subject = input.predicate = input.object = EMPTY_COLUMN;
    // Reordering a run of one triple changes only which input row is where, not the ids.
    orderRunsByFingerprint(order, subject, spoP, object, (row, s, p, o) => fingerprintOf(row, s, predicates[p]!, o));
    // The given fingerprints in SPO order, before the packed rows: the caller's copy of them goes
    // once they are read, so the two copies are held at once beside the working arrays only.
    const fingerprints = spoFingerprintsOf(input, order);
    input.releaseGiven?.();
    // Four working arrays of M words are left of five: the caller may collect the fifth (and its
    // fingerprints) before the rows are packed.
    input.releaseRows?.(false);

    const rows = packRows(m, entityCount, P, subject, spoP, object);
    const sampled = Math.floor(entityCount / OFFSET_SAMPLE) + 2;
    const subjectStarts = sampledStarts(m, sampled, (j) => subject[j]!);
    // The subjects in SPO order are read for the last time: their array goes before the two
    // permutations are made (the sorts below need the objects and predicates only).
    subject = EMPTY_COLUMN;
    onProgress?.(4, total);

    // The two permutations: OSP sorted into the input rows' order (read for the last time above),
    // POS into the objects' array; the working arrays are the holder's only from here.
    const work: PermutedWork = { spare: order, object, spoP };
    order = object = spoP = EMPTY_COLUMN;
    return yield* StatementIndex.permuted(
      { m, entityCount, predicates, fingerprints, rows, subjectStarts },
      work,
      (sorted) => onProgress?.(4 + sorted, total),
      input.releaseRows,
    );
  }

  /**
   * The end of every build, from the ids in SPO order (`work.object`, `work.spoP`: predicate
   * indexes): OSP (SPO positions stably by object), packed at once with every object's first OSP
   * position (the objects' last read); every predicate's first POS position, counted from the
   * predicates; then POS (OSP positions stably by predicate), each sort yielded for the caller's
   * driver to run. `work`'s three arrays of M words are overwritten and let go (its fields emptied)
   * as each is read for the last time: the rows' identity order (no array) is sorted into the
   * spare (OSP), the OSP order into the objects' array (POS); `releaseRows(true)` is called once POS
   * order is the only one left, before POS is packed. At most three arrays of M words and one
   * packed order are held at once, then one and two packed orders. `onSorted(k)` after the k-th
   * sort (1, 2). Cost: two counting sorts and O(M + N) walks.
   */
  private static *permuted(
    p: {
      m: number;
      entityCount: number;
      predicates: Uint32Array;
      fingerprints: FingerprintColumn;
      rows: Uint32Array;
      subjectStarts: Uint32Array;
    },
    work: PermutedWork,
    onSorted: (sorted: number) => void,
    releaseRows: ((last: boolean) => void) | undefined,
  ): Generator<SortPass, StatementIndex, void> {
    const { m, entityCount } = p;
    const P = p.predicates.length;
    yield* run({ order: null, key: work.object, range: entityCount, out: work.spare });
    onSorted(1);
    releaseRows?.(false);
    const positionBits = IntVector.widthFor(m - 1);
    let ospOrder = work.spare;
    const osp = new IntVector(m, positionBits);
    for (let j = 0; j < m; j++) osp.set(j, ospOrder[j]!);
    // Every object's first OSP position, in one walk of OSP order alongside the objects.
    const object = work.object;
    let at = 0;
    const objectStarts = EliasFano.build(entityCount + 1, m, (o) => {
      while (at < m && object[ospOrder[at]!]! < o) at++;
      return at;
    });
    // Every predicate's first POS position: POS is sorted by predicate first, so it is the number
    // of rows of a smaller predicate (counted in any order).
    const spoP = work.spoP;
    const predicateStarts = new Uint32Array(P + 1);
    for (let j = 0; j < m; j++) predicateStarts[spoP[j]! + 1]!++;
    for (let i = 1; i <= P; i++) predicateStarts[i]! += predicateStarts[i - 1]!;

    // The objects are read for the last time: their array takes POS order.
    yield* run({ order: ospOrder, key: spoP, range: P, out: object });
    onSorted(2);
    const posOrder = work.object;
    ospOrder = EMPTY_COLUMN;
    work.object = work.spare = work.spoP = EMPTY_COLUMN;
    releaseRows?.(true);
    const pos = new IntVector(m, positionBits);
    for (let j = 0; j < m; j++) pos.set(j, posOrder[j]!);
    return new StatementIndex({
      length: m,
      entityCount,
      predicates: p.predicates,
      fingerprints: p.fingerprints,
      rows: p.rows,
      pos,
      osp,
      subjectStarts: p.subjectStarts,
      objectStarts,
      objectSampled: null,
      predicateStarts,
    });
  }

  // Reading rows -------------------------------------------------------------------------------

  /**
   * Reads the first word of each of the `count` rows in `rows`, and its given fingerprint's halves
   * when every row has hex ones (FingerprintColumn.touchHalves), and keeps nothing but a fold of
   * them: a page calls it before decoding its rows' ids and writing their fingerprints. Each row of
   * a page is a miss of its own (a POS or OSP page's rows are scattered over SPO order), and its
   * fingerprint another; one loop this short keeps many misses in flight, where the decoding loop
   * (three bit-field reads a row) held a few. The row and its fingerprint are read in the same
   * loop, not two: both misses of a row are in flight at once, and the page waits for one round of
   * misses, not two. Measured with the two ways alternated query by query in one process, the
   * stream's draws of O, P+O and S filters (p50 of whole pages, three runs): at 10M / 100M 6%, 3%
   * and 4.5% less; at 1M / 10M 1%, 2% and 5% less (`npm run bench:alloc -- --snapshot FILE
   * --stream-only` times the pages alone: too noisy on a shared machine to show it). The decoding
   * then reads from the cache: a row's two or three words share its first word's cache line, but
   * for the few rows that cross a line's end.
   */
  touchRows(rows: Uint32Array, count: number): void {
    const words = this.rows;
    const rowBits = this.rowBits;
    const halves = this.fingerprintHalves;
    let sink = 0;
    // Each branch: rows without hex fingerprints (derived, or some given as text: the mixed
    // layout's rows are few and read where their digits are written), or rows and halves together.
    if (halves === null) {
      for (let k = 0; k < count; k++) {
        const bit = rows[k]! * rowBits;
        sink ^= words[bit < 0x80000000 ? bit >>> 5 : Math.floor(bit / 32)]!;
      }
    } else {
      const { hi, lo, stride, loAt } = halves;
      for (let k = 0; k < count; k++) {
        const row = rows[k]!;
        const bit = row * rowBits;
        const at = stride * row;
        sink ^= words[bit < 0x80000000 ? bit >>> 5 : Math.floor(bit / 32)]! ^ hi[at]! ^ lo[at + loAt]!;
      }
    }
    this.touched = sink;
  }

  subjectOf(row: number): number {
    return readBits(this.rows, row * this.rowBits, this.subjectBits);
  }

  predicateIndexOf(row: number): number {
    return readBits(this.rows, row * this.rowBits + this.subjectBits, this.predicateBits);
  }

  /** The predicate's dense id. */
  predicateOf(row: number): number {
    return this.predicates[this.predicateIndexOf(row)]!;
  }

  objectOf(row: number): number {
    return readBits(this.rows, row * this.rowBits + this.subjectBits + this.predicateBits, this.objectBits);
  }

  /** A component in comparison space (the predicate as its index). */
  componentOf(row: number, c: Component): number {
    return c === SUBJECT ? this.subjectOf(row) : c === PREDICATE ? this.predicateIndexOf(row) : this.objectOf(row);
  }

  /** The SPO row at position `at` of `order`. */
  rowAt(order: IndexOrder, at: number): number {
    return order === "SPO" ? at : order === "POS" ? this.pos.get(at) : this.osp.get(at);
  }

  /** The predicate index of dense id `d`, or -1 when `d` is no statement's predicate. */
  predicateIndex(d: number): number {
    const at = this.predicateLowerBound(d);
    return at < this.predicates.length && this.predicates[at] === d ? at : -1;
  }

  /** The first predicate index whose dense id is >= d. */
  predicateLowerBound(d: number): number {
    let lo = 0;
    let hi = this.predicates.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.predicates[mid]! < d) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  // Filters ------------------------------------------------------------------------------------

  /**
   * The order that serves a filter and its matching range. Each branch takes the order whose key
   * starts with every bound component, so the matches are one contiguous range and come out in the
   * contract's order for that filter. An empty range when nothing can match (a predicate filter
   * naming an entity that is no statement's predicate).
   */
  plan(f: DenseFilter): QueryPlan {
    const { subject: s, predicate: p, object: o } = f;
    if (s !== undefined) {
      // O+S without P: SPO would need a scan over all of the subject's predicates; OSP keys start
      // with (o, s), so the pair is one range.
      if (p === undefined && o !== undefined) {
        const [lo, hi] = this.objectRange(o);
        return this.narrow("OSP", lo, hi, SUBJECT, s);
      }
      // S, S+P, S+P+O: SPO keys start with s, then p, then o.
      const [lo, hi] = this.subjectRange(s);
      if (p === undefined) return { order: "SPO", lo, hi };
      const pi = this.predicateIndex(p);
      if (pi < 0) return { order: "SPO", lo, hi: lo };
      const sp = this.narrow("SPO", lo, hi, PREDICATE, pi);
      return o === undefined ? sp : this.narrow("SPO", sp.lo, sp.hi, OBJECT, o);
    }
    if (p !== undefined) {
      // P, P+O: POS keys start with (p, o).
      const pi = this.predicateIndex(p);
      if (pi < 0) return { order: "POS", lo: 0, hi: 0 };
      const lo = this.predicateStarts[pi]!;
      const hi = this.predicateStarts[pi + 1]!;
      return o === undefined ? { order: "POS", lo, hi } : this.narrow("POS", lo, hi, OBJECT, o);
    }
    // O alone: OSP keys start with o.
    if (o !== undefined) {
      const [lo, hi] = this.objectRange(o);
      return { order: "OSP", lo, hi };
    }
    // No filter: every statement, in SPO order.
    return { order: "SPO", lo: 0, hi: this.length };
  }

  /** SPO rows of subject s: the sampled window, then two binary searches inside it. */
  private subjectRange(s: number): [number, number] {
    const k = Math.floor(s / OFFSET_SAMPLE);
    return this.equalRange("SPO", this.subjectStarts[k]!, this.subjectStarts[k + 1]!, SUBJECT, s);
  }

  /**
   * OSP positions of object o: its start and the next object's, from the Elias-Fano sequence (a
   * cache line or two, whatever the graph's size). Each branch: the sequence declines a pair whose
   * scan is long (a heavy object nearby); then the window of its samples is searched as a
   * subject's is.
   */
  private objectRange(o: number): [number, number] {
    const out = this.objectPair;
    const starts = this.objectStarts;
    if (starts === null) {
      // A format 5 graph: its sampled window.
      const k = Math.floor(o / OFFSET_SAMPLE);
      out[0] = this.objectSampled![k]!;
      out[1] = this.objectSampled![k + 1]!;
    } else if (starts.pair(o, out)) {
      // Clamped: a damaged snapshot's values must not send a page past the statements.
      const hi = Math.min(out[1]!, this.length);
      return [Math.min(out[0]!, hi), hi];
    } else starts.window(o, out);
    return this.equalRange("OSP", out[0]!, Math.min(out[1]!, this.length), OBJECT, o);
  }

  /** The part of [lo, hi) of `order` whose component `c` equals `value` (sorted on c inside). */
  private narrow(order: IndexOrder, lo: number, hi: number, c: Component, value: number): QueryPlan {
    const [a, b] = this.equalRange(order, lo, hi, c, value);
    return { order, lo: a, hi: b };
  }

  /**
   * The lower bound by binary search; the upper bound by galloping from it (positions first, +2,
   * +6, +14, ...), then a binary search inside the last step. Each probe of a POS or OSP position
   * is a dependent cache miss or two (the permutation, then the row), and most ranges are short (a
   * predicate-object pair has a few statements, inside a predicate's range of thousands): the
   * upper bound then costs two or three probes instead of log2(hi - first).
   */
  private equalRange(order: IndexOrder, lo: number, hi: number, c: Component, value: number): [number, number] {
    // Where each bound can lie: the whole range, or (with a key sample) at most KEY_SAMPLE positions each.
    let lowerEnd = hi;
    let upperFrom = lo;
    const sample = this.sampleFor(order, c);
    if (sample !== null) {
      const out = this.narrowed;
      sample.narrow(lo, hi, value, out);
      lo = out[0]!;
      lowerEnd = out[1]!;
      upperFrom = out[2]!;
      hi = out[3]!;
    }
    this.touchRange(order, lo, hi);
    let a = lo;
    let b = lowerEnd;
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.componentOf(this.rowAt(order, mid), c) < value) a = mid + 1;
      else b = mid;
    }
    const first = a;
    // Invariants: positions in [first, a) hold at most `value`; positions in [b, hi) more.
    if (upperFrom > a) a = upperFrom;
    b = hi;
    for (let step = 1; a < b; step *= 2) {
      const probe = a + step - 1;
      if (probe >= b) break;
      if (this.componentOf(this.rowAt(order, probe), c) > value) {
        b = probe;
        break;
      }
      a = probe + 1;
    }
    while (a < b) {
      const mid = (a + b) >>> 1;
      if (this.componentOf(this.rowAt(order, mid), c) <= value) a = mid + 1;
      else b = mid;
    }
    return [first, a];
  }

  /**
   * The key sample of component `c` in `order`, or null. Each branch: the two searches of a permuted
   * order over a range that can be long (a predicate's range, a heavy object's) have one; the other
   * ranges are a sampled window (an OSP object window is narrowed by about one probe at most by a
   * sample, measured no faster at 10M/100M) or a subject's rows, searched as they are.
   */
  private sampleFor(order: IndexOrder, c: Component): KeySample | null {
    if (order === "POS" && c === OBJECT) return this.posObjects;
    if (order === "OSP" && c === SUBJECT) return this.ospSubjects;
    return null;
  }

  /**
   * Reads one word of every cache line that positions [lo, hi) of `order` occupy (the SPO rows
   * themselves, or the POS / OSP permutation's entries), when they span at most TOUCH_RANGE_WORDS
   * words, and keeps a fold of them in `touched`: see TOUCH_RANGE_WORDS. The POS / OSP rows the
   * search then reads through the permutation stay scattered (one miss a probe).
   */
  private touchRange(order: IndexOrder, lo: number, hi: number): void {
    // Each branch: SPO positions are rows; the other orders' positions are permutation entries.
    const words = order === "SPO" ? this.rows : order === "POS" ? this.pos.words : this.osp.words;
    const width = order === "SPO" ? this.rowBits : order === "POS" ? this.pos.width : this.osp.width;
    // Bit offsets pass 2^32 in a large graph: a division, not a shift.
    const first = Math.floor((lo * width) / 32);
    const last = Math.min(words.length - 1, Math.floor((hi * width) / 32));
    if (last - first > TOUCH_RANGE_WORDS) return;
    let sink = 0;
    for (let w = first; w < last; w += LINE_WORDS) sink ^= words[w]!;
    this.touched = sink ^ words[last]!;
  }

  /**
   * The first position in [lo, hi) of `order` whose key is strictly greater than `key`. `fingerprintOf`
   * gives a row's fingerprint text (asked only when the three components compare equal).
   */
  seekAfter(order: IndexOrder, lo: number, hi: number, key: SeekKey, fingerprintOf: (row: number) => string): number {
    const components = ORDER_COMPONENTS[order];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const row = this.rowAt(order, mid);
      let c = 0;
      for (let k = 0; k < 3 && c === 0; k++) {
        const comp = components[k]!;
        c = compareComponent(this.componentOf(row, comp), key.at[comp], key.exact[comp]);
      }
      if (c === 0) {
        const fp = fingerprintOf(row);
        c = fp < key.fingerprint ? -1 : fp > key.fingerprint ? 1 : 0;
      }
      if (c <= 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  get byteLength(): number {
    return (
      this.rows.byteLength +
      this.pos.byteLength +
      this.osp.byteLength +
      this.predicates.byteLength +
      this.subjectStarts.byteLength +
      (this.objectStarts?.byteLength ?? 0) +
      (this.objectSampled?.byteLength ?? 0) +
      this.predicateStarts.byteLength +
      this.posObjects.byteLength +
      this.ospSubjects.byteLength
    );
  }

  serialize(w: SerialWriter): void {
    w.integer("length", this.length);
    w.integer("entityCount", this.entityCount);
    w.array("predicates", this.predicates);
    w.array("rows", this.rows);
    this.pos.serialize(w.child("pos"));
    this.osp.serialize(w.child("osp"));
    w.array("subjectStarts", this.subjectStarts);
    // Each branch: a graph opened from a format 5 file counts its sequence now (O(M + N)).
    const starts =
      this.objectStarts ?? objectStartsOfRows(this.rows, this.length, this.entityCount, this.predicates.length);
    starts.serialize(w.child("objectIndex"));
    w.array("predicateStarts", this.predicateStarts);
    this.fingerprints.serialize(w.child("fingerprints"));
  }

  /** Restores the index of a graph of `entityCount` entities, checking it (see `check`). */
  static deserialize(r: SerialReader, entityCount: number): StatementIndex {
    const length = r.integer("length");
    if (r.integer("entityCount") !== entityCount)
      r.corrupt(`the statements name ${r.integer("entityCount")} entities, the graph has ${entityCount}`);
    const predicates = r.uint32("predicates");
    const rows = r.uint32("rows");
    const pos = IntVector.deserialize(r.child("pos"));
    const osp = IntVector.deserialize(r.child("osp"));
    const subjectStarts = r.uint32("subjectStarts");
    // Each branch: format 6 keeps every object's start (objectIndex); format 5 kept every 16th
    // (objectStarts), served as it was (counting the rest here would cost seconds at 100M).
    const format6 = r.has("objectIndex.length");
    const objectStarts = format6 ? EliasFano.deserialize(r.child("objectIndex")) : null;
    const objectSampled = format6 ? null : r.uint32("objectStarts");
    const predicateStarts = r.uint32("predicateStarts");
    const fingerprints = FingerprintColumn.deserialize(r.child("fingerprints"));
    const P = predicates.length;
    const { rowBits } = rowLayout(entityCount, P);
    const sampled = Math.floor(entityCount / OFFSET_SAMPLE) + 2;
    // Shapes: every array as long as the counts say, so no read can leave its array.
    if (length > 0 && (P === 0 || entityCount === 0)) r.corrupt("statements without entities or predicates");
    if (rows.length !== Math.ceil((length * rowBits) / 32) + 2) r.corrupt("the statement rows have the wrong size");
    if (pos.length !== length || osp.length !== length) r.corrupt("a statement order has the wrong length");
    if (
      subjectStarts.length !== sampled ||
      (objectStarts !== null && (objectStarts.length !== entityCount + 1 || objectStarts.universe !== length)) ||
      (objectSampled !== null && objectSampled.length !== sampled)
    )
      r.corrupt("the statement offsets have the wrong size");
    if (predicateStarts.length !== P + 1 || fingerprints.length !== length)
      r.corrupt("the predicate offsets or fingerprints have the wrong size");
    const index = new StatementIndex({
      length,
      entityCount,
      predicates,
      fingerprints,
      rows,
      pos,
      osp,
      subjectStarts,
      objectStarts,
      objectSampled,
      predicateStarts,
    });
    index.check(r);
    return index;
  }

  /**
   * Values inside their ranges: the predicates and offsets always; every row's ids and every
   * position of POS and OSP only when `r.verify` (a scan over M).
   */
  private check(r: SerialReader): void {
    const { length: m, entityCount: N, predicates } = this;
    for (let i = 0; i < predicates.length; i++) {
      if (predicates[i]! >= N || (i > 0 && predicates[i]! <= predicates[i - 1]!))
        r.corrupt("the predicate list is out of order or range");
    }
    const offsets = [this.subjectStarts, this.predicateStarts];
    if (this.objectSampled !== null) offsets.push(this.objectSampled);
    for (const starts of offsets) {
      for (let i = 0; i < starts.length; i++) {
        if (starts[i]! > m || (i > 0 && starts[i]! < starts[i - 1]!))
          r.corrupt("statement offsets out of order or range");
      }
    }
    if (r.verify) verifyLater(r, "verify", () => verifyRows(r, this.rows, m, N, predicates.length, this.pos, this.osp));
  }

  /**
   * The pass `check` defers (verifyRows), from the stored form alone, restoring nothing: what
   * another thread runs over the same bytes (snapshot/read-thread.ts). The shape checks are
   * deserialize's; run on a form that fails them, this only reads wrong values.
   */
  static verifyStored(r: SerialReader): void {
    const m = r.integer("length");
    const N = r.integer("entityCount");
    const P = r.uint32("predicates").length;
    verifyRows(
      r,
      r.uint32("rows"),
      m,
      N,
      P,
      IntVector.deserialize(r.child("pos")),
      IntVector.deserialize(r.child("osp")),
    );
  }
}

/**
 * Every row's ids and every position of POS and OSP in range: each column by one scan of the packed
 * rows (threeFieldsBelow: a few integer operations a value, no decode of whole rows). Only when one
 * fails are the rows walked one by one, to name the first bad row.
 */
function verifyRows(
  r: SerialReader,
  rows: Uint32Array,
  m: number,
  N: number,
  P: number,
  pos: IntVector,
  osp: IntVector,
): void {
  const { sBits, pBits, rowBits } = rowLayout(N, P);
  if (!threeFieldsBelow(rows, m, rowBits, sBits, N, pBits, P, sBits, N)) {
    for (let j = 0; j < m; j++) {
      const bit = j * rowBits;
      if (
        readBits(rows, bit, sBits) >= N ||
        readBits(rows, bit + sBits + pBits, sBits) >= N ||
        readBits(rows, bit + sBits, pBits) >= P
      )
        r.corrupt(`statement row ${j} names an entity out of range`);
    }
  }
  if (!pos.allBelow(m) || !osp.allBelow(m)) {
    for (let j = 0; j < m; j++) {
      if (pos.get(j) >= m || osp.get(j) >= m) r.corrupt(`statement position ${j} is out of range`);
    }
  }
}

/**
 * Compares a row's component with a cursor's. An inexact component (an entityId no longer in the
 * graph) sits just below `at`, between two ids, so it never compares equal.
 */
function compareComponent(value: number, at: number, exact: boolean): number {
  if (exact) return value - at;
  return value < at ? -1 : 1;
}

/** The working arrays of StatementIndex.permuted, M words each: emptied as each is let go. */
interface PermutedWork {
  spare: Uint32Array;
  object: Uint32Array;
  spoP: Uint32Array;
}

/**
 * Yields a sort pass or a gather for the build's driver, then empties its arrays: the driver holds
 * the last step it ran while the build goes on, and must not keep a working array alive by it.
 */
function* run<T extends SortPass | GatherPass>(step: T): Generator<T, void, void> {
  yield step;
  // Each branch: a gather's arrays, or a sort's.
  if ("into" in step) step.into = step.column = step.order = EMPTY_COLUMN;
  else step.order = step.key = step.out = EMPTY_COLUMN;
}

/**
 * The given fingerprints in SPO order (`order`: input row at each SPO position). Each branch: the
 * caller's columns gathered, or each row asked through `given`.
 */
function spoFingerprintsOf(input: StatementRows, order: Uint32Array): FingerprintColumn {
  const m = order.length;
  const columns = input.givenColumns?.();
  return columns === undefined
    ? FingerprintColumn.build(m, (j) => input.given(order[j]!))
    : FingerprintColumn.gathered(order, columns.given, columns.hi, columns.lo);
}

/**
 * The predicates: the entities used as one, in dense-id order. The input's predicate column becomes
 * the predicate indexes, in place (the input is consumed). Cost: O(M + entityCount).
 */
function densePredicates(input: StatementRows, entityCount: number): Uint32Array {
  const m = input.subject.length;
  const isPredicate = new Uint8Array(entityCount);
  for (let i = 0; i < m; i++) isPredicate[input.predicate[i]!] = 1;
  const predicateList: number[] = [];
  const predicateIndex = new Int32Array(entityCount).fill(-1);
  for (let d = 0; d < entityCount; d++) {
    if (isPredicate[d] === 0) continue;
    predicateIndex[d] = predicateList.length;
    predicateList.push(d);
  }
  const pIndex = input.predicate;
  for (let i = 0; i < m; i++) pIndex[i] = predicateIndex[pIndex[i]!]!;
  return Uint32Array.from(predicateList);
}

/**
 * The packed row's field widths, the one definition of them: subject and object at the entity
 * width, the predicate's index at the predicates' width; `rowBits` their sum.
 */
function rowLayout(entityCount: number, predicateCount: number): { sBits: number; pBits: number; rowBits: number } {
  const sBits = IntVector.widthFor(entityCount - 1);
  const pBits = IntVector.widthFor(predicateCount - 1);
  return { sBits, pBits, rowBits: 2 * sBits + pBits };
}

/** The rows packed in SPO order: subject, predicate index and object, each at its width, per row. */
function packRows(
  m: number,
  entityCount: number,
  predicateCount: number,
  subject: Uint32Array,
  spoP: Uint32Array,
  object: Uint32Array,
): Uint32Array {
  const { sBits, pBits, rowBits } = rowLayout(entityCount, predicateCount);
  const rows = finalArray(Uint32Array, Math.ceil((m * rowBits) / 32) + 2);
  for (let j = 0; j < m; j++) {
    const bit = j * rowBits;
    writeBits(rows, bit, sBits, subject[j]!);
    writeBits(rows, bit + sBits, pBits, spoP[j]!);
    writeBits(rows, bit + sBits + pBits, sBits, object[j]!);
  }
  return rows;
}

/** Sorts each run of one triple in `order` by fingerprint text (`fingerprintOf` given the run's triple too). */
function orderRunsByFingerprint(
  order: Uint32Array,
  s: Uint32Array,
  p: Uint32Array,
  o: Uint32Array,
  fingerprintOf: (row: number, s: number, p: number, o: number) => string,
): void {
  const m = order.length;
  let start = 0;
  for (let i = 1; i <= m; i++) {
    // s, p, o are in the order's positions: a run of one triple is a run of equal (s, p, o) here.
    if (i < m && s[start] === s[i] && p[start] === p[i] && o[start] === o[i]) continue;
    if (i - start > 1) {
      const [rs, rp, ro] = [s[start]!, p[start]!, o[start]!];
      const run = Array.from(order.subarray(start, i), (row) => [row, fingerprintOf(row, rs, rp, ro)] as const);
      run.sort((x, y) => (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0));
      order.set(
        run.map((x) => x[0]),
        start,
      );
    }
    start = i;
  }
}

/**
 * Every object's first OSP position, then M, from the rows (a graph opened from a format 5
 * snapshot, which kept only every 16th, when it is saved): the objects counted in one pass over the
 * rows, the counts summed as the sequence is built.
 */
function objectStartsOfRows(rows: Uint32Array, m: number, entityCount: number, predicateCount: number): EliasFano {
  const { sBits, rowBits } = rowLayout(entityCount, predicateCount);
  const counts = new Uint32Array(entityCount + 1);
  for (let j = 0; j < m; j++) {
    const o = readBits(rows, j * rowBits + rowBits - sBits, sBits);
    // A damaged row's object is out of range: left for check() to name; counted nowhere here.
    if (o < entityCount) counts[o]!++;
  }
  let sum = 0;
  return EliasFano.build(entityCount + 1, m, (o) => {
    const start = sum;
    sum += counts[o]!;
    return start;
  });
}

/** starts[k] = the first position whose key is >= k * OFFSET_SAMPLE, for k < count - 1; then m. */
function sampledStarts(m: number, count: number, keyAt: (j: number) => number): Uint32Array {
  const starts = new Uint32Array(count);
  let j = 0;
  for (let k = 0; k < count - 1; k++) {
    const bound = k * OFFSET_SAMPLE;
    while (j < m && keyAt(j) < bound) j++;
    starts[k] = j;
  }
  starts[count - 1] = m;
  return starts;
}
