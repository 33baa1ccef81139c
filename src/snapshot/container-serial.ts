/**
 * The serial protocol over a snapshot container
 * =============================================
 * `ContainerWriter` and `ContainerReader` are the snapshot file's SerialWriter and SerialReader
 * (engine/serial.ts): each field a structure writes becomes one section of the container, named by
 * its full path ("search.documents.levels"); a string list becomes two transient sections,
 * `NAME.offsets` and `NAME.text` (string-list.ts). Reading hands back views on the file's bytes, and
 * turns every problem into INVALID_SNAPSHOT "<file>: <structure path>: <what>; the file is
 * corrupted". The reader remembers which sections were read, so the caller can refuse a file with
 * sections nobody reads (`unread`): a section this Quiver does not know is damage, since any change
 * of what is stored bumps the format version.
 *
 * Cost: nothing beyond the container's and the string codec's.
 */

import { QuiverError } from "../engine/errors.js";
import {
  checkFieldName,
  type ArrayOptions,
  type SerialArray,
  type SerialReader,
  type SerialWriter,
} from "../engine/serial.js";
import type { ArrayKind, SectionInput, SectionValue } from "./container.js";
import { decodeStringList, encodeStringList, stringListProblem } from "./string-list.js";

/** Collects sections for encodeContainer. */
export class ContainerWriter implements SerialWriter {
  readonly sections: SectionInput[];
  private readonly prefix: string;

  constructor(sections: SectionInput[] = [], prefix = "") {
    this.sections = sections;
    this.prefix = prefix;
  }

  array(name: string, value: SerialArray, options: ArrayOptions = {}): void {
    this.sections.push({
      name: this.path(name),
      kind: kindOf(value),
      data: value,
      transient: options.transient === true,
    });
  }

  integer(name: string, value: number): void {
    this.sections.push({ name: this.path(name), kind: "integer", value });
  }

  text(name: string, value: string): void {
    this.sections.push({ name: this.path(name), kind: "text", value });
  }

  strings(name: string, list: readonly string[]): void {
    const { offsets, blob } = encodeStringList(list);
    const base = this.path(name);
    this.sections.push({ name: `${base}.offsets`, kind: "u32", data: offsets, transient: true });
    this.sections.push({ name: `${base}.text`, kind: kindOf(blob), data: blob, transient: true });
  }

  child(name: string): SerialWriter {
    return new ContainerWriter(this.sections, `${this.path(name)}.`);
  }

  private path(name: string): string {
    checkFieldName(name);
    return this.prefix + name;
  }
}

export interface ContainerReaderOptions {
  /** Named in every error. */
  fileName: string;
  verify?: boolean;
  /** Called with a section's full name before it is handed out: blocks until its bytes are in (openContainer's `ready`). */
  ready?: ((name: string) => void) | undefined;
  /** Collect the verify passes structures defer (SerialReader.defer) for `deferredChecks`, instead of running them at once. */
  deferChecks?: boolean | undefined;
}

/**
 * Another thread's side of the deferred verify passes (read-thread.ts): it runs the passes it knows
 * (graph-manifest's STORED_CHECKS) over the same bytes once it has read them.
 */
export interface CheckHelper {
  /** The names it knows, in the order it runs them. */
  readonly checks: readonly string[];
  /** True when this thread takes check k (the helper has not started it); false: the helper has it. */
  claim(k: number): boolean;
  /** Blocks until the helper's run of check k ends; throws what it threw. */
  verdict(k: number): void;
}

/** A verify pass a structure deferred, by its full name ("entities.verify"). */
export interface DeferredCheck {
  name: string;
  check: () => void;
}

/** Reads the sections of an opened container (openContainer's `values`). */
export class ContainerReader implements SerialReader {
  readonly verify: boolean;
  private readonly values: ReadonlyMap<string, SectionValue>;
  private readonly fileName: string;
  private readonly ready: ((name: string) => void) | undefined;
  private readonly prefix: string;
  /** Names read so far, shared by a reader and its children. */
  private readonly read: Set<string>;
  /** Deferred verify passes (with `deferChecks`), shared by a reader and its children. */
  private readonly deferred: DeferredCheck[] | undefined;

