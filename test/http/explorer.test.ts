/**
 * The explorer page, served (src/http/explorer.ts through the router)
 * ==================================================================
 * GET / answers the built page without a key; its assets answer under /explorer/ with strong tags
 * per coding, 304 on a tag the client holds (identity or the coding it asks for), a year's caching
 * for hashed names and `no-cache` for the page; HEAD answers as GET without a body; other methods
 * 405; unknown assets 404; a handler given no explorer (the embedded default, `--no-ui`) answers
 * "/" 404. The built page (dist/explorer-assets, which `npm test` builds first) stays under the
 * budget compressed, and names no other origin. `quiver serve` serves it, and `--no-ui` does not.
 */

import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import { test } from "uvu";
import * as assert from "uvu/assert";
import {
  ASSET_CACHE_CONTROL,
  EXPLORER_ASSETS_DIR,
  loadExplorer,
  PAGE_CACHE_CONTROL,
  type Explorer,
} from "../../src/http/explorer.js";
import { createFetchHandler } from "../../src/http/fetch.js";
import * as exported from "../../src/index.js";
import { listening, runQuiver, stop } from "../support/cli.js";
import { buildSmallGraph, KEY, request, startServer } from "../support/http.js";

/** The budget: the page and everything it loads, compressed. */
const BUDGET_BYTES = 150 * 1024;

const built: Explorer = loadExplorer();
const page = built.assets.get("index.html")!.bodies.identity!.toString("utf8");
const script = /src="explorer\/(app\.[0-9a-f]+\.js)"/.exec(page)?.[1] ?? "";
const style = /href="explorer\/(app\.[0-9a-f]+\.css)"/.exec(page)?.[1] ?? "";

test("the built page names its hashed script and style, and they exist", () => {
  assert.ok(script !== "" && built.assets.has(script), `script ${script}`);
  assert.ok(style !== "" && built.assets.has(style), `style ${style}`);
});

test("GET / is the page, without a key: HTML, no-cache, a tag, the content policy", async () => {
  const server = await startServer(buildSmallGraph(), { explorer: built });
  try {
    const r = await request(server.port, "/", { key: null });
    assert.is(r.status, 200);
    assert.is(r.headers["content-type"], "text/html; charset=utf-8");
    assert.is(r.headers["cache-control"], PAGE_CACHE_CONTROL);
    assert.match(String(r.headers["etag"]), /^"[A-Za-z0-9_-]+"$/);
    assert.match(String(r.headers["content-security-policy"]), /default-src 'none'.*connect-src 'self'/);
    assert.match(r.body, /<label for="key">API key<\/label>/);
    // The page carries no data: nothing of the graph is in it.
    assert.not.match(r.body, /Berlin|q:germany/);
    // A query string is the page's own view state: the same page.
    const deep = await request(server.port, "/?q=ber&entity=q%3Aberlin", { key: null });
    assert.is(deep.status, 200);
    assert.is(deep.body, r.body);
  } finally {
    await server.close();
  }
});

