/**
 * Serial form of the engine's structures
 * ======================================
 * Every structure of a graph (the string lists, the wavelet matrices, the search and statement
 * indexes...) gives its state as named typed arrays and small integers, and restores itself from
 * them, checking its own invariants: sucds's `Serializable` (serialize_into / deserialize_from),
 * in TypeScript. So a structure owns its serial form, and whatever carries graphs (a snapshot file,
 * a worker thread handing a graph to the main thread) only moves named arrays: adding a field to a
 * structure touches that structure alone.
 *
 * - `SerialWriter` collects fields; `child(name)` scopes a nested structure's fields under
 *   `name.` (so a search index writes its wavelet matrix as `documents.levels`, say).
 * - `SerialReader` hands them back. A reader given bytes it did not write (a damaged or foreign
 *   file) must never make a structure read outside an array or answer wrongly: every restore
 *   checks what it relies on and calls `corrupt(what)`, which throws the carrier's error (a
 *   snapshot's INVALID_SNAPSHOT naming the file). `verify` false skips the checks that cost a pass
 *   over the data (recounting a bit vector, say), for carriers that already checked the same
 *   arrays (a worker thread that opened a snapshot); shape checks (lengths, widths) always run.
 *
 * `MemorySerialWriter` / `MemorySerialReader` keep the fields in a Map: the in-memory carrier, and
 * what tests use to round-trip a structure.
 */

export type SerialArray = Uint8Array | Uint16Array | Uint32Array | Int32Array | Float64Array;

/** The element kinds a serial array may have, by name. */
export type SerialKind = "u8" | "u16" | "u32" | "i32" | "f64";

export interface SerialWriter {
  /** A typed array, stored as it lies in memory (the writer keeps a reference, not a copy). */
  array(name: string, value: SerialArray): void;
  /** A non-negative safe integer (a count, a width). */
  integer(name: string, value: number): void;
  /** A short string (a digest, a tag). */
  text(name: string, value: string): void;
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
  /** A reader for a nested structure's fields, under `name.`. */
  child(name: string): SerialReader;
  /** Whether restores must run their full (linear-time) invariant checks. */
  readonly verify: boolean;
  /** Throws the carrier's corruption error; `what` says what is wrong, in words. */
  corrupt(what: string): never;
}

/** The kind of a typed array. */
export function kindOf(value: SerialArray): SerialKind {
  if (value instanceof Uint8Array) return "u8";
  if (value instanceof Uint16Array) return "u16";
  if (value instanceof Uint32Array) return "u32";
  if (value instanceof Int32Array) return "i32";
  return "f64";
}

export type SerialField = SerialArray | number | string;

/** Collects fields in a Map, in the order they were written. */
export class MemorySerialWriter implements SerialWriter {
  readonly fields: Map<string, SerialField>;
  private readonly prefix: string;

  constructor(fields: Map<string, SerialField> = new Map(), prefix = "") {
    this.fields = fields;
    this.prefix = prefix;
  }

  array(name: string, value: SerialArray): void {
    this.put(name, value);
  }

  integer(name: string, value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`serial integer ${name} = ${value}`);
    this.put(name, value);
  }

  text(name: string, value: string): void {
    this.put(name, value);
  }

  child(name: string): SerialWriter {
    return new MemorySerialWriter(this.fields, `${this.prefix}${name}.`);
  }

  private put(name: string, value: SerialField): void {
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
    if (typeof v !== "number") this.corrupt(`${this.prefix}${name} is missing or not an integer`);
    return v;
  }

  text(name: string): string {
    const v = this.fields.get(this.prefix + name);
    if (typeof v !== "string") this.corrupt(`${this.prefix}${name} is missing or not a string`);
    return v;
  }

  child(name: string): SerialReader {
    return new MemorySerialReader(this.fields, {
      verify: this.verify,
      fail: this.fail,
      prefix: `${this.prefix}${name}.`,
    });
  }

  corrupt(what: string): never {
    throw this.fail(what);
  }

  private typed<T extends SerialArray>(name: string, type: new (length: number) => T): T {
    const v = this.fields.get(this.prefix + name);
    if (!(v instanceof type)) this.corrupt(`${this.prefix}${name} is missing or not a ${type.name}`);
    return v as T;
  }
}