  constructor(
    values: ReadonlyMap<string, SectionValue>,
    options: ContainerReaderOptions,
    prefix = "",
    read = new Set<string>(),
    deferred: DeferredCheck[] | undefined = options.deferChecks === true ? [] : undefined,
  ) {
    this.values = values;
    this.fileName = options.fileName;
    this.verify = options.verify ?? true;
    this.ready = options.ready;
    this.prefix = prefix;
    this.read = read;
    this.deferred = deferred;
    // Only a reader that collects them takes passes to run later (see SerialReader.defer).
    if (deferred !== undefined) this.defer = (name, check) => deferred.push({ name: this.prefix + name, check });
  }

  defer?: (name: string, check: () => void) => void;

  /** The verify passes deferred so far, in the order they were (with `deferChecks`). */
  deferredChecks(): readonly DeferredCheck[] {
    return this.deferred ?? [];
  }

  uint8(name: string): Uint8Array {
    return this.typed(name, Uint8Array, "u8");
  }
  uint16(name: string): Uint16Array {
    return this.typed(name, Uint16Array, "u16");
  }
  uint32(name: string): Uint32Array {
    return this.typed(name, Uint32Array, "u32");
  }
  int32(name: string): Int32Array {
    return this.typed(name, Int32Array, "i32");
  }
  float64(name: string): Float64Array {
    return this.typed(name, Float64Array, "f64");
  }

  integer(name: string): number {
    const v = this.take(name);
    if (typeof v !== "number") this.corrupt(`${name} is not an integer`);
    return v;
  }

  text(name: string): string {
    const v = this.take(name);
    if (typeof v !== "string") this.corrupt(`${name} is not a text`);
    return v;
  }

  strings(name: string): string[] {
    const offsets = this.uint32(`${name}.offsets`);
    const blob = this.take(`${name}.text`);
    // Each branch: Latin-1 (one byte a code unit) or UTF-16; nothing else is a string blob.
    if (!(blob instanceof Uint8Array || blob instanceof Uint16Array))
      this.corrupt(`${name}.text is not a u8 or u16 array`);
    const problem = stringListProblem(offsets, blob);
    if (problem !== undefined) this.corrupt(`${name}: ${problem}`);
    return decodeStringList(offsets, blob);
  }

  has(name: string): boolean {
    return this.values.has(this.prefix + name);
  }

  child(name: string): SerialReader {
    return new ContainerReader(
      this.values,
      { fileName: this.fileName, verify: this.verify, ready: this.ready },
      `${this.prefix}${name}.`,
      this.read,
      this.deferred,
    );
  }

  corrupt(what: string): never {
    const where = this.prefix === "" ? "" : `${this.prefix.slice(0, -1)}: `;
    throw new QuiverError("INVALID_SNAPSHOT", `${this.fileName}: ${where}${what}; the file is corrupted`);
  }

  /** The sections no reader has read yet, in name order. */
  unread(): string[] {
    return [...this.values.keys()].filter((k) => !this.read.has(k)).sort();
  }

  private take(name: string): SectionValue {
    const key = this.prefix + name;
    const v = this.values.get(key);
    if (v === undefined) this.corrupt(`section ${key} is missing`);
    this.ready?.(key);
    this.read.add(key);
    return v;
  }

  private typed<T extends SerialArray>(name: string, type: new (length: number) => T, kind: ArrayKind): T {
    const v = this.take(name);
    if (!(v instanceof type)) this.corrupt(`${name} is not a ${kind} array`);
    return v as T;
  }
}

/** The section kind of a typed array. */
function kindOf(value: SerialArray): ArrayKind {
  if (value instanceof Uint8Array) return "u8";
  if (value instanceof Uint16Array) return "u16";
  if (value instanceof Uint32Array) return "u32";
  if (value instanceof Int32Array) return "i32";
  return "f64";
}
