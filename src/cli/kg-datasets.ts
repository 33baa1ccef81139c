/**
 * Knowledge-graph benchmark datasets
 * ==================================
 * Converts the standard link-prediction layout (YAGO3-10, FB15k-237: `entities.dict` and
 * `relations.dict` as `index<TAB>name`, triples as `head<TAB>relation<TAB>tail` in `valid.txt` and
 * `test.txt`) into the contract's input items, writes them as JSON Lines, and cuts a small connected
 * subset for fixtures. The data itself stays outside the repository; only this code is ours.
 *
 * The conversion is the "faithful" one of the shared data README:
 *  - one entity per name of `entities.dict`, in file order, then one per name that only the triples
 *    use (FB15k-237's dictionary may lack mids that its triples name), in order of first use;
 *  - one entity per relation of `relations.dict` (then any relation only the triples use): the
 *    predicate of the statements;
 *  - one statement per triple line of the splits (default `valid.txt` then `test.txt`), in file
 *    order, without a fingerprint (Quiver derives it).
 *
 * Conventions (chosen here, stable, relied on by tests and fixtures):
 *
 *  | dataset   | item     | entityId            | rawIdentifier                       | type |
 *  |-----------|----------|---------------------|-------------------------------------|------|
 *  | yago3-10  | name     | `yago:<name>`       | the name, each `_` as a space       | "0"  |
 *  | yago3-10  | relation | `yago-rel:<rel>`    | the relation as given (`playsFor`)  | "1"  |
 *  | fb15k-237 | mid      | `fb:<mid>`          | the mid as given (`/m/07pd_j`)      | "0"  |
 *  | fb15k-237 | relation | `fb-rel:<rel>`      | the relation as given               | "1"  |
 *
 *  sourceType is the dataset name, `"yago3-10"` or `"fb15k-237"`. Names and relations get different
 *  prefixes (`yago:` vs `yago-rel:`), so the two id sets are disjoint by construction even if a
 *  name were spelled like a relation. The `_` -> space rule applies to YAGO names only: there `_`
 *  is how a Wikipedia title writes a space, while in a Freebase mid it is a letter of the id.
 *  With `types: "hashed"` a name's type is instead derived from its text (FNV-1a, 32 bit) as one
 *  of "0", "2".."7", so type filters have something to select in benchmarks; relations stay "1".
 *
 * Cost: O(bytes of the dataset) time and memory; the files are small (3 to 5 MB), so they are
 * read whole, not streamed. `connectedSubset` is O(E x removed) and meant for fixture-sized cuts.
 *
 * References: YAGO3-10, Mahdisoltani, Biega, Suchanek, "YAGO3: A Knowledge Base from Multilingual
 * Wikipedias", CIDR 2015 (CC BY 3.0); FB15k-237, Toutanova and Chen, "Observed versus latent features
 * for knowledge base and text inference", CVSC 2015.
 */

import { readFile } from "node:fs/promises";
import { basename, join } from "node:path";

import { dataError } from "../engine/errors.js";
import type { Entity, EntityType, StatementInput } from "../engine/types.js";
import { makeDirectory } from "../snapshot/make-directory.js";
import { writeJsonLinesTogether } from "./jsonl-writer.js";

export const KG_DATASET_NAMES = ["yago3-10", "fb15k-237"] as const;
export type KgDatasetName = (typeof KG_DATASET_NAMES)[number];

/** The splits a faithful conversion takes: the two the shared data ships. */
export const DEFAULT_SPLITS: readonly string[] = ["valid.txt", "test.txt"];

/** Type character of ordinary entities (names, mids). */
export const NAME_TYPE: EntityType = "0";
/** Type character of relation entities, the predicates. */
export const RELATION_TYPE: EntityType = "1";
/** Types a name may get with `types: "hashed"`: every type but the relations'. */
const HASHED_NAME_TYPES: readonly EntityType[] = ["0", "2", "3", "4", "5", "6", "7"];

interface DatasetConvention {
  nameId(name: string): string;
  relationId(relation: string): string;
  nameRawIdentifier(name: string): string;
}

/** One row per dataset: the only place the id prefixes and the `_` rule live. */
const CONVENTIONS: Record<KgDatasetName, DatasetConvention> = {
  "yago3-10": {
    nameId: (name) => `yago:${name}`,
    relationId: (relation) => `yago-rel:${relation}`,
    nameRawIdentifier: (name) => name.replaceAll("_", " "),
  },
  "fb15k-237": {
    nameId: (mid) => `fb:${mid}`,
    relationId: (relation) => `fb-rel:${relation}`,
    nameRawIdentifier: (mid) => mid,
  },
};

export interface ReadKgDatasetOptions {
  /** Which layout; default from the folder's name (`yago3-10`, `fb15k-237`). */
  dataset?: KgDatasetName;
  /** Triple files to convert, in order; default DEFAULT_SPLITS. */
  splits?: readonly string[];
  /** "fixed" (default): names "0", relations "1". "hashed": names one of "0","2".."7" by FNV-1a. */
  types?: "fixed" | "hashed";
}

