/**
 * Test helpers for the HTTP adapter
 * =================================
 * A small graph with the contract's tricky names, a real server on 127.0.0.1 port 0, and two ways
 * to send a request: `request` (node:http, the target sent byte for byte as given) and `rawRequest`
 * (a socket, for what node's client refuses to send).
 */

import http from "node:http";
import net from "node:net";
import { GraphBuilder } from "../../src/engine/graph-builder.js";
import type { Graph } from "../../src/engine/graph.js";
import { ENTITY_TYPES } from "../../src/engine/types.js";
import type { HandlerOptions } from "../../src/http/adapter-kit.js";
import { serve, type RunningServer } from "../../src/http/server.js";

export const KEY = "sk_test_0123456789";
export const OTHER_KEY = "sk_other_key";
export const SECRET = "test-cursor-secret";

export const ENTITIES = [
  { entityId: "q:strasse", rawIdentifier: "Straße", type: "0", sourceType: "test" },
  { entityId: "q:berliner-strasse", rawIdentifier: "Berliner Straße", type: "3", sourceType: "test" },
  { entityId: "q:berlin", rawIdentifier: "Berlin", type: "0", sourceType: "test" },
  { entityId: "q:istanbul", rawIdentifier: "İstanbul", type: "2", sourceType: "test" },
  { entityId: "q:germany", rawIdentifier: "Germany", type: "0", sourceType: "" },
  { entityId: "q:turkey", rawIdentifier: "Turkey", type: "0", sourceType: "test" },
  { entityId: "q:located", rawIdentifier: "isLocatedIn", type: "1", sourceType: "test" },
  { entityId: "q:quote", rawIdentifier: 'He said "hi" \\ then \u0001 left\u2028', type: "5", sourceType: "tab\there" },
  { entityId: "q:plus", rawIdentifier: "C++ and a+b", type: "6", sourceType: "test" },
  { entityId: "q:bom", rawIdentifier: "\uFEFFmarked", type: "7", sourceType: "test" },
] as const;

export const STATEMENTS = [
  { subjectEntityId: "q:berlin", predicateEntityId: "q:located", objectEntityId: "q:germany" },
  { subjectEntityId: "q:strasse", predicateEntityId: "q:located", objectEntityId: "q:berlin" },
  { subjectEntityId: "q:berliner-strasse", predicateEntityId: "q:located", objectEntityId: "q:berlin" },
  { subjectEntityId: "q:istanbul", predicateEntityId: "q:located", objectEntityId: "q:turkey" },
  {
    subjectEntityId: "q:quote",
    predicateEntityId: "q:located",
    objectEntityId: "q:plus",
    statementFingerprint: 'fp "odd"',
  },
] as const;

/**
 * Entities whose ids a lookup path must percent-encode: "/" (as %2F), "+", a space, "%", "?", "#",
 * non-ASCII of two, three and four UTF-8 bytes; each with the path segment a client sends for it.
 */
export const LOOKUP_ENTITIES = [
  { entityId: "path/with/slashes", rawIdentifier: "Slashed", type: "4", sourceType: "lookup" },
  { entityId: "a+b c", rawIdentifier: "Plus and space", type: "4", sourceType: "lookup" },
  { entityId: "100%?#x", rawIdentifier: "Percent", type: "4", sourceType: "lookup" },
  { entityId: "Zürich", rawIdentifier: "Zürich", type: "2", sourceType: "lookup" },
  { entityId: "東京/\u{1F600}", rawIdentifier: "Tokyo", type: "2", sourceType: "lookup" },
] as const;

/** ITEM_COUNT entities "Item NNN" in a chain of statements, for paging walks. */
export const ITEM_COUNT = 250;

