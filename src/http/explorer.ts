/**
 * The explorer's assets
 * =====================
 * The explorer is a page (explorer/, built by tools/build-explorer.mjs into dist/explorer-assets/)
 * that `quiver serve` answers at "/" with its assets under "/explorer/". This file owns serving
 * those bytes; the router (router.ts) sends these paths here when the handler was given an
 * `Explorer` (`loadExplorer()`), and answers them like any unknown path otherwise (404).
 *
 * - `loadExplorer(dir)`: reads every file of the built directory once, at start, into memory, and
 *   compresses each once (brotli at quality 11 and gzip at level 9: the smallest outputs, paid once
 *   per process, a few milliseconds for the whole page), keeping a coding only where it is smaller.
 *   Nothing is built or read from disk per request; a directory without index.html is an error that
 *   says how to build it.
 * - `explorerAsset(explorer, path)`: "/" is index.html; "/explorer/<name>" is that built file.
 * - `assetAnswer(asset, headers, compress)`: the answer, as plain data: 200 in the negotiated coding
 *   (compression.ts), or 304 when `If-None-Match` names its tag. A strong ETag per representation
 *   (caching.ts's `entityTag`), `Vary: Accept-Encoding`. The HTML is `Cache-Control: no-cache`
 *   (always revalidated: it names the current assets); the assets, whose names carry a hash of
 *   their bytes, `public, max-age=31536000, immutable`.
 *
 * The page carries no data and needs no key; it asks for one and sends it to the API. Its
 * Content-Security-Policy allows only the page's own origin (scripts, styles, and `connect-src`
 * for the API), so no request can leave it, whatever a graph's names hold.
 * Cost per request: a map lookup and the headers, precomputed; the bodies are shared buffers.
 */

import { readdirSync, readFileSync } from "node:fs";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { bytesDigest, entityTag, ifNoneMatchAny, ifNoneMatchNames } from "./caching.js";
import { negotiateEncoding, type ContentEncoding } from "./compression.js";
import type { RequestHeaders } from "./router.js";
import { STATUS_NOT_MODIFIED, STATUS_OK } from "./status.js";

/** The page itself. */
export const EXPLORER_PAGE_PATH = "/";
/** Every asset of the page lives under this prefix. */
export const EXPLORER_ASSET_PREFIX = "/explorer/";
/** The built page, beside dist/src/ in the package and in a checkout (tools/build-explorer.mjs writes it). */
export const EXPLORER_ASSETS_DIR = fileURLToPath(new URL("../../explorer-assets/", import.meta.url));
const PAGE_FILE = "index.html";
/** The page names the current assets, so it is revalidated every time (a 304 when unchanged). */
export const PAGE_CACHE_CONTROL = "no-cache";
/** An asset's name carries a hash of its bytes: another build has other names, so keep it a year. */
export const ASSET_CACHE_CONTROL = "public, max-age=31536000, immutable";
/** Only the page's own origin, for everything; `data:` for the empty favicon the page declares. */
export const EXPLORER_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json",
};

/** One built file, ready to answer with. */
export interface ExplorerAsset {
  readonly name: string;
  readonly contentType: string;
  readonly cacheControl: string;
  readonly digest: string;
  /** Bytes in each coding kept (identity always; gzip and br only where smaller). */
  readonly bodies: Readonly<Partial<Record<ContentEncoding, Buffer>>>;
}

export interface Explorer {
  /** The directory the assets were read from. */
  readonly dir: string;
  readonly assets: ReadonlyMap<string, ExplorerAsset>;
}

