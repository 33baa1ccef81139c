/**
 * Test oracle for the engine
 * ==========================
 * A brute-force reading of CONTRACT.md, written from the contract text alone, for the property tests
 * of graph.test.ts and cursor.test.ts:
 *  - `mulberry32` / `Rng`: a tiny seeded PRNG, so every failure names a seed that replays it.
 *  - `generateGraph`: random graphs whose identifiers exercise every case of "Case and Unicode"
 *    (dotted I, sharp s, final sigma, ligatures, full-width forms, combining marks, accents kept,
 *    astral characters and lone surrogates, CJK, U+0000, empty and duplicate identifiers, prefixes,
 *    tiny alphabets for many ties), entityIds whose string order is not their insertion order, types
 *    drawn from a skewed distribution with some types absent, and statements with repeated triples
 *    under several fingerprints, exact duplicates, and fingerprints that are not hex.
 *  - `withScores`: gives some entities a score (many ties, 0 and 2^32 - 1 among them).
 *  - `Oracle`: search = filter by `fold(raw).includes(fold(q))`, sort by (tier, fold(raw), entityId),
 *    or with order "score" by (tier, score highest first, fold(raw), entityId); `fold` is the
 *    contract's, or its accent folding (`foldAccents`) for a graph built with it; a score left out
 *    is the number of distinct statements naming the entity in any role, each counted once;
 *    statements = filter by the AND of the given ids, sort by the contract's index table. Every string
 *    comparison is JavaScript `<` (UTF-16 code units). Cost O(n log n) per query: it is a baseline,
 *    not an index.
 *  - `walkPages`: follows every nextCursor of one query to the end and checks each page against the
 *    oracle's full list (exact order, page sizes, nextCursor null exactly at the end, and `total`
 *    equal to the list's length exactly on the pages that ask for it).
 *
 * The only engine function used here is the public `deriveFingerprint` (the contract fixes its
 * properties, not its algorithm), to know the fingerprint of a statement given without one.
 */

import {
  deriveFingerprint,
  GraphBuilder,
  isQuiverError,
  type Entity,
  type EntityType,
  type Graph,
  type Page,
  type Statement,
  type StatementInput,
} from "../../src/index.js";
import { mulberry32 } from "../../tools/prng.js";
export { mulberry32 };

// ---------------------------------------------------------------------------------------------
// PRNG

export class Rng {
  private readonly next: () => number;

  constructor(seed: number) {
    this.next = mulberry32(seed);
  }

  float(): number {
    return this.next();
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** An integer in [lo, hi], both included. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(xs: readonly T[]): T {
    if (xs.length === 0) throw new Error("Rng.pick from an empty list");
    return xs[this.int(xs.length)] as T;
  }

  /** An index drawn with probability proportional to its weight. */
  weighted(weights: readonly number[]): number {
    let total = 0;
    for (const w of weights) total += w;
    let r = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      r -= weights[i] as number;
      if (r < 0) return i;
    }
    return weights.length - 1;
  }

  /** Fisher-Yates, in place; returns `xs`. */
  shuffle<T>(xs: T[]): T[] {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = xs[i] as T;
      xs[i] = xs[j] as T;
      xs[j] = t;
    }
    return xs;
  }
}

// ---------------------------------------------------------------------------------------------
// The contract's fold, copied from CONTRACT.md "Case and Unicode"

export const fold = (s: string): string =>
  s
    .normalize("NFKC")
    .toUpperCase()
    .toLowerCase()
    .replace(/\u03C2/g, "\u03C3") // final sigma ς -> σ, so "ΟΔΟΣ" is found inside "ΟΔΟΣΟ"
    .replace(/i\u0307/g, "i") // "İ" lowers to i + combining dot; fold it to plain i
    .replace(/\u00DF/g, "ss"); // "ẞ" (U+1E9E) lowers to ß; full case folding makes it "ss"

/** The contract's accent folding ("A graph may be built with accent folding"), copied from CONTRACT.md. */
export const foldAccents = (s: string): string => fold(s).normalize("NFD").replace(/\p{M}/gu, "").normalize("NFC");

export type FoldMode = "case" | "accents";

