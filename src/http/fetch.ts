/**
 * Fetch adapter
 * =============
 * `createFetchHandler(graph, options)` returns `(request: Request) => Promise<Response>`, the shape
 * every fetch-style server takes: Hono (`app.mount("/quiver", handler)`), `@hono/node-server`,
 * Bun.serve, Deno.serve, Cloudflare-style workers. Translation only, in both directions:
 *
 * - in: the method as the server gives it; the target as the URL from its path on (fetch servers
 *   hand over absolute URLs, already parsed: they have normalized what they normalize, such as dot
 *   segments); the headers the router reads (ROUTER_HEADERS), copied by name;
 * - out: a `Response` with the reply's status, headers and body (none for HEAD, 204, 304).
 *
 * Everything the contract decides happens in router.ts, so this adapter answers byte for byte as
 * the node one does (test/support/contract-suite.ts runs the same tests against both). What a
 * fetch server does before calling it (its own header limits, its Host rule) is the server's.
 */

import type { Graph } from "../engine/graph.js";
import { compileOptions, logReply, type HandlerOptions } from "./adapter-kit.js";
import type { ReadGraph } from "../engine/read-graph.js";
import { BODY_TOO_LARGE, NEEDS_BODY, ROUTER_HEADERS, route, serveGraph } from "./router.js";

export type FetchHandlerOptions = HandlerOptions;

export interface QuiverFetchHandler {
  (request: Request): Promise<Response>;
  /** The graph new requests are served from. */
  readonly graph: Graph | ReadGraph;
  /** Serves new requests from `graph`; requests already started finish on the graph they began with. */
  setGraph(graph: Graph | ReadGraph): void;
}

export function createFetchHandler(graph: Graph | ReadGraph, options: FetchHandlerOptions): QuiverFetchHandler {
  const config = compileOptions(options);
  let served = serveGraph(graph, config);
  const { log } = options;

  const handler = async (request: Request): Promise<Response> => {
    const started = log === undefined ? 0 : performance.now();
    const headers: Record<string, string> = {};
    for (const name of ROUTER_HEADERS) {
      const value = request.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    const at = served;
    const routed = { method: request.method, target: targetOf(request.url), headers };
    let reply = route(at, routed);
    // A change batch: the router has checked all it can without the body; it gets the body now.
    if (reply === NEEDS_BODY) reply = route(at, { ...routed, body: await readBody(request, config.maxChangeBytes) });
    // A change batch applied by another process: its answer comes when the writer's does.
    if (reply.later !== undefined) reply = await reply.later;
    const response = new Response(reply.body, { status: reply.status, headers: pairsOf(reply.headers) });
    if (log !== undefined) logReply(config, log, request.method, reply, started);
    return response;
  };

  return Object.defineProperties(handler, {
    graph: { get: () => served.graph, enumerable: true },
    setGraph: {
      value: (next: Graph | ReadGraph) => {
        served = serveGraph(next, config);
      },
    },
  }) as QuiverFetchHandler;
}

/** `http://host:port/path?query` -> `/path?query`: everything from the first "/" after the authority. */
function targetOf(url: string): string {
  const authority = url.indexOf("//");
  const slash = url.indexOf("/", authority === -1 ? 0 : authority + 2);
  return slash === -1 ? "/" : url.slice(slash);
}

function pairsOf(flat: readonly string[]): [string, string][] {
  const pairs: [string, string][] = new Array(flat.length / 2);
  for (let i = 0; i < flat.length; i += 2) pairs[i / 2] = [flat[i] as string, flat[i + 1] as string];
  return pairs;
}

/**
 * The body in one buffer, up to `max` bytes; past it BODY_TOO_LARGE, at once when Content-Length
 * says so, else as soon as the count passes it (the stream is cancelled: nothing more is read).
 */
async function readBody(request: Request, max: number): Promise<Buffer | typeof BODY_TOO_LARGE> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > max) return BODY_TOO_LARGE;
  if (request.body === null) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > max) {
      await reader.cancel();
      return BODY_TOO_LARGE;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size);
}
