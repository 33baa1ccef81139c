/**
 * Entity dictionary
 * =================
 * entityId -> dense integer id, over the entity table (entity-table.ts), which holds the entityIds
 * by dense id. Ids are assigned in entityId order (UTF-16 code units, JavaScript `<`), so comparing
 * two dense ids is comparing the two entityIds: the statement indexes sort integers and still give
 * the contract's string order.
 *
 * - `idOf`: an open-addressing hash table (linear probing, load MAX_LOAD) of dense ids, keyed by
 *   the entityId's 64-bit FNV-1a hash (the table's record keeps it): a filter resolves in about two
 *   probes instead of the twenty dependent string comparisons of a binary search over a million ids.
 *   A key's first slot is fmix32 of the hash's low half mapped onto the slots by fastRange
 *   (hash64.ts), so the table is sized to the entities exactly, ceil(n / MAX_LOAD) slots: 8 bytes
 *   an entity at any n, where rounding up to a power of two would cost 8 to 16 as n goes.
 * - `lowerBound`: binary search, which also places an entityId that is not (or no longer) in the
 *   graph: how a cursor resumes on a graph whose entities changed.
 *
 * Building (every open of a snapshot does it): entries are inserted in the order of their first
 * slot, bucket by bucket (a counting sort of the dense ids by the top bits of their mixed keys), so
 * the table is written in one sweep where each bucket's slots stay in the cache; inserting in
 * dense-id order made every insert a cache miss. Any insertion order gives a valid linear-probing
 * table; this one gives the same table every time.
 *
 * Cost: idOf O(1) expected (a hash of the string, about two table reads and one comparison);
 * lowerBound O(log n) comparisons. Build O(n): three passes, and two arrays of n words while
 * building (at 10M entities 0.3 s of CPU, where inserting in dense-id order took 0.46 into a
 * power-of-two table and 0.67 into an exact one). Space: 4 / MAX_LOAD = 8 bytes an entity (the
 * table). No serial form: the table is rebuilt from the stored hashes (a linear pass, cheaper
 * than storing it), except between threads of one process (serving/graph-transfer.ts), where
 * `table` hands it over as it is: the pass is a stall of a hundred milliseconds or more at a
 * million entities on the receiving side.
 */

import { fastRange, fmix32, hash64, hash64String, type Hash64 } from "../hash64.js";
import type { EntityTable } from "./entity-table.js";
import { finalArray } from "../array-slab.js";

/** Largest fraction of the table's slots in use. */
const MAX_LOAD = 0.5;
/**
 * The build's buckets: 2^BUCKET_BITS, each a run of 1/256 of the slots (312 KiB of table at 10M
 * entities, which stays in the cache while its entries go in). Fewer write streams for the sort
 * than 4 KiB buckets, and as fast (A/B at 10M: 2^8, 2^10 and 2^12 buckets within 10%).
 */
const BUCKET_BITS = 8;

/**
 * Ids up to which idsOf keeps its six working arrays for the next call (24 bytes an id: 1.5 MiB
 * here). A live graph's every batch calls it (30,000 ids for 10,000 statement puts): new arrays each
 * time were 720 KB of ArrayBuffers a batch, which V8 counts as external memory and answers with
 * collections of their own ("external memory pressure" in node --trace-gc). A larger call makes
 * its own arrays and keeps none (a 16 MiB batch must not leave tens of MB behind).
 */
const IDS_OF_KEPT_IDS = 65_536;

/** idsOf's working arrays, `capacity` words each. */
interface IdsOfWork {
  capacity: number;
  his: Uint32Array;
  los: Uint32Array;
  slots: Uint32Array;
  entries: Uint32Array;
  found: Uint32Array;
  todo: Int32Array;
}

function idsOfWork(capacity: number): IdsOfWork {
  return {
    capacity,
    his: new Uint32Array(capacity),
    los: new Uint32Array(capacity),
    slots: new Uint32Array(capacity),
    entries: new Uint32Array(capacity),
    found: new Uint32Array(capacity),
    todo: new Int32Array(capacity),
  };
}

export class Dictionary {
  readonly entities: EntityTable;
  /** Dense id + 1 per slot, 0 = empty; ceil(size / MAX_LOAD) slots (at least 2). */
  private readonly table: Uint32Array;
  private readonly scratch: Hash64 = [0, 0];
  /**
   * The last two entityIds looked up and their ids: a live graph resolves a statements query's
   * first filter, then its base resolves the same string again (a hit here, no hash and probe).
   */
  private recentKey0: string | undefined;
  private recentId0 = -1;
  private recentKey1: string | undefined;
  private recentId1 = -1;
  /** The entityIds touchKeys read ahead for and their hashes (hi, lo), which lookUp then takes. */
  private readonly aheadKeys: (string | undefined)[] = [undefined, undefined];
  private readonly aheadHashes = new Uint32Array(4);
  /** The entries of touchKeys' home slots (dense ids), handed to EntityTable.touch. */
  private readonly aheadIds = new Uint32Array(2);
  /** idsOf's working arrays, kept between calls of up to IDS_OF_KEPT_IDS ids (made on first need). */
  private idsOfKept: IdsOfWork | undefined;

