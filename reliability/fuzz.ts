/**
 * Request fuzzer
 * ==============
 * `runFuzz({ seed, requests, seconds })` starts the real server (`serve()`, default limits) on
 * 127.0.0.1 port 0 with a real graph, the demo fixtures plus entities with nasty Unicode, sends it
 * `requests` seeded random and mutated requests (fuzz-cases.ts) over raw sockets from a few
 * concurrent workers, and checks every answer:
 *
 * - a status from the contract's table, never a 5xx, and the one status the reference oracle names
 *   when the request is well-formed (so a valid key with valid parameters must get 200, and its
 *   body must be, byte for byte, the engine's page for the same call);
 * - `Content-Type: application/json`, a `Content-Length` that matches, a JSON body of the right
 *   shape: errors exactly `{"error": "<sentence>"}`, pages `{"items", "nextCursor"}` with every
 *   item field a string, never null; `Allow: GET, HEAD` on a 405; a HEAD without a body;
 * - never a stack trace, never a configured key in any body, no unexpected fault reported by the
 *   server (`onError`);
 * - the connection still answers a pipelined `/healthz` behind the request when it stays open, and
 *   a fresh connection gets `/healthz` in under a second every `healthEvery` requests and at the end.
 *
 * Bounded: stops after `requests` cases or `seconds`, whichever comes first; every exchange has a
 * deadline. Loopback only: the server it starts listens on 127.0.0.1, and `baseUrl` (to fuzz a
 * server started elsewhere, with `keys`) must name 127.0.0.1, ::1 or localhost.
 *
 * CLI: `npm run fuzz -- [--requests N] [--seconds S] [--seed N] [--concurrency N] [--case I]`
 * prints a summary (statuses, kinds, violations) and exits 1 on any violation. `--case I` replays
 * case I of the seed alone and prints the exchange.
 */

import { graphParts } from "../src/engine/internal.js";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { isMainModule } from "../tools/main-module.js";
import { GraphBuilder } from "../src/engine/graph-builder.js";
import type { Graph } from "../src/engine/graph.js";
import type { Entity, StatementInput } from "../src/engine/types.js";
import { OPENAPI_JSON } from "../src/http/openapi.js";
import { serve, type RunningServer } from "../src/http/server.js";
import { loadJsonLinesFile } from "../src/load/jsonl.js";
import {
  CONTRACT_STATUSES,
  CursorBook,
  HEALTH_PATH,
  OPENAPI_PATH,
  makeCase,
  type EngineCall,
  type Endpoint,
  type FuzzCase,
  type FuzzContext,
} from "./fuzz-cases.js";
import { exchange, header, headerCount, LOOPBACK, type Exchange, type RawResponse } from "./raw-http.js";

export const FUZZ_KEYS = ["sk_fuzz_key_one_0123456789", "sk_fuzz_key_two"] as const;
const FUZZ_SECRET = "fuzz-cursor-secret";
const FIXTURE_ENTITIES = fileURLToPath(new URL("../../fixtures/entities.jsonl", import.meta.url));
const FIXTURE_STATEMENTS = fileURLToPath(new URL("../../fixtures/statements.jsonl", import.meta.url));