test("assets: a year's caching, a tag per coding, 304 on the tag held", async () => {
  const server = await startServer(buildSmallGraph(), { explorer: built });
  try {
    const plain = await request(server.port, `/explorer/${script}`, { key: null });
    assert.is(plain.status, 200);
    assert.is(plain.headers["content-type"], "text/javascript; charset=utf-8");
    assert.is(plain.headers["cache-control"], ASSET_CACHE_CONTROL);
    assert.is(plain.headers["vary"], "Accept-Encoding");
    const tag = String(plain.headers["etag"]);
    const br = await request(server.port, `/explorer/${script}`, {
      key: null,
      headers: { "accept-encoding": "gzip, br" },
    });
    assert.is(br.headers["content-encoding"], "br");
    assert.is(br.headers["etag"], tag.replace(/"$/, '-br"'));
    assert.ok(Number(br.headers["content-length"]) < Number(plain.headers["content-length"]));
    const gz = await request(server.port, `/explorer/${style}`, { key: null, headers: { "accept-encoding": "gzip" } });
    assert.is(gz.headers["content-encoding"], "gzip");
    for (const [held, coding] of [
      [tag, "identity"],
      [String(br.headers["etag"]), "br"],
      [`W/${tag}`, "gzip, br"],
      ["*", "identity"],
    ] as const) {
      const r = await request(server.port, `/explorer/${script}`, {
        key: null,
        headers: { "if-none-match": held, "accept-encoding": coding },
      });
      assert.is(r.status, 304, `${held} with ${coding}`);
      assert.is(r.body, "");
      assert.is(r.headers["cache-control"], ASSET_CACHE_CONTROL);
    }
    const page304 = await request(server.port, "/", { key: null });
    const again = await request(server.port, "/", {
      key: null,
      headers: { "if-none-match": String(page304.headers["etag"]) },
    });
    assert.is(again.status, 304);
    const stale = await request(server.port, `/explorer/${script}`, {
      key: null,
      headers: { "if-none-match": '"other"' },
    });
    assert.is(stale.status, 200);
  } finally {
    await server.close();
  }
});

test("HEAD answers as GET without a body; other methods 405; unknown assets 404", async () => {
  const server = await startServer(buildSmallGraph(), { explorer: built });
  try {
    const get = await request(server.port, "/", { key: null });
    const head = await request(server.port, "/", { key: null, method: "HEAD" });
    assert.is(head.status, 200);
    assert.is(head.body, "");
    assert.is(head.headers["content-length"], get.headers["content-length"]);
    assert.is(head.headers["etag"], get.headers["etag"]);
    const post = await request(server.port, "/", { key: null, method: "POST" });
    assert.is(post.status, 405);
    assert.is(post.headers["allow"], "GET, HEAD");
    assert.is(JSON.parse(post.body).code, "METHOD_NOT_ALLOWED");
    for (const path of ["/explorer/nothing.js", "/explorer/", "/explorer/index.html", "/explorer/../index.html"]) {
      const r = await request(server.port, path, { key: null });
      assert.is(r.status, 404, path);
      assert.is(JSON.parse(r.body).code, "NOT_FOUND", path);
    }
    // The API is as it was: its key still required.
    assert.is((await request(server.port, "/graph/v1/search?q=ber", { key: null })).status, 401);
    assert.is((await request(server.port, "/graph/v1/search?q=ber")).status, 200);
  } finally {
    await server.close();
  }
});

test("without an explorer (the embedded default), / and /explorer/ are 404 like any path", async () => {
  const server = await startServer(buildSmallGraph());
  try {
    for (const path of ["/", `/explorer/${script}`]) {
      const r = await request(server.port, path, { key: null });
      assert.is(r.status, 404, path);
      assert.is(JSON.parse(r.body).code, "NOT_FOUND");
    }
  } finally {
    await server.close();
  }
});

test("the embedded API (the package's exports): off unless given loadExplorer(), then served by the fetch adapter too", async () => {
  const graph = buildSmallGraph();
  const plain = createFetchHandler(graph, { apiKeys: [KEY] });
  assert.is((await plain(new Request("http://host/"))).status, 404);
  const withPage = createFetchHandler(graph, { apiKeys: [KEY], explorer: exported.loadExplorer() });
  const r = await withPage(new Request("http://host/?q=ber"));
  assert.is(r.status, 200);
  assert.is(r.headers.get("content-type"), "text/html; charset=utf-8");
  assert.is(await r.text(), page);
  const head = await withPage(new Request(`http://host/explorer/${style}`, { method: "HEAD" }));
  assert.is(head.status, 200);
  assert.is(head.headers.get("cache-control"), ASSET_CACHE_CONTROL);
});

test("compression off (behind a proxy that compresses): the assets go as they are", async () => {
  const server = await startServer(buildSmallGraph(), { explorer: built, compression: false });
  try {
    const r = await request(server.port, `/explorer/${script}`, { key: null, headers: { "accept-encoding": "br" } });
    assert.is(r.status, 200);
    assert.is(r.headers["content-encoding"], undefined);
  } finally {
    await server.close();
  }
});

test("the page and its assets are under the budget compressed, and name no other origin", () => {
  let brotli = 0;
  let gzip = 0;
  let raw = 0;
  for (const asset of built.assets.values()) {
    const identity = asset.bodies.identity!;
    raw += identity.length;
    brotli += (asset.bodies.br ?? identity).length;
    gzip += (asset.bodies.gzip ?? identity).length;
    // What is kept decodes to the bytes.
    if (asset.bodies.br) assert.equal(zlib.brotliDecompressSync(asset.bodies.br), identity);
    if (asset.bodies.gzip) assert.equal(zlib.gunzipSync(asset.bodies.gzip), identity);
    // No URL of another origin: only the SVG namespace (a name, never fetched).
    const text = identity.toString("utf8").replaceAll("http://www.w3.org/2000/svg", "");
    assert.not.match(text, /(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i, `${asset.name} names no other origin`);
  }
  assert.ok(gzip < BUDGET_BYTES, `gzip ${gzip} B`);
  assert.ok(brotli < BUDGET_BYTES, `brotli ${brotli} B`);
  console.log(`  explorer: ${raw} B raw, ${gzip} B gzip, ${brotli} B brotli (budget ${BUDGET_BYTES} B)`);
});

test("a directory without the built page: an error that says how to build it", async () => {
  const dir = await mkdtemp(join(tmpdir(), "quiver-explorer-"));
  try {
    assert.throws(() => loadExplorer(join(dir, "none")), /not built .*npm run build.*--no-ui/);
    await writeFile(join(dir, "app.0123.js"), "x");
    assert.throws(() => loadExplorer(dir), /index\.html is missing/);
    await writeFile(join(dir, "index.html"), "<!doctype html><title>t</title>");
    const small = loadExplorer(dir);
    // A file too small to gain from compression is kept as it is only.
    assert.equal(Object.keys(small.assets.get("app.0123.js")!.bodies), ["identity"]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  assert.ok(EXPLORER_ASSETS_DIR.endsWith(join("dist", "explorer-assets") + "/"));
});

test("quiver serve serves the page at /; --no-ui answers 404 there and keeps the API", async () => {
  for (const ui of [true, false]) {
    const child = runQuiver(["serve", "--port", "0", "--quiet", ...(ui ? [] : ["--no-ui"])], {
      QUIVER_API_KEYS: "sk_explorer",
    });
    try {
      const url = await listening(child);
      const r = await fetch(`${url}/`);
      assert.is(r.status, ui ? 200 : 404);
      assert.is(child.stderr().includes(`explorer: ${url}/`), ui, "the explorer's line");
      const api = await fetch(`${url}/graph/v1/search?q=a`, { headers: { "X-API-Key": "sk_explorer" } });
      assert.is(api.status, 200);
    } finally {
      assert.is(await stop(child), 0);
    }
  }
});

test.run();
