/**
 * Graph builder
 * =============
 * Collects entities and statements (objects in the contract's input format), validates each as it
 * arrives, and builds the immutable Graph once. Every rejected item is a QuiverError whose message
 * starts with `file:line: ` when the caller says where the item came from; nothing half-built is
 * ever returned.
 *
 * Checks, in CONTRACT.md's words: a missing or mistyped field, a type outside "0".."7", a duplicate
 * entityId (at add time, against a Map of the ids), a statement naming an unknown entity (at add
 * time: entities come first), two different statements with one fingerprint (at build time for
 * 16-hex-digit fingerprints, found by one radix sort of the fingerprints rather than a Map of
 * millions of strings; at add time for any other text). The same statement given twice is kept once.
 *
 * Growing columns are mnemonist typed vectors, so a statement costs a few words while loading.
 * build(): sort entityIds (dense ids), fold identifiers and build the search index, remap the
 * statements to dense ids and build the statement index. Cost O(n log n) for the entities, linear
 * passes for the statements.
 */

import { Uint32Vector, Uint8Vector } from "mnemonist";
import { Dictionary } from "./dictionary.js";
import { EntityColumns } from "./entity-columns.js";
import { dataError, type QuiverErrorCode, type SourcePosition } from "./errors.js";
import { FingerprintColumn } from "./fingerprint-column.js";
import { deriveFingerprint, hexFingerprintHi, hexFingerprintLo, isHexFingerprint } from "./fingerprint.js";
import { fold } from "./fold.js";
import { quote } from "./quote.js";
import { Graph, type GraphOptions } from "./graph.js";
import { SearchIndex } from "./search-index.js";
import { StatementIndex } from "./statement-index.js";
import { ENTITY_TYPES } from "./types.js";

export type GraphBuilderOptions = GraphOptions;

export type BuildPhase = "sort-entities" | "search-index" | "statement-index";

export interface BuildOptions {
  onProgress?: (phase: BuildPhase, done: number, total: number) => void;
}

const NO_FILE = 0xffff;
/** Room reserved up front in the statement columns (they grow by doubling past it). */
const INITIAL_CAPACITY = 1024;

export class GraphBuilder {
  private readonly options: GraphBuilderOptions;
  private readonly entityIndex = new Map<string, number>();
  private readonly entityIds: string[] = [];
  private readonly rawIdentifiers: string[] = [];
  private readonly types = new Uint8Vector(INITIAL_CAPACITY);
  private readonly sourceTypeIndex = new Uint32Vector(INITIAL_CAPACITY);
  private readonly sourceTypes: string[] = [];
  private readonly sourceTypeIds = new Map<string, number>();
  private readonly entitySource = new SourceColumn();

  private readonly subject = new Uint32Vector(INITIAL_CAPACITY);
  private readonly predicate = new Uint32Vector(INITIAL_CAPACITY);
  private readonly object = new Uint32Vector(INITIAL_CAPACITY);
  private readonly fpHi = new Uint32Vector(INITIAL_CAPACITY);
  private readonly fpLo = new Uint32Vector(INITIAL_CAPACITY);
  /** Fingerprints that are not 16 lowercase hex digits: row -> text, and text -> row. */
  private readonly fpText = new Map<number, string>();
  private readonly fpTextRows = new Map<string, number>();
  private readonly statementSource = new SourceColumn();
  private built = false;

  constructor(options: GraphBuilderOptions = {}) {
    this.options = options;
  }

  get entityCount(): number {
    return this.entityIds.length;
  }

  /** Statements added so far (exact duplicates with a 16-hex fingerprint are dropped at build). */
  get statementCount(): number {
    return this.subject.length;
  }

  addEntity(entity: unknown, source?: SourcePosition): void {
    this.checkOpen();
    const e = asObject(entity, source);
    const entityId = field(e, "entityId", source, true);
    const rawIdentifier = field(e, "rawIdentifier", source, false);
    const type = field(e, "type", source, false);
    const sourceType = field(e, "sourceType", source, false);
    const t = (ENTITY_TYPES as readonly string[]).indexOf(type);
    if (t < 0) throw dataError("INVALID_DATA", `field "type" must be one of "0" to "7", got ${quote(type)}`, source);
    const previous = this.entityIndex.get(entityId);
    if (previous !== undefined) {
      throw dataError(
        "DUPLICATE_ENTITY",
        `entityId ${quote(entityId)} is already defined${this.entitySource.describe(previous, " at ")}`,
        source,
      );
    }
    let st = this.sourceTypeIds.get(sourceType);
    if (st === undefined) {
      st = this.sourceTypes.length;
      this.sourceTypes.push(sourceType);
      this.sourceTypeIds.set(sourceType, st);
    }
    this.entityIndex.set(entityId, this.entityIds.length);
    this.entityIds.push(entityId);
    this.rawIdentifiers.push(rawIdentifier);
    this.types.push(t);
    this.sourceTypeIndex.push(st);
    this.entitySource.push(source);
  }

