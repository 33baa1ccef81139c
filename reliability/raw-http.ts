/**
 * Raw HTTP/1.1 exchanges
 * ======================
 * A client that writes bytes exactly as given on a fresh TCP socket to 127.0.0.1 and reads the
 * responses back with its own parser, for what `fetch` and `http.request` would refuse or normalize:
 * bad percent-encoding, raw control bytes, odd methods and versions, huge targets, duplicated or
 * malformed headers, several requests pipelined on one connection. Used by the fuzzer, the load
 * test's hostile companions and the reliability tests.
 *
 * The parser reads a stream of responses: status line, headers up to CRLF CRLF, then the body by
 * `Content-Length`, by `Transfer-Encoding: chunked`, or up to the close; a response to HEAD has no
 * body whatever its headers say; 1xx interim responses (`100 Continue`) are kept apart. It is
 * deliberately lenient about what it reads (it reports, the caller judges) and strict about time:
 * every exchange has a deadline, and "no complete answer in time" is an outcome, not an exception.
 *
 * Loopback only: the host is fixed to 127.0.0.1 here, never taken from a caller.
 */

import net from "node:net";

export const LOOPBACK = "127.0.0.1";

export interface RawResponse {
  status: number;
  /** The status line's HTTP version, e.g. "HTTP/1.1". */
  version: string;
  /** Header lines in order, names lower-cased, values as sent (latin1). */
  headers: [string, string][];
  body: Buffer;
  /** How the body's end was found. */
  framing: "content-length" | "chunked" | "close" | "none";
}

export interface Exchange {
  /** Final (non-1xx) responses, in order. */
  responses: RawResponse[];
  /** Interim 1xx responses seen on the way. */
  interim: number[];
  /** "closed": the server closed the connection; "timeout": the deadline passed first; "done": we had what we asked for. */
  end: "done" | "closed" | "timeout";
  /** Bytes received that did not parse as a response (empty when all was well). */
  garbage: Buffer;
  elapsedMs: number;
}

export interface ExchangeOptions {
  /** Give up after this long (the outcome is then "timeout"). */
  timeoutMs: number;
  /** Stop (and close) once this many final responses are in; default: wait for the server to close. */
  responses?: number;
  /** For each expected response in order: true when it answers a HEAD request (no body). */
  head?: readonly boolean[];
  /** Half-close our side after writing (the server then sees EOF). */
  endAfterWrite?: boolean;
  /**
   * Write the bytes in pieces of these sizes (the rest in one last piece), a millisecond apart, as
   * TCP segments of a real network would bring them; default one write.
   */
  pieces?: readonly number[];
}

/** Sends `bytes` on a fresh connection to 127.0.0.1:port and collects what comes back. */
export function exchange(port: number, bytes: Buffer | string, options: ExchangeOptions): Promise<Exchange> {
  const started = performance.now();
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: LOOPBACK });
    const parser = new ResponseStreamParser(options.head ?? []);
    let settled = false;
    const finish = (end: Exchange["end"]): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (end !== "done") parser.close();
      resolve({
        responses: parser.responses,
        interim: parser.interim,
        end,
        garbage: parser.garbage,
        elapsedMs: performance.now() - started,
      });
    };
    const timer = setTimeout(() => finish("timeout"), options.timeoutMs);
    socket.on("connect", () => {
      const data = typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes;
      const cuts: number[] = [];
      let at = 0;
      for (const size of options.pieces ?? []) if (at + size < data.length) cuts.push((at += Math.max(1, size)));
      cuts.push(data.length);
      let from = 0;
      const writeNext = (): void => {
        if (settled || socket.destroyed) return;
        const to = cuts.shift()!;
        const piece = data.subarray(from, to);
        from = to;
        if (cuts.length > 0) {
          socket.write(piece);
          setTimeout(writeNext, 1);
        } else if (options.endAfterWrite === true) socket.end(piece);
        else socket.write(piece);
      };
      writeNext();
    });
    socket.on("data", (chunk: Buffer) => {
      parser.push(chunk);
      if (options.responses !== undefined && parser.responses.length >= options.responses) finish("done");
    });
    // A reset after the server answered and closed is a close like any other.
    socket.on("error", () => finish("closed"));
    socket.on("close", () => finish("closed"));
  });
}

const CRLFCRLF = Buffer.from("\r\n\r\n");