/** Reads and compresses the built page once. Throws, naming the directory and the fix, when it is not built. */
export function loadExplorer(dir: string = EXPLORER_ASSETS_DIR): Explorer {
  let names: string[];
  try {
    names = readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => e.name);
  } catch {
    names = [];
  }
  if (!names.includes(PAGE_FILE))
    throw new Error(
      `the explorer page is not built (${join(dir, PAGE_FILE)} is missing): run \`npm run build\`, or serve with --no-ui`,
    );
  const assets = new Map<string, ExplorerAsset>();
  for (const name of names) {
    const identity = readFileSync(join(dir, name));
    const bodies: Partial<Record<ContentEncoding, Buffer>> = { identity };
    const br = zlib.brotliCompressSync(identity, {
      params: {
        [zlib.constants.BROTLI_PARAM_QUALITY]: zlib.constants.BROTLI_MAX_QUALITY,
        [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
        [zlib.constants.BROTLI_PARAM_SIZE_HINT]: identity.length,
      },
    });
    const gzip = zlib.gzipSync(identity, { level: zlib.constants.Z_BEST_COMPRESSION });
    // Each coding is kept only where it saves bytes (a tiny file can grow).
    if (br.length < identity.length) bodies.br = br;
    if (gzip.length < identity.length) bodies.gzip = gzip;
    assets.set(name, {
      name,
      contentType: CONTENT_TYPES[extname(name)] ?? "application/octet-stream",
      cacheControl: name === PAGE_FILE ? PAGE_CACHE_CONTROL : ASSET_CACHE_CONTROL,
      digest: bytesDigest(identity),
      bodies,
    });
  }
  return { dir, assets };
}

/** True for the paths the explorer owns: the page and everything under its prefix. */
export function isExplorerPath(path: string): boolean {
  return path === EXPLORER_PAGE_PATH || path.startsWith(EXPLORER_ASSET_PREFIX);
}

/** The asset a path names, or undefined (404). The page is only at "/", never under the prefix. */
export function explorerAsset(explorer: Explorer, path: string): ExplorerAsset | undefined {
  if (path === EXPLORER_PAGE_PATH) return explorer.assets.get(PAGE_FILE);
  const name = path.slice(EXPLORER_ASSET_PREFIX.length);
  if (name === PAGE_FILE) return undefined;
  return explorer.assets.get(name);
}

/** A status, headers (flat, as the router's Reply) and a body (null for 304). */
export interface AssetAnswer {
  status: number;
  headers: string[];
  body: Buffer | null;
}

/** The answer to a GET of `asset`: 304 when the client holds this representation, else 200. */
export function assetAnswer(asset: ExplorerAsset, headers: RequestHeaders, compress: boolean): AssetAnswer {
  const wanted = compress ? negotiateEncoding(headers["accept-encoding"]) : "identity";
  const coding: ContentEncoding = asset.bodies[wanted] === undefined ? "identity" : wanted;
  const tag = entityTag(asset.digest, coding);
  const ifNoneMatch = headers["if-none-match"];
  if (ifNoneMatch !== undefined) {
    // The client holds these bytes in this coding, or as identity (both are current), or any ("*").
    const identityTag = entityTag(asset.digest, "identity");
    const held = ifNoneMatchNames(ifNoneMatch, identityTag)
      ? identityTag
      : ifNoneMatchNames(ifNoneMatch, tag) || ifNoneMatchAny(ifNoneMatch)
        ? tag
        : null;
    if (held !== null) return { status: STATUS_NOT_MODIFIED, headers: validators(asset, held), body: null };
  }
  const body = asset.bodies[coding] as Buffer;
  const out = validators(asset, tag);
  out.push(
    "content-type",
    asset.contentType,
    "content-length",
    String(body.length),
    "x-content-type-options",
    "nosniff",
  );
  if (coding !== "identity") out.push("content-encoding", coding);
  // The page alone gets the policy and the framing and referrer rules; its assets inherit nothing to guard.
  if (asset.name === PAGE_FILE)
    out.push("content-security-policy", EXPLORER_CSP, "referrer-policy", "no-referrer", "x-frame-options", "DENY");
  return { status: STATUS_OK, headers: out, body };
}

/** What a 200 and its 304 share (RFC 9110 section 15.4.5): the tag, the caching rule, Vary. */
function validators(asset: ExplorerAsset, tag: string): string[] {
  return ["etag", tag, "cache-control", asset.cacheControl, "vary", "Accept-Encoding"];
}