  /**
   * The dictionary of the entityIds `entities` holds; `table`: the `table` of a dictionary of these
   * very entities (made in another thread), taken as it is.
   */
  constructor(entities: EntityTable, table?: Uint32Array) {
    this.entities = entities;
    // Each branch: a table handed over (its size checked against the one buildTable makes), or built.
    if (table !== undefined && table.length !== tableSize(entities.size))
      throw new Error(`Dictionary: a table of ${table.length} slots for ${entities.size} entities`);
    this.table = table ?? buildTable(entities);
  }

  /** The slots (shared, not copied): another thread's Dictionary of the same entities takes them. */
  get slots(): Uint32Array {
    return this.table;
  }

  get size(): number {
    return this.entities.size;
  }

  /** The entityId of dense id d. */
  entityId(d: number): string {
    return this.entities.entityId(d);
  }

  /** Whether dense id d (0 <= d < size) is `entityId`. */
  is(d: number, entityId: string): boolean {
    return this.entities.idEquals(d, entityId);
  }

  /** The dense id of `entityId`, or -1 when the graph has no such entity. */
  idOf(entityId: string): number {
    // Each branch: one of the last two looked up (the same string object compares in O(1)), or the table.
    if (entityId === this.recentKey0) return this.recentId0;
    if (entityId === this.recentKey1) return this.recentId1;
    const d = this.lookUp(entityId);
    this.recentKey1 = this.recentKey0;
    this.recentId1 = this.recentId0;
    this.recentKey0 = entityId;
    this.recentId0 = d;
    return d;
  }

  /**
   * Reads ahead for the idOf of two entityIds at once (a statements query's subject and object
   * filters): each one's hash and home slot, then the records of the entities found there and their
   * text (EntityTable.touch), each stage one short loop over the keys. One idOf is a chain of three
   * dependent misses (the slot, the record, the text), a few hundred ns apiece once the table and
   * the text are far larger than the cache (10M entities); two filters looked up one after the other
   * wait for six, read ahead together for three. The hashes are kept for the idOf calls that follow
   * (the last two keys: a later touchKeys replaces them). A key idOf would answer from its last two
   * (recentKey0/1) is skipped. Reads only: no answer depends on it.
   */
  touchKeys(a: string, b: string): void {
    const keys = this.aheadKeys;
    const hashes = this.aheadHashes;
    const ids = this.aheadIds;
    const table = this.table;
    const size = table.length;
    let m = 0;
    for (let i = 0; i < 2; i++) {
      const key = i === 0 ? a : b;
      // Each branch: one idOf answers without the table (no hash kept for it: the slot's hash is
      // another key's); else its hash is kept and its home slot read.
      if (key === this.recentKey0 || key === this.recentKey1) {
        keys[i] = undefined;
        continue;
      }
      keys[i] = key;
      const h = hash64([key], this.scratch);
      hashes[2 * i] = h[0];
      hashes[2 * i + 1] = h[1];
      const entry = table[homeSlot(h[1], size)]!;
      // An empty home slot: the key is not in the graph, and idOf finds that from the slot alone.
      if (entry !== 0) ids[m++] = entry - 1;
    }
    if (m > 0) this.entities.touch(ids, m);
  }

  private lookUp(entityId: string): number {
    const h = this.hashOf(entityId);
    const table = this.table;
    const entities = this.entities;
    const size = table.length;
    for (let slot = homeSlot(h[1], size); ; slot = slot + 1 === size ? 0 : slot + 1) {
      const entry = table[slot]!;
      if (entry === 0) return -1;
      const d = entry - 1;
      if (entities.hashLo(d) === h[1] && entities.hashHi(d) === h[0] && entities.idEquals(d, entityId)) return d;
    }
  }

  /** hash64 of `entityId`: the one touchKeys kept for it, else computed. */
  private hashOf(entityId: string): Hash64 {
    const keys = this.aheadKeys;
    // Each branch: a key touchKeys read ahead for (its hash kept), or one hashed now.
    for (let i = 0; i < 2; i++)
      if (keys[i] === entityId) {
        const h = this.scratch;
        h[0] = this.aheadHashes[2 * i]!;
        h[1] = this.aheadHashes[2 * i + 1]!;
        return h;
      }
    return hash64([entityId], this.scratch);
  }