export interface KgDataset {
  dataset: KgDatasetName;
  /** Names first (dictionary order, then triple-only names), then relations. */
  entities: Entity[];
  /** One per triple line, in file order. */
  statements: StatementInput[];
  /** How many of `entities` are names (the rest are relations). */
  nameCount: number;
  relationCount: number;
}

/** Reads a dataset folder and converts it. Rejects with INVALID_DATA naming `file:line` on a malformed line. */
export async function readKgDataset(dir: string, options: ReadKgDatasetOptions = {}): Promise<KgDataset> {
  const dataset = options.dataset ?? datasetFromFolder(dir);
  const convention = CONVENTIONS[dataset];
  const splits = options.splits ?? DEFAULT_SPLITS;
  const nameType = options.types === "hashed" ? hashedNameType : () => NAME_TYPE;

  const names = await readDictionary(join(dir, "entities.dict"));
  const relations = await readDictionary(join(dir, "relations.dict"));
  const nameSet = new Set(names);
  const relationSet = new Set(relations);

  const statements: StatementInput[] = [];
  for (const split of splits) {
    const file = join(dir, split);
    for (const { fields, line } of await readTsv(file)) {
      if (fields.length !== 3)
        throw malformed(file, line, `expected head<TAB>relation<TAB>tail, got ${fields.length} fields`);
      const [head, relation, tail] = fields as [string, string, string];
      if (head === "" || relation === "" || tail === "") throw malformed(file, line, "empty head, relation or tail");
      // Names and relations the dictionaries lack still become entities (FB15k-237 needs this).
      addIfNew(names, nameSet, head);
      addIfNew(names, nameSet, tail);
      addIfNew(relations, relationSet, relation);
      statements.push({
        subjectEntityId: convention.nameId(head),
        predicateEntityId: convention.relationId(relation),
        objectEntityId: convention.nameId(tail),
      });
    }
  }

  const entities: Entity[] = [];
  for (const name of names) {
    entities.push({
      entityId: convention.nameId(name),
      rawIdentifier: convention.nameRawIdentifier(name),
      type: nameType(name),
      sourceType: dataset,
    });
  }
  for (const relation of relations) {
    entities.push({
      entityId: convention.relationId(relation),
      rawIdentifier: relation,
      type: RELATION_TYPE,
      sourceType: dataset,
    });
  }
  return { dataset, entities, statements, nameCount: names.length, relationCount: relations.length };
}

/**
 * The largest connected piece of the dataset (names joined by statements, predicates not counted
 * as nodes), cut down to at most `maxNames` names by removing leaves: a name with one statement
 * left. Removing a leaf never disconnects the rest, so the result stays connected. The leaf removed
 * next is one whose statement has the currently most frequent predicate (so a hub such as
 * `hasGender -> male` is thinned first and rare relations survive), the latest in file order among
 * those. Keeps every statement between kept names, and exactly the predicates they use.
 * Deterministic: same dataset and `maxNames`, same result. Stops early if no leaf is left.
 */
export function connectedSubset(data: KgDataset, maxNames: number): KgDataset {
  const predicateIds = new Set(data.statements.map((s) => s.predicateEntityId));
  const keptStatements = largestComponent(data.statements);
  const degree = new Map<string, number>();
  const predicateCount = new Map<string, number>();
  const bump = (map: Map<string, number>, key: string, by: number) => map.set(key, (map.get(key) ?? 0) + by);
  for (const i of keptStatements) {
    const s = data.statements[i]!;
    bump(degree, s.subjectEntityId, 1);
    bump(degree, s.objectEntityId, 1);
    bump(predicateCount, s.predicateEntityId, 1);
  }

  while (degree.size > maxNames) {
    let best = -1;
    let bestCount = -1;
    // Latest statement first, so ties on the predicate count go to the later line.
    for (const i of [...keptStatements].reverse()) {
      const s = data.statements[i]!;
      const isLeafEdge = degree.get(s.subjectEntityId) === 1 || degree.get(s.objectEntityId) === 1;
      const count = predicateCount.get(s.predicateEntityId)!;
      if (isLeafEdge && count > bestCount) {
        best = i;
        bestCount = count;
      }
    }
    if (best === -1) break; // no leaf left: every remaining name lies on a cycle
    const s = data.statements[best]!;
    keptStatements.delete(best);
    bump(predicateCount, s.predicateEntityId, -1);
    for (const end of [s.subjectEntityId, s.objectEntityId]) {
      const left = degree.get(end)! - 1;
      // The leaf goes; the other end just loses one statement.
      if (left === 0) degree.delete(end);
      else degree.set(end, left);
    }
  }

  const statements = data.statements.filter((_, i) => keptStatements.has(i));
  const usedPredicates = new Set(statements.map((s) => s.predicateEntityId));
  const entities = data.entities.filter((e) =>
    predicateIds.has(e.entityId) ? usedPredicates.has(e.entityId) : degree.has(e.entityId),
  );
  return {
    dataset: data.dataset,
    entities,
    statements,
    nameCount: entities.length - usedPredicates.size,
    relationCount: usedPredicates.size,
  };
}

