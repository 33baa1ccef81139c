/**
 * Serial form of the engine's structures
 * ======================================
 * Every structure of a graph (the dictionary, the entity columns, the search and statement indexes
 * and what they are made of) gives its state as named typed arrays, small integers and string lists,
 * and restores itself from them, checking its own invariants: sucds's `Serializable`
 * (serialize_into / deserialize_from), in TypeScript. So a structure owns its serial form, and
 * whatever carries graphs (a snapshot file, a worker thread handing a graph to the main thread) only
 * moves named fields: adding a field to a structure touches that structure alone.
 *
 * The convention, for every structure:
 *
 *   serialize(w: SerialWriter): void                       // writes its fields, a nested
 *                                                           // structure under w.child("name")
 *   static deserialize(r: SerialReader, ...context): Self  // reads them back, checks, restores
 *
 * `context` is what a structure needs of others to check itself (the search index takes the entity
 * ids and types); the graph manifest (snapshot/graph-manifest.ts) passes it. Nothing else is shared.
 *
 * - `SerialWriter` collects fields. Names are `[A-Za-z0-9_-]+`; `child(name)` scopes a nested
 *   structure's fields under `name.` (a search index writes its wavelet matrix as `documents.levels`).
 *   `array(..., { transient: true })` marks an array the restored structure reads only while restoring
 *   (it becomes a Map, say): a file carrier puts it where memory is dropped after opening. A string
 *   list is always transient: the reader hands back new JS strings.
 * - `SerialReader` hands them back. A reader given fields it did not write (a damaged or foreign
 *   file) must never make a structure read outside an array or answer wrongly: every restore checks
 *   what it relies on and calls `corrupt(what)`, which throws the carrier's error (a snapshot's
 *   INVALID_SNAPSHOT naming the file), prefixed with the child path ("search.documents: ...").
 *   A missing field, or one of another kind, is `corrupt` too. `verify` false skips the checks that
 *   cost a pass over the data (recounting a bit vector, bounds of a column), for carriers that hand
 *   over arrays already checked (a worker thread that built or opened the graph); shape checks
 *   (lengths, widths, counts that agree) always run. A long pass that only reads what was stored
 *   goes through `verifyLater`: a reader with `defer` (a snapshot being opened) runs it after the
 *   restore, possibly on another thread (snapshot/read-thread.ts); any other runs it at once.
 *
 * `MemorySerialWriter` / `MemorySerialReader` keep the fields in a Map (arrays by reference, string
 * lists as arrays of strings): the in-memory carrier, for a worker thread (post the Map, transfer
 * `transferables()`, read it with verify false) and for tests that round-trip one structure.
 *
 * Cost: the protocol copies nothing; what a carrier does with the fields is its own cost.
 */

export type SerialArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

export interface ArrayOptions {
  /** Read only while restoring, never kept by the restored structure. */
  transient?: boolean;
}

export interface SerialWriter {
  /** A typed array, stored as it lies in memory (the writer keeps a reference, not a copy). */
  array(name: string, value: SerialArray, options?: ArrayOptions): void;
  /** A non-negative safe integer (a count, a width). */
  integer(name: string, value: number): void;
  /** A short string (a digest, a version). */
  text(name: string, value: string): void;
  /** A list of strings, any code units (lone surrogates included). Transient. */
  strings(name: string, list: readonly string[]): void;
  /** A writer for a nested structure's fields, under `name.`. */
  child(name: string): SerialWriter;
}

export interface SerialReader {
  uint8(name: string): Uint8Array;
  uint16(name: string): Uint16Array;
  uint32(name: string): Uint32Array;
  int32(name: string): Int32Array;
  float64(name: string): Float64Array;
  integer(name: string): number;
  text(name: string): string;
  strings(name: string): string[];
  /** A reader for a nested structure's fields, under `name.`. */
  child(name: string): SerialReader;
  /** Whether a field `name` is there (for a field a format may leave out). */
  has(name: string): boolean;
  /** Whether restores must run their full (linear-time) invariant checks. */
  readonly verify: boolean;
  /** Throws the carrier's corruption error; `what` says what is wrong, in words. */
  corrupt(what: string): never;
  /**
   * Takes a verify pass to run later (before the restored graph is handed out), by its full name
   * (this reader's path + `name`), so that a carrier with a second thread can run it there
   * (snapshot/read-thread.ts). A reader without it runs checks at once (`verifyLater`).
   */
  defer?(name: string, check: () => void): void;
}

/**
 * Runs `check`, a pass of `r.verify`'s, now or later (r.defer): a pass that only reads what was
 * stored and throws `r.corrupt`, whose outcome no restore step depends on.
 */
export function verifyLater(r: SerialReader, name: string, check: () => void): void {
  if (r.defer === undefined) check();
  else r.defer(name, check);
}

/** One segment of a field name; a full name is segments joined by ".". */
const NAME_SEGMENT = /^[A-Za-z0-9_-]+$/;

/** Throws (a bug in a structure, not bad input) unless `name` is a valid segment. */
export function checkFieldName(name: string): void {
  if (!NAME_SEGMENT.test(name)) throw new Error(`serial field name ${JSON.stringify(name)} is not [A-Za-z0-9_-]+`);
}

