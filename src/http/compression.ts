/**
 * Response compression
 * ====================
 * gzip and brotli, negotiated from `Accept-Encoding` (RFC 9110 section 12.5.3), for bodies of at
 * least `thresholdBytes` (smaller ones gain little and cost the same fixed work). Every answer that
 * could be compressed says `Vary: Accept-Encoding`, whether or not this one was, so a shared cache
 * never hands a gzip body to a client that did not ask for one.
 *
 * Negotiation: each coding's q-value (default 1; `q=0` refuses it; `*` stands for codings not named;
 * `x-gzip` is gzip); the highest q among br and gzip wins, br on a tie (smaller output for JSON);
 * none acceptable, or no header at all: identity. A client that refuses identity too still gets
 * identity (a 406 would help nobody here).
 *
 * Negotiating costs a split and a trim a coding; the last header value's answer is kept, so a client
 * that sends the same value each time (every browser) costs a string comparison.
 *
 * Cost: synchronous, on the request's own turn (pages are a few KB): brotli at quality
 * BROTLI_QUALITY and gzip at level GZIP_LEVEL, both chosen for speed over ratio as servers do for
 * dynamic content; `npm run bench:http` prints what each costs per page.
 */

import zlib from "node:zlib";

export type ContentEncoding = "identity" | "gzip" | "br";

/** Bodies shorter than this are sent as they are. */
export const DEFAULT_COMPRESSION_THRESHOLD_BYTES = 1024;
/** zlib's level for gzip: 1 fastest, 9 smallest; 6 is zlib's own default. */
export const GZIP_LEVEL = 6;
/** brotli's quality: 0 fastest, 11 smallest (its default, far too slow per request); 4 is a common dynamic choice. */
export const BROTLI_QUALITY = 4;

const GZIP_OPTIONS: zlib.ZlibOptions = { level: GZIP_LEVEL };
const BROTLI_OPTIONS: zlib.BrotliOptions = {
  params: {
    [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
    [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
  },
};

/** The coding to send for this `Accept-Encoding` value. */
export function negotiateEncoding(header: string | readonly string[] | undefined): ContentEncoding {
  if (header === undefined) return "identity";
  // A client sends the same value request after request: the last value's coding is kept.
  if (header === lastHeader) return lastCoding;
  const coding = negotiate(typeof header === "string" ? header : header.join(","));
  if (typeof header === "string") {
    lastHeader = header;
    lastCoding = coding;
  }
  return coding;
}

/** The last `Accept-Encoding` string negotiated, and its coding. */
let lastHeader: string | undefined;
let lastCoding: ContentEncoding = "identity";

function negotiate(value: string): ContentEncoding {
  if (value === "") return "identity";
  let br = -1;
  let gzip = -1;
  let any = -1;
  for (const part of value.split(",")) {
    const semicolon = part.indexOf(";");
    const coding = (semicolon === -1 ? part : part.slice(0, semicolon)).trim().toLowerCase();
    const q = semicolon === -1 ? 1 : qValue(part.slice(semicolon + 1));
    if (coding === "br") br = Math.max(br, q);
    else if (coding === "gzip" || coding === "x-gzip") gzip = Math.max(gzip, q);
    else if (coding === "*") any = Math.max(any, q);
  }
  // "*" speaks for the codings the header does not name.
  if (br < 0) br = any;
  if (gzip < 0) gzip = any;
  if (br <= 0 && gzip <= 0) return "identity";
  return br >= gzip ? "br" : "gzip";
}

/** The q of a coding's parameters (`q=0.5`); 1 when absent, 0 when malformed (refused, to be safe). */
function qValue(parameters: string): number {
  const m = /(?:^|;)\s*q\s*=\s*([01](?:\.[0-9]{0,3})?)\s*(?:;|$)/i.exec(parameters);
  if (m === null) return /(?:^|;)\s*q\s*=/i.test(parameters) ? 0 : 1;
  return Math.min(1, Number(m[1]));
}

/** The body in the given coding. */
export function encodeBody(body: Buffer, encoding: ContentEncoding): Buffer {
  if (encoding === "br") return zlib.brotliCompressSync(body, BROTLI_OPTIONS);
  if (encoding === "gzip") return zlib.gzipSync(body, GZIP_OPTIONS);
  return body;
}