/** The fold of a graph of fold mode `mode`. */
export function foldOf(mode: FoldMode): (s: string) => string {
  return mode === "accents" ? foldAccents : fold;
}

/** JavaScript `<` on strings (UTF-16 code units) as a comparator. */
export function cmpString(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Component-wise comparison of two sort keys; numbers and strings each compared with `<`. */
export function compareKeys(a: readonly (string | number)[], b: readonly (string | number)[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as string | number;
    const y = b[i] as string | number;
    if (x < y) return -1;
    if (x > y) return 1;
  }
  return a.length - b.length;
}

// ---------------------------------------------------------------------------------------------
// Random graphs

/** Pieces that exercise each case CONTRACT.md names, and a few it implies. */
export const UNICODE_FRAGMENTS: readonly string[] = [
  "İstanbul",
  "istanbul",
  "ISTANBUL",
  "İ",
  "i\u0307",
  "I\u0307",
  "ı",
  "I",
  "Straße",
  "STRASSE",
  "strasse",
  "ß",
  "ẞ",
  "ss",
  "ΟΔΟΣ",
  "ΟΔΟΣΟ",
  "οδος",
  "ς",
  "σ",
  "Σ",
  "ﬁnance",
  "finance",
  "FINANCE",
  "ﬁ",
  "fi",
  "ﬀ",
  "ＡＢＣ",
  "abc",
  "Ａ",
  "ａ",
  "e\u0301",
  "é",
  "É",
  "E\u0301",
  "e",
  "dürer",
  "durer",
  "Dürer",
  "du\u0308rer",
  "😀",
  "🎉",
  "𝒜",
  "🀄",
  "𝔸",
  "日本語",
  "東京",
  "中文",
  "中",
  "\u0000",
  "a\u0000b",
  "\uE000",
  "\uFFFD",
  "\uFFFF",
  "\uFF5E",
  "ΐ",
  "ŉ",
  "ǅ",
  "\u212A",
  "\u212B",
  "\uD83D",
  "\uDE00",
  " ",
  "-",
];

/** UNICODE_FRAGMENTS without the lone surrogates (filtered once, not per identifier drawn). */
const WELL_FORMED_FRAGMENTS: readonly string[] = UNICODE_FRAGMENTS.filter((f) => !/^[\uD800-\uDFFF]$/.test(f));

/** A tiny alphabet: many matches, many ties. */
export const TINY_FRAGMENTS: readonly string[] = ["a", "b", "e", "A", "E", "s", "S", "ab"];

/** Characters for entityIds and fingerprints: code-unit order differs from code-point and UTF-8 order. */
const ID_CHARS: readonly string[] = [
  "a",
  "b",
  "c",
  "A",
  "Z",
  "0",
  "9",
  "_",
  "-",
  "é",
  "É",
  "ß",
  "中",
  "😀",
  "𝒜",
  "\uE000",
  "\uFFFF",
  "\uFF21",
  "\u0000",
  "\u007F",
  " ",
];
const RARE_ID_CHARS: readonly string[] = ["\uD800", "\uDFFF"];
const FP_CHARS: readonly string[] = [
  "0",
  "1",
  "9",
  "a",
  "f",
  "g",
  "A",
  "F",
  "Z",
  "x",
  "-",
  "é",
  "😀",
  "\uE000",
  "\uFFFF",
  " ",
];
const HEX = "0123456789abcdef";

/** An entity as the input gives it: the four fields, and a score when the input gives one. */
export type EntityData = Entity & { score?: number };

export interface GraphData {
  /** Entities in input order. */
  entities: EntityData[];
  /** Statements in input order; `statementFingerprint` absent when derived. */
  statements: StatementInput[];
}

export interface GenerateOptions {
  entities: number;
  statements: number;
  /** Allow lone surrogates in identifiers and entityIds (default false: see the dedicated tests). */
  loneSurrogates?: boolean;
  /** Give 16 zeros (and other edge hex values) as explicit fingerprints often (default false: see the dedicated tests). */
  edgeFingerprints?: boolean;
}

const TYPE_WEIGHTS: readonly number[] = [30, 20, 12, 8, 6, 3, 2, 1];
export const TYPES: readonly EntityType[] = ["0", "1", "2", "3", "4", "5", "6", "7"];

function randomHex(rng: Rng, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += HEX[rng.int(16)];
  return s;
}

function randomFrom(rng: Rng, chars: readonly string[], lo: number, hi: number): string {
  let s = "";
  const n = rng.range(lo, hi);
  for (let i = 0; i < n; i++) s += rng.pick(chars);
  return s;
}

/** The first `n` code units of `s`; one less when that would split a surrogate pair and `lone` is false. */
function cut(s: string, n: number, lone: boolean): string {
  const c = s.charCodeAt(n - 1);
  return !lone && n > 0 && c >= 0xd800 && c <= 0xdbff ? s.slice(0, n - 1) : s.slice(0, n);
}

/** A random raw identifier; may reuse or extend earlier ones. */
export function randomIdentifier(rng: Rng, earlier: readonly string[], loneSurrogates = false): string {
  const r = rng.float();
  const fragments = loneSurrogates ? UNICODE_FRAGMENTS : WELL_FORMED_FRAGMENTS;
  if (r < 0.04) return "";
  if (r < 0.12 && earlier.length > 0) return rng.pick(earlier); // duplicate identifier
  if (r < 0.22 && earlier.length > 0)
    return rng.pick(earlier) + (rng.chance(0.5) ? rng.pick(TINY_FRAGMENTS) : rng.pick(fragments)); // prefix of another
  if (r < 0.27 && earlier.length > 0) {
    const e = rng.pick(earlier);
    return cut(e, rng.int(e.length + 1), loneSurrogates); // a code-unit prefix: may split a pair or a combining sequence
  }
  if (r < 0.29) return randomFrom(rng, ["a", "b"], 40, 300); // long, for 256-unit queries
  if (r < 0.55) return randomFrom(rng, TINY_FRAGMENTS, 1, 6);
  let s = "";
  const n = rng.range(1, 4);
  for (let i = 0; i < n; i++) s += rng.chance(0.45) ? rng.pick(TINY_FRAGMENTS) : rng.pick(fragments);
  return s;
}

/** A fresh entityId (not in `taken`): short strings over ID_CHARS, often a prefix or extension of another. */
export function randomEntityId(
  rng: Rng,
  taken: ReadonlySet<string>,
  earlier: readonly string[],
  loneSurrogates = false,
): string {
  for (;;) {
    let id: string;
    const r = rng.float();
    if (r < 0.25 && earlier.length > 0) id = rng.pick(earlier) + rng.pick(ID_CHARS);
    else if (r < 0.32 && earlier.length > 0) {
      const e = rng.pick(earlier);
      id = cut(e, rng.range(1, Math.max(1, e.length - 1)), loneSurrogates);
    } else if (r < 0.34 && loneSurrogates) id = randomFrom(rng, ID_CHARS, 0, 2) + rng.pick(RARE_ID_CHARS);
    else id = randomFrom(rng, ID_CHARS, 1, 4);
    if (id.length > 0 && !taken.has(id)) return id;
  }
}

/** A random explicit fingerprint: mostly text of a short alphabet, sometimes 16 hex digits, upper-case hex, near-hex. */
export function randomFingerprint(rng: Rng, edge = false): string {
  // 16 zeros is the hex value that other (text) fingerprints may be confused with in a packed column
  if (edge && rng.chance(0.2))
    return rng.pick(["0000000000000000", "0000000000000000", "0000000000000001", "ffffffffffffffff"]);
  const r = rng.float();
  if (r < 0.35) return randomHex(rng, 16);
  if (r < 0.45) return randomHex(rng, 16).toUpperCase();
  if (r < 0.55) return randomHex(rng, rng.pick([15, 17]));
  if (r < 0.6) return randomHex(rng, 16) + rng.pick(FP_CHARS);
  return randomFrom(rng, FP_CHARS, 1, 4);
}

function tripleKey(s: string, p: string, o: string): string {
  return JSON.stringify([s, p, o]);
}

/** Picks an index in [0, n) skewed towards 0, so a few entities carry many statements. */
function skewed(rng: Rng, n: number): number {
  const r = rng.float();
  return Math.min(n - 1, Math.floor(n * r * r * r));
}

export function generateGraph(rng: Rng, options: GenerateOptions): GraphData {
  const lone = options.loneSurrogates ?? false;
  // Some types absent in some graphs: zero out up to three of them (never all).
  const weights = TYPE_WEIGHTS.slice();
  const absent = rng.int(4);
  for (let k = 0; k < absent; k++) weights[rng.int(8)] = 0;
  if (!weights.some((w) => w > 0)) weights[0] = 1;

  const entities: Entity[] = [];
  const ids: string[] = [];
  const taken = new Set<string>();
  const raws: string[] = [];
  for (let i = 0; i < options.entities; i++) {
    const entityId = randomEntityId(rng, taken, ids, lone);
    taken.add(entityId);
    ids.push(entityId);
    const rawIdentifier = randomIdentifier(rng, raws, lone);
    raws.push(rawIdentifier);
    const type = TYPES[rng.weighted(weights)] as EntityType;
    const sourceType = rng.pick(["wikidata", "", "dbpedia", "ß", "x"]);
    entities.push({ entityId, rawIdentifier, type, sourceType });
  }

  const statements = randomStatements(rng, entities, options.statements, new Map(), options.edgeFingerprints ?? false);
  return { entities, statements };
}

/** The largest score the contract allows. */
export const MAX_SCORE = 0xffff_ffff;

/**
 * `data` with a score given to about `share` of its entities: mostly small numbers (many ties, with
 * each other and with the default counts), some large, some 0 and 2^32 - 1. Drawn after everything
 * else, so the same seed gives the same graph otherwise.
 */
export function withScores(rng: Rng, data: GraphData, share: number): GraphData {
  const entities = data.entities.map((e): EntityData => {
    if (!rng.chance(share)) return { ...e };
    const r = rng.float();
    const score =
      r < 0.6
        ? rng.int(4)
        : r < 0.75
          ? rng.int(1000)
          : r < 0.85
            ? rng.pick([0, MAX_SCORE, MAX_SCORE - 1])
            : rng.int(2 ** 32);
    return { ...e, score };
  });
  return { entities, statements: data.statements };
}

/**
 * Random statements over `entities`. `owners` maps every fingerprint already used to its triple and
 * is updated, so no fingerprint ever lands on two different triples.
 */
export function randomStatements(
  rng: Rng,
  entities: readonly Entity[],
  count: number,
  owners: Map<string, string>,
  edge = false,
): StatementInput[] {
  const out: StatementInput[] = [];
  if (entities.length === 0) return out;
  // Predicates mostly come from a small set, as in real graphs (so P and P+O filters have long lists).
  const predicates = Array.from({ length: Math.min(6, entities.length) }, () => rng.pick(entities).entityId);
  const hubOrder = rng.shuffle(entities.map((e) => e.entityId));
  const entityAt = (): string => hubOrder[skewed(rng, hubOrder.length)] as string;
  const claim = (fp: string, key: string): boolean => {
    const owner = owners.get(fp);
    if (owner !== undefined && owner !== key) return false;
    owners.set(fp, key);
    return true;
  };
  while (out.length < count) {
    const r = rng.float();
    if (r < 0.08 && out.length > 0) {
      out.push({ ...rng.pick(out) }); // exact duplicate: kept once
      continue;
    }
    if (r < 0.18 && out.length > 0) {
      // a repeated triple under another explicit fingerprint: both kept, ordered by fingerprint
      const prev = rng.pick(out);
      const fp = randomFingerprint(rng, edge);
      if (!claim(fp, tripleKey(prev.subjectEntityId, prev.predicateEntityId, prev.objectEntityId))) continue;
      out.push({
        subjectEntityId: prev.subjectEntityId,
        predicateEntityId: prev.predicateEntityId,
        objectEntityId: prev.objectEntityId,
        statementFingerprint: fp,
      });
      continue;
    }
    if (r < 0.22 && out.length > 0) {
      // a derived statement given again with its derived fingerprint spelled out: the same statement
      const prev = rng.pick(out);
      const fp = deriveFingerprint(prev.subjectEntityId, prev.predicateEntityId, prev.objectEntityId);
      if (!claim(fp, tripleKey(prev.subjectEntityId, prev.predicateEntityId, prev.objectEntityId))) continue;
      out.push({
        subjectEntityId: prev.subjectEntityId,
        predicateEntityId: prev.predicateEntityId,
        objectEntityId: prev.objectEntityId,
        statementFingerprint: fp,
      });
      continue;
    }
    const s = entityAt();
    const p = rng.chance(0.8) ? rng.pick(predicates) : entityAt();
    const o = entityAt();
    const key = tripleKey(s, p, o);
    if (r < 0.32) {
      const fp = randomFingerprint(rng, edge);
      if (!claim(fp, key)) continue;
      out.push({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o, statementFingerprint: fp });
    } else {
      if (!claim(deriveFingerprint(s, p, o), key)) continue;
      out.push({ subjectEntityId: s, predicateEntityId: p, objectEntityId: o });
    }
  }
  return out;
}

/** Builds a Graph from `data` in its input order. */
export function buildGraph(data: GraphData, cursorSecret?: string, foldMode?: FoldMode): Graph {
  const b = new GraphBuilder({
    ...(cursorSecret === undefined ? {} : { cursorSecret }),
    ...(foldMode === undefined ? {} : { fold: foldMode }),
  });
  for (const e of data.entities) b.addEntity({ ...e });
  for (const st of data.statements) b.addStatement({ ...st });
  return b.build();
}

// ---------------------------------------------------------------------------------------------
// The brute-force contract

export type Filters = { subjectEntityId?: string; predicateEntityId?: string; objectEntityId?: string };
export type IndexOrder = "SPO" | "POS" | "OSP";
export type SearchKeyTuple = [tier: number, folded: string, entityId: string];

/** CONTRACT.md's table: which index serves which filters. */
export function orderFor(f: Filters): IndexOrder {
  const S = f.subjectEntityId !== undefined;
  const P = f.predicateEntityId !== undefined;
  const O = f.objectEntityId !== undefined;
  if (!S && !P && !O) return "SPO";
  if (S && !O) return "SPO"; // S, S+P
  if (S && P && O) return "SPO";
  if (P) return "POS"; // P, P+O
  return "OSP"; // O, O+S
}

export function statementKey(order: IndexOrder, st: Statement): string[] {
  const { subjectEntityId: s, predicateEntityId: p, objectEntityId: o, statementFingerprint: fp } = st;
  if (order === "SPO") return [s, p, o, fp];
  if (order === "POS") return [p, o, s, fp];
  return [o, s, p, fp];
}

export function tier(foldedRaw: string, foldedQ: string): number {
  if (foldedRaw === foldedQ) return 0;
  if (foldedRaw.startsWith(foldedQ)) return 1;
  return 2;
}

export type SearchOrder = "name" | "score";

export class Oracle {
  readonly entities: Entity[];
  readonly byId = new Map<string, Entity>();
  readonly folded: string[];
  /** Each entity's score (given, or the statements that name it, each counted once), by entities' index. */
  readonly scores: number[];
  /** Distinct statements (same triple and fingerprint kept once), with raw identifiers filled in. */
  readonly statements: Statement[];
  readonly fold: (s: string) => string;
  /** search's lists made so far, by query, type and order. */
  private readonly searchLists = new Map<string, Entity[]>();
  /** statementsFor's lists made so far, by filter. */
  private readonly statementLists = new Map<string, Statement[]>();

  constructor(data: GraphData, foldMode: FoldMode = "case") {
    this.fold = foldOf(foldMode);
    this.entities = data.entities.map(({ entityId, rawIdentifier, type, sourceType }) => ({
      entityId,
      rawIdentifier,
      type,
      sourceType,
    }));
    for (const e of this.entities) this.byId.set(e.entityId, e);
    this.folded = this.entities.map((e) => this.fold(e.rawIdentifier));
    const seen = new Set<string>();
    this.statements = [];
    for (const st of data.statements) {
      const fp =
        st.statementFingerprint ?? deriveFingerprint(st.subjectEntityId, st.predicateEntityId, st.objectEntityId);
      // Each part prefixed by its length: one key per (triple, fingerprint), cheaper than JSON.stringify.
      const { subjectEntityId: s, predicateEntityId: p, objectEntityId: o } = st;
      const key = `${s.length}:${s}${p.length}:${p}${o.length}:${o}${fp}`;
      if (seen.has(key)) continue;
      seen.add(key);
      this.statements.push({
        statementFingerprint: fp,
        subjectEntityId: st.subjectEntityId,
        subjectRawIdentifier: this.raw(st.subjectEntityId),
        predicateEntityId: st.predicateEntityId,
        predicateRawIdentifier: this.raw(st.predicateEntityId),
        objectEntityId: st.objectEntityId,
        objectRawIdentifier: this.raw(st.objectEntityId),
      });
    }
    // The contract's default score: statements naming the entity in any role, each counted once.
    const named = new Map<string, number>();
    const count = (id: string) => named.set(id, (named.get(id) ?? 0) + 1);
    for (const { subjectEntityId: s, predicateEntityId: p, objectEntityId: o } of this.statements) {
      count(s);
      if (p !== s) count(p);
      if (o !== s && o !== p) count(o);
    }
    this.scores = data.entities.map((e) => e.score ?? named.get(e.entityId) ?? 0);
  }

  private raw(id: string): string {
    const e = this.byId.get(id);
    if (e === undefined) throw new Error(`oracle: statement names unknown entity ${JSON.stringify(id)}`);
    return e.rawIdentifier;
  }

  /** The sort key of entity `e` for query `q` (order "name"). */
  searchKey(q: string, e: Entity): SearchKeyTuple {
    const f = this.fold(e.rawIdentifier);
    return [tier(f, this.fold(q)), f, e.entityId];
  }

  /**
   * Every match of `q` (and `type`), in the contract's order: tier, then (order "score") the score
   * highest first (as its negation), then folded identifier, then entityId.
   */
  search(q: string, type?: EntityType, order: SearchOrder = "name"): Entity[] {
    // Made once per (q, type, order) and copied out, as statementsFor's lists: walks of one query at
    // several limits (or resumed from several cursors) ask for the same list.
    const memoKey = JSON.stringify([q, type ?? null, order]);
    let list = this.searchLists.get(memoKey);
    if (list === undefined) {
      list = this.sortedHits(q, type, order);
      this.searchLists.set(memoKey, list);
    }
    return list.slice();
  }

  /** search's list, made: a scan for the matches, sorted by their keys. */
  private sortedHits(q: string, type: EntityType | undefined, order: SearchOrder): Entity[] {
    const fq = this.fold(q);
    const hits: { key: (string | number)[]; e: Entity }[] = [];
    for (let i = 0; i < this.entities.length; i++) {
      const e = this.entities[i] as Entity;
      const f = this.folded[i] as string;
      if (type !== undefined && e.type !== type) continue;
      if (!f.includes(fq)) continue;
      const key =
        order === "score" ? [tier(f, fq), -(this.scores[i] as number), f, e.entityId] : [tier(f, fq), f, e.entityId];
      hits.push({ key, e });
    }
    hits.sort((a, b) => compareKeys(a.key, b.key));
    return hits.map((h) => h.e);
  }

  /** Every statement matching all given filters, in the order of the index that serves them. */
  statementsFor(f: Filters): Statement[] {
    // The oracle never changes, so each filter's list is made once and copied out (a caller may
    // change its copy): tests that follow many cursors of one filter ask for the same list often.
    const memoKey = JSON.stringify([f.subjectEntityId ?? null, f.predicateEntityId ?? null, f.objectEntityId ?? null]);
    let list = this.statementLists.get(memoKey);
    if (list === undefined) {
      list = this.sortedMatches(f);
      this.statementLists.set(memoKey, list);
    }
    return list.slice();
  }

  /** statementsFor's list, made: a scan for the matches, sorted by their keys in the serving order. */
  private sortedMatches(f: Filters): Statement[] {
    const order = orderFor(f);
    const out = this.statements.filter(
      (st) =>
        (f.subjectEntityId === undefined || st.subjectEntityId === f.subjectEntityId) &&
        (f.predicateEntityId === undefined || st.predicateEntityId === f.predicateEntityId) &&
        (f.objectEntityId === undefined || st.objectEntityId === f.objectEntityId),
    );
    const keyed = out.map((st) => ({ key: statementKey(order, st), st }));
    keyed.sort((a, b) => compareKeys(a.key, b.key));
    return keyed.map((k) => k.st);
  }
}

// ---------------------------------------------------------------------------------------------
// Paging checks

export const CURSOR_PATTERN = /^[A-Za-z0-9_-]+$/;

export function show(x: unknown): string {
  const s = JSON.stringify(x);
  return s === undefined ? String(x) : s.length > 400 ? `${s.slice(0, 400)}...` : s;
}

const ENTITY_KEYS = ["entityId", "rawIdentifier", "type", "sourceType"];
const STATEMENT_KEYS = [
  "statementFingerprint",
  "subjectEntityId",
  "subjectRawIdentifier",
  "predicateEntityId",
  "predicateRawIdentifier",
  "objectEntityId",
  "objectRawIdentifier",
];

/** Exact equality of two items: same keys, every value a string and equal. */
export function sameItem(a: object, b: object): boolean {
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = "entityId" in y ? ENTITY_KEYS : STATEMENT_KEYS;
  if (Object.keys(x).length !== keys.length) return false;
  for (const k of keys) {
    if (typeof x[k] !== "string" || x[k] !== y[k]) return false;
  }
  return true;
}

export class PropertyFailure extends Error {}

function fail(ctx: string, what: string): never {
  throw new PropertyFailure(`${ctx}: ${what}`);
}

export interface WalkOptions<T> {
  /**
   * Fetches one page. `limit` undefined means "leave it out"; `count` is what countPolicy drew for
   * this page (always false without one).
   */
  fetch: (limit: number | undefined, cursor: string | undefined, count: boolean) => Page<T>;
  /**
   * Whether to ask this page for its total (default: never). A page asked must carry `total` equal
   * to expected.length; any other page must not carry the key.
   */
  countPolicy?: () => boolean;
  /** Every item the walk must return, in order. */
  expected: readonly T[];
  /** The limit of the next page (undefined: omit it and expect the default). */
  nextLimit: () => number | undefined;
  defaultLimit: number;
  /** Where the walk starts (undefined: the first page). */
  cursor?: string | undefined;
  /** Printed with any failure: seed, query, etc. */
  ctx: string;
  /** Called with each cursor issued (to collect them). */
  onCursor?: (cursor: string, lastItem: T) => void;
}

/**
 * Follows nextCursor to the end, asserting: pages concatenate to `expected` exactly (order, no gaps,
 * no duplicates); each page holds `limit` items except the last; nextCursor is null exactly on the
 * last page; every cursor is URL-safe. Returns the number of pages.
 */
export function walkPages<T extends object>(o: WalkOptions<T>): number {
  let pos = 0;
  let cursor = o.cursor;
  const limits: (number | undefined)[] = [];
  for (let page = 0; ; page++) {
    const limit = o.nextLimit();
    limits.push(limit);
    const effective = limit ?? o.defaultLimit;
    const count = o.countPolicy?.() ?? false;
    const where = () => `${o.ctx} page ${page} (limits so far ${show(limits)}, at ${pos} of ${o.expected.length})`;
    let result: Page<T>;
    try {
      result = o.fetch(limit, cursor, count);
    } catch (e) {
      fail(where(), `threw ${isQuiverError(e) ? e.code : ""} ${e instanceof Error ? e.message : String(e)}`);
    }
    if (!Array.isArray(result.items)) fail(where(), "items is not an array");
    if (!("nextCursor" in result)) fail(where(), "nextCursor key missing");
    if (count && result.total !== o.expected.length)
      fail(where(), `total ${show(result.total)}, want ${o.expected.length} (count asked)`);
    if (!count && "total" in result) fail(where(), `total ${show(result.total)} present though count was not asked`);
    const want = Math.min(effective, o.expected.length - pos);
    for (let i = 0; i < Math.min(result.items.length, want); i++) {
      const got = result.items[i] as T;
      const exp = o.expected[pos + i] as T;
      if (!sameItem(got, exp)) {
        fail(
          where(),
          `item ${pos + i}: got ${show(got)}, want ${show(exp)}; page ${show(result.items.map(idOf))}, want ${show(o.expected.slice(pos, pos + want).map(idOf))}`,
        );
      }
    }
    if (result.items.length !== want) {
      fail(
        where(),
        `page has ${result.items.length} items, want ${want}; got ${show(result.items.map(idOf))}, want ${show(o.expected.slice(pos, pos + want).map(idOf))}`,
      );
    }
    pos += want;
    const done = pos === o.expected.length;
    if (done) {
      if (result.nextCursor !== null)
        fail(where(), `nextCursor ${show(result.nextCursor)} on the last page, want null`);
      return page + 1;
    }
    if (typeof result.nextCursor !== "string")
      fail(where(), `nextCursor ${show(result.nextCursor)} while ${o.expected.length - pos} items follow`);
    if (!CURSOR_PATTERN.test(result.nextCursor)) fail(where(), `cursor ${show(result.nextCursor)} is not URL-safe`);
    o.onCursor?.(result.nextCursor, result.items[result.items.length - 1] as T);
    cursor = result.nextCursor;
  }
}

function idOf(x: object): string {
  const r = x as Record<string, unknown>;
  if (typeof r["entityId"] === "string") return r["entityId"];
  return `${String(r["subjectEntityId"])}|${String(r["predicateEntityId"])}|${String(r["objectEntityId"])}|${String(r["statementFingerprint"])}`;
}

/** A limit policy for one walk: fixed, small, large, omitted, or changing from page to page. */
export function limitPolicy(rng: Rng, max: number): () => number | undefined {
  const mode = rng.int(6);
  const fixed = rng.range(1, max);
  switch (mode) {
    case 0:
      return () => fixed;
    case 1:
      return () => rng.range(1, 3);
    case 2:
      return () => undefined;
    case 3:
      return () => (rng.chance(0.5) ? max : rng.range(1, max));
    default:
      return () => (rng.chance(0.15) ? undefined : rng.chance(0.3) ? rng.range(1, 4) : rng.range(1, max));
  }
}

/** Expects `f` to throw a QuiverError with `code` (and `parameter` when given); returns it. */
export function expectCode(f: () => unknown, code: string, parameter?: string, ctx = ""): Error {
  let result: unknown;
  try {
    result = f();
  } catch (e) {
    if (!isQuiverError(e))
      throw new PropertyFailure(
        `${ctx}: want QuiverError ${code}, got ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`,
      );
    if (e.code !== code) throw new PropertyFailure(`${ctx}: want code ${code}, got ${e.code} (${e.message})`);
    if (parameter !== undefined && e.parameter !== parameter) {
      throw new PropertyFailure(`${ctx}: want parameter ${show(parameter)}, got ${show(e.parameter)} (${e.message})`);
    }
    return e;
  }
  throw new PropertyFailure(`${ctx}: want QuiverError ${code}, but it returned ${show(result)}`);
}

/** Random statement filters for `mask` (1 = S, 2 = P, 4 = O): mostly ids of a real statement, some of
 * other entities, some naming no entity (near misses of real ids, or junk). */
export function randomFilters(rng: Rng, mask: number, oracle: Oracle): Filters {
  const st = oracle.statements.length > 0 ? rng.pick(oracle.statements) : undefined;
  const value = (fromStatement: string | undefined): string => {
    const r = rng.float();
    if (r < 0.7 && fromStatement !== undefined) return fromStatement; // likely a non-empty page
    if (oracle.entities.length === 0) return "no such entity\u0001";
    if (r < 0.85) return rng.pick(oracle.entities).entityId;
    // names no entity: an extension or a prefix of a real id, or plain junk
    const e = rng.pick(oracle.entities).entityId;
    for (const candidate of [e + "\u0000", e + "~", e.slice(0, -1), "no such entity"]) {
      if (candidate.length > 0 && !oracle.byId.has(candidate)) return candidate;
    }
    return "no such entity\u0001";
  };
  const f: Filters = {};
  if (mask & 1) f.subjectEntityId = value(st?.subjectEntityId);
  if (mask & 2) f.predicateEntityId = value(st?.predicateEntityId);
  if (mask & 4) f.objectEntityId = value(st?.objectEntityId);
  return f;
}