/** Throws the reader's corruption error unless `values` has `expected` elements; `why` says why it should. */
export function checkLength(
  r: SerialReader,
  name: string,
  values: ArrayLike<unknown>,
  expected: number,
  why: string,
): void {
  if (values.length !== expected) r.corrupt(`${name} has ${values.length} elements, expected ${expected} (${why})`);
}

/** Throws the reader's corruption error unless every value is below `limit`. One pass, about 10 ms per 10M. */
export function checkBelow(r: SerialReader, name: string, values: Uint32Array, limit: number, why: string): void {
  let max = -1;
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!;
  if (max >= limit) r.corrupt(`${name} holds ${max}, not below ${limit} (${why})`);
}

export type SerialField = SerialArray | number | string | readonly string[];

/** Collects fields in a Map, in the order they were written. */
export class MemorySerialWriter implements SerialWriter {
  readonly fields: Map<string, SerialField>;
  private readonly prefix: string;

  constructor(fields: Map<string, SerialField> = new Map(), prefix = "") {
    this.fields = fields;
    this.prefix = prefix;
  }

  array(name: string, value: SerialArray, _options?: ArrayOptions): void {
    this.put(name, value);
  }

  integer(name: string, value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`serial integer ${name} = ${value}`);
    this.put(name, value);
  }

  text(name: string, value: string): void {
    this.put(name, value);
  }

  strings(name: string, list: readonly string[]): void {
    this.put(name, list);
  }

  child(name: string): SerialWriter {
    checkFieldName(name);
    return new MemorySerialWriter(this.fields, `${this.prefix}${name}.`);
  }

  /**
   * The distinct buffers under the arrays: the transfer list for postMessage(fields, transferables()).
   * Transferring detaches them: the sending side's graph is unusable afterwards. Every buffer of a
   * graph from GraphBuilder or openSnapshot is its own (no pooled Buffer memory shared with others).
   */
  transferables(): ArrayBuffer[] {
    const buffers = new Set<ArrayBuffer>();
    for (const v of this.fields.values()) {
      // Only typed arrays have buffers; a SharedArrayBuffer is shared, never transferred.
      if (ArrayBuffer.isView(v) && v.buffer instanceof ArrayBuffer) buffers.add(v.buffer);
    }
    return [...buffers];
  }

  private put(name: string, value: SerialField): void {
    checkFieldName(name);
    const key = this.prefix + name;
    // Two fields of one name would make the second overwrite the first: a bug in a structure.
    if (this.fields.has(key)) throw new Error(`serial field ${key} written twice`);
    this.fields.set(key, value);
  }
}

/** Reads fields from a Map; `fail` builds the error `corrupt` throws. */
export class MemorySerialReader implements SerialReader {
  readonly verify: boolean;
  private readonly fields: ReadonlyMap<string, SerialField>;
  private readonly prefix: string;
  private readonly fail: (what: string) => Error;

  constructor(
    fields: ReadonlyMap<string, SerialField>,
    options: { verify?: boolean; fail?: (what: string) => Error; prefix?: string } = {},
  ) {
    this.fields = fields;
    this.verify = options.verify ?? true;
    this.fail = options.fail ?? ((what) => new Error(`corrupt serial form: ${what}`));
    this.prefix = options.prefix ?? "";
  }

  uint8(name: string): Uint8Array {
    return this.typed(name, Uint8Array);
  }
  uint16(name: string): Uint16Array {
    return this.typed(name, Uint16Array);
  }
  uint32(name: string): Uint32Array {
    return this.typed(name, Uint32Array);
  }
  int32(name: string): Int32Array {
    return this.typed(name, Int32Array);
  }
  float64(name: string): Float64Array {
    return this.typed(name, Float64Array);
  }

  integer(name: string): number {
    const v = this.fields.get(this.prefix + name);
    if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0)
      this.corrupt(`${name} is missing or not an integer`);
    return v;
  }

  text(name: string): string {
    const v = this.fields.get(this.prefix + name);
    if (typeof v !== "string") this.corrupt(`${name} is missing or not a string`);
    return v;
  }

  strings(name: string): string[] {
    const v = this.fields.get(this.prefix + name);
    if (!Array.isArray(v)) this.corrupt(`${name} is missing or not a list of strings`);
    // Checking every element is a pass over the list: only when asked to verify.
    if (this.verify && !v.every((s) => typeof s === "string"))
      this.corrupt(`${name} holds a value that is not a string`);
    return v as string[];
  }

  has(name: string): boolean {
    return this.fields.has(this.prefix + name);
  }

  child(name: string): SerialReader {
    return new MemorySerialReader(this.fields, {
      verify: this.verify,
      fail: this.fail,
      prefix: `${this.prefix}${name}.`,
    });
  }

  corrupt(what: string): never {
    throw this.fail(this.prefix === "" ? what : `${this.prefix.slice(0, -1)}: ${what}`);
  }

  private typed<T extends SerialArray>(name: string, type: new (length: number) => T): T {
    const v = this.fields.get(this.prefix + name);
    if (!(v instanceof type)) this.corrupt(`${name} is missing or not a ${type.name}`);
    return v as T;
  }
}