export function buildSmallGraph(options: { secret?: string; items?: boolean; lookups?: boolean } = {}): Graph {
  const b = new GraphBuilder({ cursorSecret: options.secret ?? SECRET });
  for (const e of ENTITIES) b.addEntity({ ...e });
  if (options.lookups === true) for (const e of LOOKUP_ENTITIES) b.addEntity({ ...e });
  for (const s of STATEMENTS) b.addStatement({ ...s });
  if (options.items === true) {
    for (let i = 0; i < ITEM_COUNT; i++) {
      b.addEntity({
        entityId: `item:${i}`,
        rawIdentifier: `Item ${String(i).padStart(3, "0")}`,
        type: ENTITY_TYPES[i % 8]!,
        sourceType: "items",
      });
    }
    for (let i = 0; i < ITEM_COUNT; i++) {
      b.addStatement({
        subjectEntityId: `item:${i}`,
        predicateEntityId: "q:located",
        objectEntityId: `item:${(i * 7) % ITEM_COUNT}`,
      });
      b.addStatement({ subjectEntityId: `item:${i}`, predicateEntityId: "q:located", objectEntityId: "q:germany" });
    }
  }
  return b.build();
}

export async function startServer(
  graph: Graph,
  options: Partial<HandlerOptions> = {},
): Promise<RunningServer & { port: number }> {
  const running = await serve({ graph, apiKeys: [KEY, OTHER_KEY], host: "127.0.0.1", port: 0, ...options });
  return { ...running, port: Number(new URL(running.url).port) };
}

export interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A request whose target is sent exactly as given; a fresh connection each time. */
export function request(
  port: number,
  path: string,
  options: { method?: string; key?: string | null; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? KEY : options.key;
  if (key !== null) headers["X-API-Key"] = key;
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, method: options.method ?? "GET", headers, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (d: string) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** GET with the key, expecting JSON; returns status and parsed body. */
export async function getJson(
  port: number,
  path: string,
  key: string | null = KEY,
): Promise<{ status: number; body: any; reply: Reply }> {
  const reply = await request(port, path, { key });
  return { status: reply.status, body: JSON.parse(reply.body), reply };
}

/** Writes `bytes` on a fresh socket and returns the status line and the body of the answer. */
export function rawRequest(
  port: number,
  bytes: string | Buffer,
): Promise<{ status: number; head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.end(bytes));
    const chunks: Buffer[] = [];
    socket.on("data", (d: Buffer) => chunks.push(d));
    socket.on("error", reject);
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const split = text.indexOf("\r\n\r\n");
      const head = split === -1 ? text : text.slice(0, split);
      resolve({ status: Number(head.split(" ")[1]), head, body: split === -1 ? "" : text.slice(split + 4) });
    });
  });
}

/** Every nextCursor followed from the first page; returns all items and the number of pages. */
export async function walk(port: number, path: string, limit: number): Promise<{ items: any[]; pages: number }> {
  const items: any[] = [];
  let pages = 0;
  let cursor: string | null = null;
  do {
    const sep = path.includes("?") ? "&" : "?";
    const target: string = `${path}${sep}limit=${limit}` + (cursor === null ? "" : `&cursor=${cursor}`);
    const { status, body } = await getJson(port, target);
    if (status !== 200) throw new Error(`${target}: ${status} ${JSON.stringify(body)}`);
    pages++;
    if (body.items.length === 0 && cursor !== null) throw new Error("a non-null cursor led to an empty page");
    items.push(...body.items);
    cursor = body.nextCursor;
  } while (cursor !== null);
  return { items, pages };
}

/** A POST of `body` (one write, or `chunks` written one by one with no Content-Length); a fresh connection. */
export function post(
  port: number,
  path: string,
  body: string | Buffer | string[],
  options: { key?: string | null; contentType?: string | null } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  if (options.key !== null) headers["X-API-Key"] = options.key ?? KEY;
  const contentType = options.contentType === undefined ? "application/x-ndjson" : options.contentType;
  if (contentType !== null) headers["Content-Type"] = contentType;
  // A string or a Buffer goes whole with its length; an array of strings goes chunked.
  const whole = typeof body === "string" || Buffer.isBuffer(body);
  if (whole) headers["Content-Length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path, method: "POST", headers, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    // A server that answers before the whole body is sent may close while it is still written.
    req.on("error", (e: NodeJS.ErrnoException) =>
      e.code === "EPIPE" || e.code === "ECONNRESET" ? undefined : reject(e),
    );
    if (whole) req.end(body);
    else {
      for (const chunk of body) req.write(chunk);
      req.end();
    }
  });
}