/** Incremental parser of a stream of HTTP/1.1 responses. */
export class ResponseStreamParser {
  readonly responses: RawResponse[] = [];
  readonly interim: number[] = [];
  garbage: Buffer = Buffer.alloc(0);
  private buffer: Buffer = Buffer.alloc(0);
  private pending:
    | { status: number; version: string; headers: [string, string][]; framing: RawResponse["framing"]; length: number }
    | undefined;
  private chunks: Buffer[] = [];

  constructor(private readonly head: readonly boolean[]) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.step()) {
      // keep parsing while a step completes something
    }
  }

  /** The connection closed: a body framed by the close ends here; anything else left over is garbage. */
  close(): void {
    if (this.pending !== undefined && this.pending.framing === "close") {
      this.emit(Buffer.concat([...this.chunks, this.buffer]));
      this.buffer = Buffer.alloc(0);
    }
    if (this.buffer.length > 0) this.garbage = Buffer.concat([this.garbage, this.buffer]);
    this.buffer = Buffer.alloc(0);
  }

  private step(): boolean {
    if (this.pending === undefined) return this.readHead();
    const p = this.pending;
    if (p.framing === "content-length") {
      if (this.buffer.length < p.length) return false;
      const body = this.buffer.subarray(0, p.length);
      this.buffer = this.buffer.subarray(p.length);
      this.emit(body);
      return true;
    }
    if (p.framing === "chunked") return this.readChunk();
    return false; // "close": wait for the close
  }

  private readHead(): boolean {
    const end = this.buffer.indexOf(CRLFCRLF);
    if (end === -1) return false;
    const lines = this.buffer.subarray(0, end).toString("latin1").split("\r\n");
    this.buffer = this.buffer.subarray(end + 4);
    const m = /^(HTTP\/\d\.\d) (\d{3})(?: .*)?$/.exec(lines[0] ?? "");
    if (m === null) {
      this.garbage = Buffer.concat([this.garbage, Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1")]);
      return true;
    }
    const status = Number(m[2]);
    const headers: [string, string][] = [];
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(":");
      headers.push(
        colon === -1
          ? [line.toLowerCase(), ""]
          : [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()],
      );
    }
    if (status >= 100 && status < 200) {
      this.interim.push(status);
      return true;
    }
    const isHead = this.head[this.responses.length] === true;
    const get = (name: string) => headers.find(([n]) => n === name)?.[1];
    const te = get("transfer-encoding");
    const cl = get("content-length");
    if (isHead || status === 204 || status === 304) {
      this.pending = { status, version: m[1]!, headers, framing: "none", length: 0 };
      this.emit(Buffer.alloc(0));
    } else if (te !== undefined && /chunked/i.test(te)) {
      this.pending = { status, version: m[1]!, headers, framing: "chunked", length: 0 };
    } else if (cl !== undefined && /^\d+$/.test(cl)) {
      this.pending = { status, version: m[1]!, headers, framing: "content-length", length: Number(cl) };
    } else {
      this.pending = { status, version: m[1]!, headers, framing: "close", length: 0 };
    }
    return true;
  }

  private readChunk(): boolean {
    const lineEnd = this.buffer.indexOf("\r\n");
    if (lineEnd === -1) return false;
    const size = parseInt(this.buffer.subarray(0, lineEnd).toString("latin1"), 16);
    if (!Number.isFinite(size)) {
      this.garbage = Buffer.concat([this.garbage, this.buffer]);
      this.buffer = Buffer.alloc(0);
      this.pending = undefined;
      return false;
    }
    if (size === 0) {
      // Last chunk, then (no trailers from our server) an empty line.
      if (this.buffer.length < lineEnd + 4) return false;
      this.buffer = this.buffer.subarray(lineEnd + 4);
      this.emit(Buffer.concat(this.chunks));
      return true;
    }
    if (this.buffer.length < lineEnd + 2 + size + 2) return false;
    this.chunks.push(this.buffer.subarray(lineEnd + 2, lineEnd + 2 + size));
    this.buffer = this.buffer.subarray(lineEnd + 2 + size + 2);
    return true;
  }

  private emit(body: Buffer): void {
    const p = this.pending!;
    this.responses.push({ status: p.status, version: p.version, headers: p.headers, body, framing: p.framing });
    this.pending = undefined;
    this.chunks = [];
  }
}

/** The value of a response header (first occurrence), or undefined. */
export function header(response: RawResponse, name: string): string | undefined {
  return response.headers.find(([n]) => n === name)?.[1];
}

/** How many times a response header occurs. */
export function headerCount(response: RawResponse, name: string): number {
  return response.headers.filter(([n]) => n === name).length;
}