  addStatement(statement: unknown, source?: SourcePosition): void {
    this.checkOpen();
    const st = asObject(statement, source);
    const subjectId = field(st, "subjectEntityId", source, true);
    const predicateId = field(st, "predicateEntityId", source, true);
    const objectId = field(st, "objectEntityId", source, true);
    let fingerprint: string;
    if (st["statementFingerprint"] === undefined) fingerprint = deriveFingerprint(subjectId, predicateId, objectId);
    else fingerprint = field(st, "statementFingerprint", source, true);
    const s = this.entityRef(subjectId, "subjectEntityId", source);
    const p = this.entityRef(predicateId, "predicateEntityId", source);
    const o = this.entityRef(objectId, "objectEntityId", source);
    const row = this.subject.length;
    if (isHexFingerprint(fingerprint)) {
      this.fpHi.push(hexFingerprintHi(fingerprint));
      this.fpLo.push(hexFingerprintLo(fingerprint));
    } else {
      // Rare: any other fingerprint text is checked for conflicts right away, against a small Map.
      const other = this.fpTextRows.get(fingerprint);
      if (other !== undefined) {
        if (this.sameTriple(other, s, p, o)) return;
        throw this.conflict(fingerprint, other, source);
      }
      this.fpText.set(row, fingerprint);
      this.fpTextRows.set(fingerprint, row);
      this.fpHi.push(0);
      this.fpLo.push(0);
    }
    this.subject.push(s);
    this.predicate.push(p);
    this.object.push(o);
    this.statementSource.push(source);
  }

  /** Builds the graph. The builder cannot be used afterwards. */
  build(options: BuildOptions = {}): Graph {
    this.checkOpen();
    this.built = true;
    const progress = options.onProgress;
    const n = this.entityIds.length;

    // Dense ids: entities in entityId order (JavaScript `<`, UTF-16 code units).
    progress?.("sort-entities", 0, 1);
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => {
      const x = this.entityIds[a] as string;
      const y = this.entityIds[b] as string;
      return x < y ? -1 : 1;
    });
    const denseOf = new Uint32Array(n);
    for (let d = 0; d < n; d++) denseOf[order[d] as number] = d;
    const entityIds = order.map((i) => this.entityIds[i] as string);
    const rawIdentifiers = order.map((i) => this.rawIdentifiers[i] as string);
    const types = new Uint8Array(n);
    const sourceTypeIndex = new Uint32Array(n);
    for (let d = 0; d < n; d++) {
      const i = order[d] as number;
      types[d] = this.types.get(i);
      sourceTypeIndex[d] = this.sourceTypeIndex.get(i);
    }
    progress?.("sort-entities", 1, 1);

    const folded = rawIdentifiers.map(fold);
    const searchIndex = SearchIndex.build(folded, types, entityIds, (done, total) =>
      progress?.("search-index", done, total),
    );