/** Identifiers that have broken parsers, serializers and folding code elsewhere. */
export const NASTY_ENTITIES: readonly Entity[] = [
  { entityId: "nasty:emoji", rawIdentifier: "😀 Grinning 🏳️‍🌈 family 👨‍👩‍👧‍👦 flags 🇩🇪", type: "4", sourceType: "fuzz" },
  { entityId: "nasty:nul\u0000id", rawIdentifier: "nul\u0000byte", type: "5", sourceType: "\u0000" },
  // Surrogate pairs next to the surrogate range's edges (a lone surrogate is refused at load).
  { entityId: "nasty:pair-high", rawIdentifier: "pair \ud800\udc00 high", type: "5", sourceType: "fuzz" },
  { entityId: "nasty:pair-low\udbff\udfff", rawIdentifier: "\udbff\udfff low last", type: "5", sourceType: "fuzz" },
  { entityId: "nasty:rtl", rawIdentifier: "\u202eevil\u202c \u200fעברית\u200e العربية", type: "2", sourceType: "fuzz" },
  { entityId: "nasty:zero-width", rawIdentifier: "zero\u200bwidth\u200djoin\u2060", type: "3", sourceType: "fuzz" },
  { entityId: "nasty:combining", rawIdentifier: "e\u0301 Z̵̡̢̛͖̯̖a̸l̷g̴o̵", type: "3", sourceType: "fuzz" },
  { entityId: "nasty:bom", rawIdentifier: "\ufeffbom\ufeff", type: "7", sourceType: "\ufeff" },
  { entityId: "nasty:separators", rawIdentifier: "line\u2028para\u2029end", type: "6", sourceType: "fuzz" },
  {
    entityId: "nasty:controls",
    rawIdentifier: "\t\n\r\u0001\u001f\u007f\u0085 controls",
    type: "6",
    sourceType: "fuzz",
  },
  { entityId: "nasty:nonchar", rawIdentifier: "\ufffe\uffff\ufffd \u{10ffff}", type: "6", sourceType: "fuzz" },
  {
    entityId: "nasty:fold",
    rawIdentifier: "Straße İstanbul ΟΔΟΣ ﬁnance ＦＵＬＬ ǅ ı ẞ",
    type: "2",
    sourceType: "fuzz",
  },
  { entityId: "nasty:expand", rawIdentifier: "ﷺ ﷻ ΐ ŉ ﬃ", type: "2", sourceType: "fuzz" },
  { entityId: "nasty:astral", rawIdentifier: "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𐍈 𠜎", type: "4", sourceType: "fuzz" },
  { entityId: "nasty:json", rawIdentifier: '"quoted" \\back\\slash </script> {"a":1}', type: "0", sourceType: "fuzz" },
  { entityId: "nasty:url a&b=c?d#e%41+", rawIdentifier: "a&b=c?d#e%41+ %ZZ", type: "1", sourceType: "fuzz" },
  { entityId: "nasty: ", rawIdentifier: " ", type: "6", sourceType: "fuzz" },
  { entityId: "nasty:empty-raw", rawIdentifier: "", type: "7", sourceType: "" },
  { entityId: "nasty:html", rawIdentifier: "<img src=x onerror=alert(1)>", type: "0", sourceType: "fuzz" },
  { entityId: "nasty:proto", rawIdentifier: "__proto__ constructor", type: "0", sourceType: "__proto__" },
  // At the rawIdentifier limit (1,024 bytes of UTF-8): the cursor after it still fits the target limit.
  { entityId: "nasty:long", rawIdentifier: `long ${"ĳ".repeat(507)} tail`, type: "4", sourceType: "fuzz" },
  { entityId: "nasty:long-tail-2", rawIdentifier: "long tail two", type: "4", sourceType: "fuzz" },
];

const NASTY_STATEMENTS: readonly StatementInput[] = [
  { subjectEntityId: "nasty:emoji", predicateEntityId: "nasty:url a&b=c?d#e%41+", objectEntityId: "nasty:rtl" },
  {
    subjectEntityId: "nasty:nul\u0000id",
    predicateEntityId: "nasty:url a&b=c?d#e%41+",
    objectEntityId: "nasty:pair-low\udbff\udfff",
  },
  {
    subjectEntityId: "nasty: ",
    predicateEntityId: "nasty:url a&b=c?d#e%41+",
    objectEntityId: "nasty:empty-raw",
    statementFingerprint: 'fp \u2028"odd"',
  },
  { subjectEntityId: "nasty:long", predicateEntityId: "nasty:url a&b=c?d#e%41+", objectEntityId: "nasty:long-tail-2" },
  { subjectEntityId: "nasty:fold", predicateEntityId: "nasty:json", objectEntityId: "nasty:expand" },
  { subjectEntityId: "nasty:html", predicateEntityId: "nasty:json", objectEntityId: "nasty:proto" },
];

/** The fixtures (573 entities, 566 statements from YAGO3-10) plus NASTY_ENTITIES and their statements. */
export async function buildFuzzGraph(): Promise<Graph> {
  const b = new GraphBuilder({ cursorSecret: FUZZ_SECRET });
  await loadJsonLinesFile(FIXTURE_ENTITIES, "entities", b);
  for (const e of NASTY_ENTITIES) b.addEntity({ ...e });
  await loadJsonLinesFile(FIXTURE_STATEMENTS, "statements", b);
  for (const s of NASTY_STATEMENTS) b.addStatement({ ...s });
  return b.build();
}