/** Indexes of the statements in the largest connected component (ties: the one reached first in file order). */
function largestComponent(statements: readonly StatementInput[]): Set<number> {
  // Union-find over names, with path halving.
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let p = parent.get(x) ?? x;
    while (p !== x) {
      const grand = parent.get(p) ?? p;
      parent.set(x, grand);
      x = p;
      p = grand;
    }
    return x;
  };
  for (const s of statements) {
    const a = find(s.subjectEntityId);
    const b = find(s.objectEntityId);
    if (a !== b) parent.set(b, a);
  }
  const sizes = new Map<string, number>();
  const firstSeen: string[] = [];
  for (const s of statements) {
    const root = find(s.subjectEntityId);
    if (!sizes.has(root)) firstSeen.push(root);
    sizes.set(root, (sizes.get(root) ?? 0) + 1);
  }
  let bestRoot: string | undefined;
  for (const root of firstSeen) if (bestRoot === undefined || sizes.get(root)! > sizes.get(bestRoot)!) bestRoot = root;
  const kept = new Set<number>();
  statements.forEach((s, i) => {
    if (find(s.subjectEntityId) === bestRoot) kept.add(i);
  });
  return kept;
}

/** Writes `entities.jsonl` and `statements.jsonl` into `dir` (created if missing); returns their paths. */
export async function writeKgDatasetJsonLines(
  data: KgDataset,
  dir: string,
): Promise<{ entities: string; statements: string }> {
  makeDirectory(dir);
  const entities = join(dir, "entities.jsonl");
  const statements = join(dir, "statements.jsonl");
  // Fixed key order, the contract's, so the files read the same as its examples. Published as a pair.
  await writeJsonLinesTogether([
    [
      entities,
      data.entities.map((e) => ({
        entityId: e.entityId,
        rawIdentifier: e.rawIdentifier,
        type: e.type,
        sourceType: e.sourceType,
      })),
    ],
    [
      statements,
      data.statements.map((s) => ({
        subjectEntityId: s.subjectEntityId,
        predicateEntityId: s.predicateEntityId,
        objectEntityId: s.objectEntityId,
      })),
    ],
  ]);
  return { entities, statements };
}

function datasetFromFolder(dir: string): KgDatasetName {
  const folder = basename(dir.replace(/[\\/]+$/, ""));
  for (const name of KG_DATASET_NAMES) if (folder === name) return name;
  throw new Error(
    `cannot tell the dataset layout of ${dir}: name the folder ${KG_DATASET_NAMES.join(" or ")}, or pass options.dataset`,
  );
}

/** `index<TAB>name` lines; returns the names in file order, rejecting a repeated name. */
async function readDictionary(file: string): Promise<string[]> {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const { fields, line } of await readTsv(file)) {
    if (fields.length !== 2 || fields[1] === "") throw malformed(file, line, "expected index<TAB>name");
    const name = fields[1]!;
    if (seen.has(name)) throw dataError("DUPLICATE_ENTITY", `name ${JSON.stringify(name)} given twice`, { file, line });
    seen.add(name);
    names.push(name);
  }
  return names;
}

/** Tab-separated lines, numbered from 1; CR of CRLF dropped, blank lines skipped (FB15k-237 uses CRLF). */
async function readTsv(file: string): Promise<{ fields: string[]; line: number }[]> {
  // A missing file rejects with its system error, which names the path.
  const bytes = await readFile(file);
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw dataError("INVALID_DATA", "not valid UTF-8", { file, line: firstInvalidUtf8Line(bytes) });
  }
  const rows: { fields: string[]; line: number }[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const content = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
    if (content.trim() === "") continue;
    rows.push({ fields: content.split("\t"), line: i + 1 });
  }
  return rows;
}

/** The 1-based number of the first line that is not valid UTF-8 (only called once decoding failed). */
function firstInvalidUtf8Line(bytes: Buffer): number {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  let line = 1;
  for (let start = 0; start <= bytes.length; line++) {
    const lf = bytes.indexOf(0x0a, start);
    const end = lf === -1 ? bytes.length : lf;
    try {
      decoder.decode(bytes.subarray(start, end));
    } catch {
      return line;
    }
    if (lf === -1) break;
    start = lf + 1;
  }
  return line;
}

function addIfNew(list: string[], seen: Set<string>, item: string): void {
  if (seen.has(item)) return;
  seen.add(item);
  list.push(item);
}

function malformed(file: string, line: number, reason: string) {
  return dataError("INVALID_DATA", reason, { file, line });
}

/** FNV-1a (32 bit) over UTF-16 code units: a fixed, portable spread of names over the name types. */
function hashedNameType(name: string): EntityType {
  let hash = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    hash ^= name.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return HASHED_NAME_TYPES[(hash >>> 0) % HASHED_NAME_TYPES.length]!;
}