    const keep = this.checkFingerprints();
    const m = keep.length;
    const subject = new Uint32Array(m);
    const predicate = new Uint32Array(m);
    const object = new Uint32Array(m);
    const hi = new Uint32Array(m);
    const lo = new Uint32Array(m);
    const text = new Map<number, string>();
    for (let j = 0; j < m; j++) {
      const row = keep[j] as number;
      subject[j] = denseOf[this.subject.get(row)] as number;
      predicate[j] = denseOf[this.predicate.get(row)] as number;
      object[j] = denseOf[this.object.get(row)] as number;
      hi[j] = this.fpHi.get(row);
      lo[j] = this.fpLo.get(row);
      const t = this.fpText.get(row);
      if (t !== undefined) text.set(j, t);
    }
    const statementIndex = StatementIndex.build(
      { subject, predicate, object, fingerprints: new FingerprintColumn(hi, lo, text) },
      n,
      (done, total) => progress?.("statement-index", done, total),
    );
    return new Graph(
      {
        dictionary: new Dictionary(entityIds),
        entities: new EntityColumns(rawIdentifiers, types, sourceTypeIndex, this.sourceTypes.slice()),
        searchIndex,
        statementIndex,
      },
      this.options,
    );
  }

  /**
   * Rows to keep: drops exact duplicates (same triple, same fingerprint) and throws on two different
   * triples sharing a 16-hex fingerprint, naming the later line. Radix sort of rows by (hi, lo).
   */
  private checkFingerprints(): Uint32Array {
    const m = this.subject.length;
    // Rows with a text fingerprint were checked at add time; their (0, 0) placeholder must not meet
    // a real "0000000000000000" here.
    const rows = new Uint32Array(m - this.fpText.size);
    for (let i = 0, j = 0; i < m; i++) if (!this.fpText.has(i)) rows[j++] = i;
    const count = rows.length;
    const hi = backingArray(this.fpHi);
    const lo = backingArray(this.fpLo);
    let sorted = rows;
    let scratch = new Uint32Array(count);
    const counts = new Uint32Array(0x10001);
    for (const [column, shift] of [
      [lo, 0],
      [lo, 16],
      [hi, 0],
      [hi, 16],
    ] as const) {
      counts.fill(0);
      for (let i = 0; i < count; i++)
        (counts[(((column[sorted[i] as number] as number) >>> shift) & 0xffff) + 1] as number)++;
      for (let k = 1; k < counts.length; k++) counts[k] = (counts[k] as number) + (counts[k - 1] as number);
      for (let i = 0; i < count; i++) {
        const row = sorted[i] as number;
        const k = ((column[row] as number) >>> shift) & 0xffff;
        scratch[counts[k] as number] = row;
        counts[k] = (counts[k] as number) + 1;
      }
      [sorted, scratch] = [scratch, sorted];
    }
    const drop = new Uint8Array(m);
    let dropped = 0;
    // Equal fingerprints are now adjacent, in row (= input) order within a run: the stable sort kept it.
    for (let i = 1; i < count; i++) {
      const a = sorted[i - 1] as number;
      const b = sorted[i] as number;
      if (hi[a] !== hi[b] || lo[a] !== lo[b]) continue;
      let first = a;
      // Walk back to the first row of the run, which is the one kept.
      for (let j = i - 1; j >= 0 && hi[sorted[j] as number] === hi[b] && lo[sorted[j] as number] === lo[b]; j--)
        first = sorted[j] as number;
      if (!this.sameTriple(first, this.subject.get(b), this.predicate.get(b), this.object.get(b))) {
        throw this.conflict(this.fingerprintText(b), first, this.statementSource.position(b));
      }
      drop[b] = 1;
      dropped++;
    }
    const keep = new Uint32Array(m - dropped);
    for (let i = 0, j = 0; i < m; i++) if (drop[i] === 0) keep[j++] = i;
    return keep;
  }

  private fingerprintText(row: number): string {
    return (
      this.fpText.get(row) ??
      (this.fpHi.get(row) >>> 0).toString(16).padStart(8, "0") +
        (this.fpLo.get(row) >>> 0).toString(16).padStart(8, "0")
    );
  }

  private sameTriple(row: number, s: number, p: number, o: number): boolean {
    return this.subject.get(row) === s && this.predicate.get(row) === p && this.object.get(row) === o;
  }

  private conflict(fingerprint: string, other: number, source: SourcePosition | undefined) {
    return dataError(
      "FINGERPRINT_CONFLICT",
      `statementFingerprint ${quote(fingerprint)} is already used by a different statement${this.statementSource.describe(other, " at ")}`,
      source,
    );
  }

  private entityRef(entityId: string, name: string, source: SourcePosition | undefined): number {
    const i = this.entityIndex.get(entityId);
    if (i === undefined) {
      throw dataError(
        "UNKNOWN_ENTITY",
        `${name} ${quote(entityId)} names no entity; load the entities before the statements that name them`,
        source,
      );
    }
    return i;
  }

  private checkOpen(): void {
    if (this.built) throw new Error("GraphBuilder: build() was already called; make a new builder");
  }
}

/** Where each item came from, as a file-table index and a line number: 6 bytes an item. */
class SourceColumn {
  private readonly files: string[] = [];
  private readonly fileIds = new Map<string, number>();
  private readonly file = new Uint32Vector(INITIAL_CAPACITY);
  private readonly line = new Uint32Vector(INITIAL_CAPACITY);

  push(source: SourcePosition | undefined): void {
    if (source === undefined) {
      this.file.push(NO_FILE);
      this.line.push(0);
      return;
    }
    let f = this.fileIds.get(source.file);
    if (f === undefined) {
      f = this.files.length;
      this.files.push(source.file);
      this.fileIds.set(source.file, f);
    }
    this.file.push(f);
    this.line.push(source.line);
  }

  position(i: number): SourcePosition | undefined {
    const f = this.file.get(i);
    return f === NO_FILE ? undefined : { file: this.files[f] as string, line: this.line.get(i) };
  }

  describe(i: number, prefix: string): string {
    const p = this.position(i);
    return p === undefined ? "" : `${prefix}${p.file}:${p.line}`;
  }
}

/** A vector's storage (its first `length` slots are the values); mnemonist's typings leave it out. */
function backingArray(v: Uint32Vector): Uint32Array {
  return (v as unknown as { array: Uint32Array }).array;
}

function asObject(value: unknown, source: SourcePosition | undefined): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw dataError(
      "INVALID_DATA",
      `expected a JSON object, got ${value === null ? "null" : Array.isArray(value) ? "an array" : typeof value}`,
      source,
    );
  }
  return value as Record<string, unknown>;
}

function field(
  obj: Record<string, unknown>,
  name: string,
  source: SourcePosition | undefined,
  nonEmpty: boolean,
): string {
  const v = obj[name];
  const code: QuiverErrorCode = "INVALID_DATA";
  if (v === undefined) throw dataError(code, `missing field "${name}"`, source);
  if (typeof v !== "string")
    throw dataError(code, `field "${name}" must be a string, got ${v === null ? "null" : typeof v}`, source);
  if (nonEmpty && v.length === 0) throw dataError(code, `field "${name}" must not be empty`, source);
  return v;
}