/** Words, ids and real cursors of `graph`, deterministically (graph order, fixed walks). */
export function fuzzContext(graph: Graph, keys: readonly string[]): FuzzContext {
  const raws = graphParts(graph).rawIdentifiers;
  const words = new Set<string>();
  for (let i = 0; i < raws.length && words.size < 3000; i++) {
    const raw = raws[i] ?? "";
    if (raw.length > 0 && raw.length <= 64) words.add(raw);
    for (const w of raw.split(/[\s_(),]+/)) if (w.length > 0 && w.length <= 64) words.add(w);
    if (raw.length >= 3) words.add(raw.slice(1, Math.min(raw.length, 8)).toUpperCase());
  }
  for (const e of NASTY_ENTITIES)
    for (const w of e.rawIdentifier.split(" ")) if (w.length > 0 && w.length <= 256 && isWellFormed(w)) words.add(w);
  const subjects = new Set<string>();
  const predicates = new Set<string>();
  const objects = new Set<string>();
  for (
    let page = graph.statements({ limit: 200 });
    ;
    page = graph.statements({ limit: 200, cursor: page.nextCursor })
  ) {
    for (const s of page.items) {
      subjects.add(s.subjectEntityId);
      predicates.add(s.predicateEntityId);
      objects.add(s.objectEntityId);
    }
    if (page.nextCursor === null) break;
  }
  // Only ids a client can send: well-formed UTF-16 (a lone surrogate has no UTF-8 encoding).
  const sendable = (ids: Set<string>) => [...ids].filter((id) => isWellFormed(id));
  const ctx: FuzzContext = {
    keys,
    words: [...words].filter((w) => isWellFormed(w)),
    subjects: sendable(subjects),
    predicates: sendable(predicates),
    objects: sendable(objects),
    book: new CursorBook(),
  };
  harvestCursors(
    ctx,
    (call) => (call.endpoint === "search" ? graph.search(call.params) : graph.statements(call.params)).nextCursor,
  );
  return ctx;
}

/** Walks a fixed list of queries up to three pages each and records every nextCursor with its query. */
function harvestCursors(ctx: FuzzContext, nextCursor: (call: EngineCall) => string | null): void {
  const walk = (endpoint: Endpoint, params: Record<string, string>, limit: number) => {
    let cursor: string | undefined;
    for (let page = 0; page < 3; page++) {
      const call = {
        endpoint,
        params: { ...params, limit, ...(cursor === undefined ? {} : { cursor }) },
      } as EngineCall;
      const next = nextCursor(call);
      if (next === null) return;
      ctx.book.add({ cursor: next, endpoint, params });
      cursor = next;
    }
  };
  for (const q of ["a", "e", "an", "united", "Jo", "ĳ", "tail", "long", "😀", "nul", "STRASSE", " ", "\ufeff"]) {
    walk("search", { q }, 1);
    walk("search", { q }, 3);
    walk("search", { q, type: "0" }, 2);
  }
  for (let i = 0; i < ctx.words.length; i += 97) walk("search", { q: ctx.words[i]! }, 1);
  walk("statements", {}, 7);
  for (const p of ctx.predicates) walk("statements", { predicateEntityId: p }, 2);
  for (let i = 0; i < ctx.subjects.length; i += 31) walk("statements", { subjectEntityId: ctx.subjects[i]! }, 1);
  for (let i = 0; i < ctx.objects.length; i += 31) walk("statements", { objectEntityId: ctx.objects[i]! }, 1);
  const p = ctx.predicates[0];
  const o = ctx.objects[0];
  if (p !== undefined && o !== undefined) walk("statements", { predicateEntityId: p, objectEntityId: o }, 1);
}

// ---- checking one exchange ---------------------------------------------------------------------

export interface Violation {
  index: number;
  kind: string;
  reason: string;
  /** The request, JSON-escaped and cut short. */
  request: string;
  /** What came back: status and the start of the body, or how the exchange ended. */
  response: string;
}