  /**
   * The dense ids of `ids` into `out` (-1 for one the graph does not have): idOf for many at once,
   * in phases over all of them (every hash and first slot; then rounds, each reading the slot of
   * every id still unresolved, then the hash in the entity record found there, and stepping on past
   * another entity's; then the entityIds' text), so that the cache misses of different ids overlap
   * where one idOf waits for each of its own in turn. A round resolves about three ids in four at
   * load 1/2. Same answers as idOf (a 64-bit hash match whose text differs, practically never, goes
   * on to idOf); cost O(total length), six arrays of ids.length words (kept for the next call up to
   * IDS_OF_KEPT_IDS ids). `hashes`, when given (2 *
   * ids.length words), gets each id's hash64 (hi at 2i, lo at 2i + 1), found or not: what a derived
   * fingerprint is made of.
   */
  idsOf(ids: readonly string[], out: Int32Array, hashes?: Uint32Array): void {
    const n = ids.length;
    const table = this.table;
    const size = table.length;
    const entities = this.entities;
    // Each branch: a call within the kept size reuses the kept arrays, made or grown to the power
    // of two that holds it (every entry read below is written first in this call); a larger one
    // has arrays of its own.
    let work: IdsOfWork;
    if (n <= IDS_OF_KEPT_IDS) {
      if (this.idsOfKept === undefined || this.idsOfKept.capacity < n)
        this.idsOfKept = idsOfWork(Math.min(IDS_OF_KEPT_IDS, 2 ** Math.ceil(Math.log2(Math.max(n, 64)))));
      work = this.idsOfKept;
    } else work = idsOfWork(n);
    const { his, los, slots, entries, found, todo } = work;
    const h = this.scratch;
    for (let i = 0; i < n; i++) {
      hash64String(ids[i]!, h);
      his[i] = h[0];
      los[i] = h[1];
      if (hashes !== undefined) {
        hashes[2 * i] = h[0];
        hashes[2 * i + 1] = h[1];
      }
      slots[i] = homeSlot(h[1], size);
      todo[i] = i;
    }
    for (let count = n; count > 0; ) {
      // Two gathers with no branch in them (the slots, then their entities' hashes), so that their
      // misses overlap; the loop that decides reads what they fetched (a branch mispredicted there
      // would throw away the loads in flight behind it).
      for (let k = 0; k < count; k++) entries[k] = table[slots[todo[k]!]!]!;
      entities.hashLosOfEntries(entries, count, found);
      let next = 0;
      for (let k = 0; k < count; k++) {
        const i = todo[k]!;
        const entry = entries[k]!;
        // Each branch: an empty slot (absent: done), its entity's hash (a candidate), another's (the next slot, next round).
        if (entry === 0) out[i] = -1;
        else if (found[k] === los[i] && entities.hashHi(entry - 1) === his[i]) out[i] = entry - 1;
        else {
          const slot = slots[i]! + 1;
          slots[i] = slot === size ? 0 : slot;
          todo[next++] = i;
        }
      }
      count = next;
    }
    for (let i = 0; i < n; i++) {
      const d = out[i]!;
      // A candidate is checked by its text (a 64-bit hash can collide: idOf then probes on past it).
      if (d >= 0 && !entities.idEquals(d, ids[i]!)) out[i] = this.idOf(ids[i]!);
    }
  }

  /** The first dense id whose entityId is >= `entityId` (`size` when none). */
  lowerBound(entityId: string): number {
    let lo = 0;
    let hi = this.entities.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entities.compareId(mid, entityId) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Bytes held: the table (the entityIds are the entity table's). */
  get byteLength(): number {
    return this.table.byteLength;
  }
}

/** The first slot of a key whose hash has low half `lo`, in a table of `size` slots. */
function homeSlot(lo: number, size: number): number {
  return fastRange(fmix32(lo), size);
}

/** Slots for n entities: at least one more than entries, so every probe sequence meets an empty slot. */
function tableSize(n: number): number {
  return Math.max(2, Math.ceil(n / MAX_LOAD));
}

/** The hash table of dense ids, MAX_LOAD full, written bucket by bucket (see the banner). */
function buildTable(entities: EntityTable): Uint32Array {
  const n = entities.size;
  const size = tableSize(n);
  const table = finalArray(Uint32Array, size);
  // Counting sort of the dense ids by the top BUCKET_BITS of their mixed keys: fastRange keeps the
  // order of the mixes, so a bucket is a run of neighbouring home slots.
  // The mixes are computed twice (a sequential read of the records each time) rather than kept in
  // an array of n words: as fast, and that much less memory at the open's peak.
  const shift = 32 - BUCKET_BITS;
  const starts = new Uint32Array((1 << BUCKET_BITS) + 1);
  for (let d = 0; d < n; d++) starts[(fmix32(entities.hashLo(d)) >>> shift) + 1]!++;
  for (let b = 1; b < starts.length; b++) starts[b] = starts[b]! + starts[b - 1]!;
  const ids = new Uint32Array(n);
  const sorted = new Uint32Array(n);
  for (let d = 0; d < n; d++) {
    const mix = fmix32(entities.hashLo(d));
    const at = starts[mix >>> shift]!++;
    ids[at] = d;
    sorted[at] = mix;
  }
  for (let k = 0; k < n; k++) {
    let slot = fastRange(sorted[k]!, size);
    while (table[slot] !== 0) slot = slot + 1 === size ? 0 : slot + 1;
    table[slot] = ids[k]! + 1;
  }
  return table;
}