/** Text of a stack trace or of a path on this machine: never in an answer. */
const STACK = /\n\s*at\s|\bat \S+ \(|node:internal|file:\/\/|\.[jt]s:\d+|\/work\/|\/home\/|\/usr\//;

interface Checker {
  /** The page a 200 of this call must carry (in-process mode), or undefined (external server). */
  expectedPage?: (call: EngineCall) => string;
  keys: readonly string[];
}

function checkExchange(c: FuzzCase, ex: Exchange, checker: Checker): string[] {
  const problems: string[] = [];
  const first = ex.responses[0];
  const expected = c.followUp ? 2 : 1;
  if (first === undefined) {
    const closedOk = c.expect.kind === "oneOf" && c.expect.mayClose && ex.end === "closed";
    if (!closedOk)
      problems.push(
        ex.end === "timeout"
          ? "no answer before the deadline (the server hung on this request)"
          : "the connection closed without an answer",
      );
    return problems;
  }
  // A parser-level answer (Connection: close) to a HEAD that arrived in pieces carries a body: the
  // server sees only the last read, not the method (see `oracle`); the connection closes after it.
  const headInPieces =
    c.head &&
    c.pieces.length > 0 &&
    header(first, "connection") === "close" &&
    [400, 408, 414, 431].includes(first.status);
  if (ex.garbage.length > 0 && !headInPieces)
    problems.push(
      `bytes after the answer that are not an HTTP response: ${JSON.stringify(ex.garbage.subarray(0, 80).toString("latin1"))}`,
    );
  if (c.expect.kind === "exact" && ex.responses.length > expected)
    problems.push(`${ex.responses.length} answers to ${expected} request(s)`);
  ex.responses.forEach((response, i) => {
    const head = i === 0 ? c.head : false;
    for (const p of checkShape(response, head, checker.keys)) problems.push(i === 0 ? p : `pipelined /healthz: ${p}`);
  });
  // The status the oracle names.
  if (c.expect.kind === "exact" && first.status !== c.expect.status) {
    problems.push(`status ${first.status}, the contract says ${c.expect.status}`);
  } else if (c.expect.kind === "oneOf" && !c.expect.statuses.includes(first.status)) {
    problems.push(`status ${first.status}, expected one of ${c.expect.statuses.join(", ")}`);
  }
  // A 200: the exact page (in-process), the exact public body.
  if (c.expect.kind === "exact" && c.expect.status === 200 && first.status === 200) {
    let want: string | undefined;
    if (c.expect.call !== undefined && checker.expectedPage !== undefined) {
      try {
        want = checker.expectedPage(c.expect.call);
      } catch (e) {
        problems.push(`the oracle takes this for a valid request but the engine refuses it: ${(e as Error).message}`);
      }
    } else if (c.expect.publicPath === HEALTH_PATH) {
      want = '{"status":"ok"}';
    } else if (c.expect.publicPath === OPENAPI_PATH) {
      want = OPENAPI_JSON.toString("utf8");
    }
    if (want !== undefined) {
      if (c.head) {
        if (Number(header(first, "content-length")) !== Buffer.byteLength(want))
          problems.push("HEAD: Content-Length differs from the GET body's length");
      } else if (first.body.toString("utf8") !== want) {
        problems.push(
          `body differs from the engine's page: ${JSON.stringify(first.body.toString("utf8").slice(0, 120))} vs ${JSON.stringify(want.slice(0, 120))}`,
        );
      }
    }
  }
  // The connection stays usable: the pipelined /healthz is answered unless the first answer closed it.
  if (c.followUp && header(first, "connection")?.toLowerCase() !== "close") {
    const second = ex.responses[1];
    if (second === undefined) problems.push(`the /healthz pipelined behind it was not answered (${ex.end})`);
    else if (second.status !== 200 || second.body.toString() !== '{"status":"ok"}')
      problems.push(`the pipelined /healthz got ${second.status} ${second.body.toString().slice(0, 80)}`);
  }
  return problems;
}

/** What every answer must look like, whatever the request. */
function checkShape(r: RawResponse, head: boolean, keys: readonly string[]): string[] {
  const problems: string[] = [];
  if (r.status >= 500) problems.push(`a ${r.status}: never a 5xx`);
  else if (!CONTRACT_STATUSES.includes(r.status)) problems.push(`status ${r.status} is not in the contract's table`);
  if (header(r, "content-type") !== "application/json")
    problems.push(`Content-Type ${JSON.stringify(header(r, "content-type"))}, not application/json`);
  if (headerCount(r, "content-length") !== 1) problems.push("no single Content-Length");
  if (r.status === 405 && header(r, "allow") !== "GET, HEAD")
    problems.push(`405 with Allow ${JSON.stringify(header(r, "allow"))}`);
  if (head) {
    if (r.body.length !== 0) problems.push("a HEAD answer with a body");
    return problems;
  }
  if (Number(header(r, "content-length")) !== r.body.length) problems.push("Content-Length does not match the body");
  const text = r.body.toString("utf8");
  for (const key of keys) if (text.includes(key)) problems.push("a configured API key appears in the body");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    problems.push(`the body is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
    return problems;
  }
  if (r.status !== 200) {
    if (!isObject(body) || Object.keys(body).length !== 1 || typeof body["error"] !== "string")
      problems.push(`an error body that is not exactly {"error": string}: ${text.slice(0, 120)}`);
    else if (body["error"].length === 0 || body["error"].length > 2000)
      problems.push("an empty or runaway error sentence");
    else if (STACK.test(body["error"]))
      problems.push(`a stack trace or a local path in the error: ${text.slice(0, 160)}`);
    return problems;
  }
  if (isObject(body) && "items" in body) problems.push(...checkPage(body));
  return problems;
}

const ENTITY_FIELDS = ["entityId", "rawIdentifier", "type", "sourceType"];
const STATEMENT_FIELDS = [
  "statementFingerprint",
  "subjectEntityId",
  "subjectRawIdentifier",
  "predicateEntityId",
  "predicateRawIdentifier",
  "objectEntityId",
  "objectRawIdentifier",
];

function checkPage(page: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (Object.keys(page).join() !== "items,nextCursor")
    problems.push(`page keys ${Object.keys(page).join()}, not items,nextCursor`);
  const { items, nextCursor } = page;
  if (!Array.isArray(items)) return [...problems, "items is not an array"];
  if (!(nextCursor === null || (typeof nextCursor === "string" && /^[A-Za-z0-9_-]+$/.test(nextCursor))))
    problems.push("nextCursor is neither null nor URL-safe text");
  if (nextCursor !== null && items.length === 0) problems.push("an empty page with a non-null nextCursor");
  for (const item of items) {
    if (!isObject(item)) {
      problems.push("an item that is not an object");
      continue;
    }
    const keys = Object.keys(item).join();
    if (keys !== ENTITY_FIELDS.join() && keys !== STATEMENT_FIELDS.join()) problems.push(`item fields ${keys}`);
    for (const [k, v] of Object.entries(item))
      if (typeof v !== "string") problems.push(`item field ${k} is ${v === null ? "null" : typeof v}`);
    if ("type" in item && !/^[0-7]$/.test(String(item["type"])))
      problems.push(`item type ${JSON.stringify(item["type"])}`);
  }
  return problems;
}

/** No lone surrogate: the only strings a client can send (UTF-8 has no encoding for a lone surrogate). */
function isWellFormed(s: string): boolean {
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

// ---- the run -----------------------------------------------------------------------------------

export interface FuzzOptions {
  seed?: number;
  /** Cases to send (default 3000). */
  requests?: number;
  /** Stop after this long even if cases remain (default 60). */
  seconds?: number;
  /** Fuzz a server already running on loopback instead of starting one; give its `keys`. */
  baseUrl?: string;
  keys?: readonly string[];
  /** Exchanges in flight at once (default 8). */
  concurrency?: number;
  /** Deadline of one exchange (default 5000 ms). */
  timeoutMs?: number;
  /** A fresh-connection /healthz every this many cases (default 500), which must answer within a second. */
  healthEvery?: number;
  /** Only these case indexes (replay). */
  only?: readonly number[];
  /** How many violations to keep in full (default 50; all are counted). */
  keepViolations?: number;
  onProgress?: (done: number, report: FuzzReport) => void;
}

export interface FuzzReport {
  seed: number;
  /** Cases sent. */
  requests: number;
  /** Pipelined /healthz requests sent behind them. */
  followUps: number;
  durationMs: number;
  /** Count of first answers by status ("closed" when none came and none was owed). */
  byStatus: Record<string, number>;
  byKind: Record<string, number>;
  healthChecks: number;
  /** Unexpected faults the server reported (each is also a violation). */
  serverFaults: number;
  violationCount: number;
  /** The first `keepViolations` violations in full. */
  violations: Violation[];
}

const KEPT_VIOLATIONS = 50;
const HEALTH_DEADLINE_MS = 1000;

export async function runFuzz(options: FuzzOptions = {}): Promise<FuzzReport> {
  const seed = options.seed ?? 1;
  const total = options.only?.length ?? options.requests ?? 3000;
  const deadline = performance.now() + 1000 * (options.seconds ?? 60);
  const concurrency = options.concurrency ?? 8;
  const timeoutMs = options.timeoutMs ?? 5000;
  const healthEvery = options.healthEvery ?? 500;
  const report: FuzzReport = {
    seed,
    requests: 0,
    followUps: 0,
    durationMs: 0,
    byStatus: {},
    byKind: {},
    healthChecks: 0,
    serverFaults: 0,
    violationCount: 0,
    violations: [],
  };
  const violate = (v: Violation) => {
    report.violationCount++;
    if (report.violations.length < (options.keepViolations ?? KEPT_VIOLATIONS)) report.violations.push(v);
  };

  let running: RunningServer | undefined;
  let port: number;
  let ctx: FuzzContext;
  let checker: Checker;
  if (options.baseUrl === undefined) {
    const graph = await buildFuzzGraph();
    const keys = options.keys ?? FUZZ_KEYS;
    ctx = fuzzContext(graph, keys);
    running = await serve({
      graph,
      apiKeys: keys,
      host: LOOPBACK,
      port: 0,
      onError: (error, req) => {
        report.serverFaults++;
        violate({
          index: -1,
          kind: "server-fault",
          reason: `onError: ${error instanceof Error ? error.message : String(error)}`,
          request: `${req.method} ${(req.url ?? "").slice(0, 200)}`,
          response: "500",
        });
      },
    });
    port = Number(new URL(running.url).port);
    const stringify = (call: EngineCall) =>
      JSON.stringify(call.endpoint === "search" ? graph.search(call.params) : graph.statements(call.params));
    checker = { expectedPage: stringify, keys };
  } else {
    const url = new URL(options.baseUrl);
    if (!["127.0.0.1", "[::1]", "localhost"].includes(url.hostname))
      throw new Error(`runFuzz: baseUrl must be a loopback address, not ${url.hostname}`);
    if (options.keys === undefined || options.keys.length === 0)
      throw new Error("runFuzz: give the keys of the server at baseUrl");
    port = Number(url.port);
    ctx = await externalContext(port, options.keys);
    checker = { keys: options.keys };
  }

  const started = performance.now();
  let next = 0;
  let sinceHealth = 0;
  const healthCheck = async () => {
    report.healthChecks++;
    const ex = await exchange(port, `GET ${HEALTH_PATH} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`, {
      timeoutMs: HEALTH_DEADLINE_MS,
      responses: 1,
    });
    const r = ex.responses[0];
    if (r === undefined || r.status !== 200 || ex.elapsedMs > HEALTH_DEADLINE_MS) {
      violate({
        index: next,
        kind: "health",
        reason: `a fresh /healthz did not answer 200 within ${HEALTH_DEADLINE_MS} ms (${ex.end}, ${Math.round(ex.elapsedMs)} ms)`,
        request: "GET /healthz",
        response: r === undefined ? ex.end : String(r.status),
      });
    }
  };
  const worker = async () => {
    for (;;) {
      if (next >= total || performance.now() > deadline) return;
      const index = options.only?.[next] ?? next;
      next++;
      if (++sinceHealth >= healthEvery) {
        sinceHealth = 0;
        await healthCheck();
      }
      const c = makeCase(ctx, seed, index);
      const ex = await exchange(port, c.bytes, {
        timeoutMs,
        responses: c.followUp ? 2 : 1,
        head: [c.head, false],
        endAfterWrite: c.endAfterWrite,
        pieces: c.pieces,
      });
      report.requests++;
      if (c.followUp) report.followUps++;
      report.byKind[c.kind] = (report.byKind[c.kind] ?? 0) + 1;
      const status = ex.responses[0] === undefined ? ex.end : String(ex.responses[0].status);
      report.byStatus[status] = (report.byStatus[status] ?? 0) + 1;
      for (const reason of checkExchange(c, ex, checker)) {
        violate({
          index,
          kind: c.kind,
          reason,
          request: JSON.stringify(c.bytes.toString("latin1").slice(0, 300)),
          response: describe(ex),
        });
      }
      options.onProgress?.(report.requests, report);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    await healthCheck();
  } finally {
    await running?.close();
  }
  report.durationMs = performance.now() - started;
  return report;
}

function describe(ex: Exchange): string {
  const r = ex.responses[0];
  if (r === undefined) return `${ex.end} after ${Math.round(ex.elapsedMs)} ms, no answer`;
  return `${r.status} ${JSON.stringify(r.body.toString("utf8").slice(0, 160))}`;
}

/** For a server started elsewhere: words and ids from the fixtures, cursors harvested over HTTP. */
async function externalContext(port: number, keys: readonly string[]): Promise<FuzzContext> {
  const ctx = fuzzContext(await buildFuzzGraph(), keys);
  const book = new CursorBook();
  for (const entry of ctx.book.entries.slice(0, 200)) {
    const query = new URLSearchParams({ ...entry.params, limit: "1" }).toString();
    const path = entry.endpoint === "search" ? "/graph/v1/search" : "/graph/v1/statements";
    const body = await new Promise<string>((resolve) => {
      const req = http.get(
        { host: LOOPBACK, port, path: `${path}?${query}`, headers: { "x-api-key": keys[0]! } },
        (res) => {
          let text = "";
          res
            .setEncoding("utf8")
            .on("data", (d: string) => (text += d))
            .on("end", () => resolve(text));
        },
      );
      req.on("error", () => resolve(""));
    });
    try {
      const cursor = (JSON.parse(body) as { nextCursor?: unknown }).nextCursor;
      if (typeof cursor === "string") book.add({ cursor, endpoint: entry.endpoint, params: entry.params });
    } catch {
      // not a page: no cursor from this query
    }
  }
  return { ...ctx, book };
}

// ---- CLI ---------------------------------------------------------------------------------------

export function summaryTable(report: FuzzReport): string {
  const lines: string[] = [];
  const seconds = report.durationMs / 1000;
  lines.push(
    `fuzz: seed ${report.seed}, ${report.requests} requests (+${report.followUps} pipelined /healthz, ${report.healthChecks} fresh /healthz) ` +
      `in ${seconds.toFixed(1)} s (${Math.round(report.requests / seconds)} req/s); violations: ${report.violationCount}`,
  );
  const statuses = Object.entries(report.byStatus).sort(([a], [b]) => a.localeCompare(b));
  lines.push("status   count");
  for (const [s, n] of statuses) lines.push(`${s.padEnd(8)} ${String(n).padStart(6)}`);
  return lines.join("\n");
}

async function main(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      requests: { type: "string", default: "3000" },
      seconds: { type: "string", default: "600" },
      seed: { type: "string", default: "1" },
      concurrency: { type: "string", default: "8" },
      case: { type: "string", multiple: true },
      kinds: { type: "boolean", default: false },
    },
  });
  const only = values.case?.map(Number);
  const requests = Number(values.requests);
  let lastPrint = performance.now();
  const report = await runFuzz({
    seed: Number(values.seed),
    requests,
    seconds: Number(values.seconds),
    concurrency: Number(values.concurrency),
    ...(only === undefined ? {} : { only }),
    onProgress: (done, r) => {
      if (performance.now() - lastPrint < 5000) return;
      lastPrint = performance.now();
      process.stderr.write(`fuzz: ${done}/${requests} requests, ${r.violationCount} violations\n`);
    },
  });
  console.log(summaryTable(report));
  if (values.kinds || only !== undefined) console.table(report.byKind);
  if (only !== undefined) {
    const ctx = fuzzContext(await buildFuzzGraph(), FUZZ_KEYS);
    for (const i of only) {
      const c = makeCase(ctx, report.seed, i);
      console.log(
        `case ${i} (${c.kind}):`,
        JSON.stringify(c.bytes.toString("latin1")),
        "expect",
        JSON.stringify(c.expect),
      );
    }
  }
  for (const v of report.violations)
    console.log(
      `violation: case ${v.index} (${v.kind}): ${v.reason}\n  request:  ${v.request}\n  response: ${v.response}`,
    );
  if (report.violationCount > report.violations.length)
    console.log(`... and ${report.violationCount - report.violations.length} more`);
  return report.violationCount === 0 ? 0 : 1;
}

if (isMainModule(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(2);
    },
  );
}
