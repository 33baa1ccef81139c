/**
 * The explorer's interactions on a large graph (`npm run bench:explorer`)
 * ======================================================================
 * The issue's bound: every interaction of the explorer answered in under 100 ms on a 1M-entity
 * graph served locally. This builds a generated graph (tools/generator.ts; default 1,000,000
 * entities and 2,000,000 statements, seed 1), serves it with the explorer in this process
 * (`serve()` as `quiver serve` runs it), opens the page in Debian's chromium (headless,
 * playwright-core), and times, inside the page (performance.now(), so the browser driver's own
 * latency is not counted), from the person's action to the view showing its answer:
 *   - search: a value typed into the field (its input event) to the results and their status
 *     shown; the debounce (SEARCH_DEBOUNCE_MS) is inside this figure. The queries: random pieces of
 *     2 to 6 code points of real names, and single letters (the largest match sets, with totals);
 *   - more results: the button to the next page appended;
 *   - open an entity: a result clicked to the entity's page drawn (lookup, both lists, picture);
 *   - follow a statement: a link in a list clicked to that entity's page drawn;
 *   - more statements: the button of a hub's list (thousands of statements) to the rows appended;
 *   - back: history back to the search view shown again.
 * Prints p50, p95 and the largest of each over the rounds. Needs /usr/bin/chromium (CHROMIUM_PATH).
 * Flags: --entities N --statements N --rounds R --seed S.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium, type Page } from "playwright-core";
import { loadExplorer } from "../src/http/explorer.js";
import { serve } from "../src/http/server.js";
import { buildGeneratedGraph, generateEntities } from "../tools/generator.js";
import { mulberry32 } from "../tools/prng.js";

const KEY = "sk_bench_explorer";
const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const BOUND_MS = 100;
/** The longest any one interaction may take before the bench calls it lost. */
const GIVE_UP_MS = 10_000;

const { values } = parseArgs({
  options: {
    entities: { type: "string", default: "1000000" },
    statements: { type: "string", default: "2000000" },
    rounds: { type: "string", default: "30" },
    seed: { type: "string", default: "1" },
  },
});
const entities = Number(values.entities);
const statements = Number(values.statements);
const rounds = Number(values.rounds);
const seed = Number(values.seed);

/** Runs `act` in the page and resolves with the ms until `done(state)` holds (checked on every DOM change). */
async function timed(page: Page, act: string, done: string): Promise<number> {
  // A script, not a function: it runs in the browser, whose globals this program's types do not have.
  const script = `new Promise((resolve, reject) => {
    const state = { searching: false };
    const done = ${done};
    const t0 = performance.now();
    const observer = new MutationObserver(() => {
      if (document.getElementById("status")?.textContent?.startsWith("Searching")) state.searching = true;
      if (done(state)) {
        observer.disconnect();
        resolve(performance.now() - t0);
      }
    });
    observer.observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
    setTimeout(() => reject(new Error(${JSON.stringify(`no answer within ${GIVE_UP_MS} ms to `)} + ${JSON.stringify(act)})), ${GIVE_UP_MS});
    ${act}
  })`;
  return (await page.evaluate(script)) as number;
}

function summary(name: string, ms: number[], labels: string[]): string {
  const sorted = [...ms].sort((a, b) => a - b);
  const slowest = labels[ms.indexOf(Math.max(...ms))] ?? "";
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
  const max = sorted.at(-1)!;
  return `${name.padEnd(20)} n=${String(ms.length).padStart(3)}  p50 ${at(0.5).toFixed(1).padStart(6)} ms  p95 ${at(0.95).toFixed(1).padStart(6)} ms  max ${max.toFixed(1).padStart(6)} ms  ${max < BOUND_MS ? "under" : "OVER"} ${BOUND_MS} ms (slowest: ${slowest})`;
}

const SEARCH_DONE = `(s) => s.searching && !document.getElementById("status").textContent.startsWith("Searching")`;

async function main(): Promise<void> {
  const started = performance.now();
  const graph = buildGeneratedGraph({ entities, statements, seed });
  console.log(
    `graph: ${entities.toLocaleString("en-US")} entities, ${statements.toLocaleString("en-US")} statements, built in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  // Queries from real names: a random piece of 2 to 6 code points of every k-th name, and single letters.
  const rand = mulberry32(seed ^ 0x5eed);
  const names: string[] = [];
  const every = Math.max(1, Math.floor(entities / (rounds * 3)));
  let i = 0;
  for (const e of generateEntities({ entities, statements, seed })) {
    if (i++ % every === 0 && e.rawIdentifier.length >= 3) names.push(e.rawIdentifier);
  }
  const queries: string[] = ["e", "a", "n"];
  while (queries.length < rounds) {
    const points = [...names[Math.floor(rand() * names.length)]!];
    const length = 2 + Math.floor(rand() * 5);
    const start = Math.floor(rand() * Math.max(1, points.length - length));
    const q = points
      .slice(start, start + length)
      .join("")
      .trim();
    if (q.length >= 2) queries.push(q);
  }
  // A hub: the object of the first "instance of" statement (class-like objects collect most in-links).
  const hub = graph.statements({ limit: 1, predicateEntityId: "P1" }).items[0]?.objectEntityId ?? "P1";

  const running = await serve({ graph, apiKeys: [KEY], port: 0, explorer: loadExplorer(), log: undefined });
  const profile = mkdtempSync(join(tmpdir(), "quiver-bench-explorer-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
    viewport: { width: 1200, height: 900 },
  });
  const times: Record<string, number[]> = {
    search: [],
    "more results": [],
    "open an entity": [],
    "follow a statement": [],
    "more statements": [],
    back: [],
  };
  /** What each timed interaction was about (its query, or the entity), beside `times`. */
  const labels: Record<string, string[]> = Object.fromEntries(Object.keys(times).map((k) => [k, []]));
  const record = (name: string, label: string, ms: number): void => {
    times[name]!.push(ms);
    labels[name]!.push(label);
  };
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.addInitScript(`sessionStorage.setItem("quiver.apiKey", ${JSON.stringify(KEY)})`);
    await page.goto(`${running.url}/`);
    await page.locator("#q").waitFor();
    for (const q of queries) {
      const act = `const f = document.getElementById("q"); f.value = ${JSON.stringify(q)}; f.dispatchEvent(new Event("input"));`;
      record("search", JSON.stringify(q), await timed(page, act, SEARCH_DONE));
      if (await page.locator("#more").isVisible()) {
        const before = await page.locator("#results-list li").count();
        record(
          "more results",
          JSON.stringify(q),
          await timed(
            page,
            `document.getElementById("more").click();`,
            `() => document.querySelectorAll("#results-list li").length > ${before}`,
          ),
        );
      }
      if ((await page.locator("#results-list a.result").count()) === 0) continue;
      const first = (await page.locator("#results-list a.result .name").first().textContent()) ?? "";
      record(
        "open an entity",
        JSON.stringify(first),
        await timed(
          page,
          `document.querySelector("#results-list a.result").click();`,
          `() => !!document.getElementById("entity-title")`,
        ),
      );
      if ((await page.locator("#entity tbody a").count()) > 0) {
        const target = (await page.locator("#entity tbody td:not(.predicate) a").first().textContent()) ?? "";
        record(
          "follow a statement",
          JSON.stringify(target),
          await timed(
            page,
            `window.__title = document.getElementById("entity-title"); document.querySelector("#entity tbody td:not(.predicate) a").click();`,
            `() => { const t = document.getElementById("entity-title"); return !!t && t !== window.__title; }`,
          ),
        );
        await page.evaluate("history.back()");
        await page.locator("#entity-title").waitFor();
      }
      record(
        "back",
        JSON.stringify(q),
        await timed(page, `history.back();`, `() => !document.getElementById("results").hidden`),
      );
    }
    // A hub's list, page after page.
    await page.goto(`${running.url}/?entity=${hub}`);
    await page.locator("#entity-title").waitFor();
    const more = "section[aria-labelledby=as-object] button.more";
    for (let r = 0; r < rounds && (await page.locator(more).isVisible()); r++) {
      const before = await page.locator("section[aria-labelledby=as-object] tbody tr").count();
      record(
        "more statements",
        `${hub}, rows ${before}+`,
        await timed(
          page,
          `document.querySelector(${JSON.stringify(more)}).click();`,
          `() => document.querySelectorAll("section[aria-labelledby=as-object] tbody tr").length > ${before}`,
        ),
      );
    }
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
    await running.close();
  }
  console.log(`interactions, timed in the page from the action to its answer shown (search includes the debounce):`);
  for (const [name, ms] of Object.entries(times)) if (ms.length > 0) console.log(summary(name, ms, labels[name]!));
  // Where a slow search spends its time: the engine alone, in this process, for each order and count.
  console.log("the engine alone on the largest match sets (first page of 20; median of 5 calls):");
  for (const q of ["e", "a", "n"]) {
    const cells: string[] = [];
    for (const order of ["name", "score"] as const) {
      for (const count of [false, true]) {
        const ms: number[] = [];
        let total = 0;
        for (let r = 0; r < 5; r++) {
          const t0 = performance.now();
          total = graph.search({ q, order, count, limit: 20 }).total ?? total;
          ms.push(performance.now() - t0);
        }
        ms.sort((a, b) => a - b);
        cells.push(`${order}${count ? "+count" : ""} ${ms[2]!.toFixed(2)} ms`);
        if (count) cells[cells.length - 1] += ` (total ${total.toLocaleString("en-US")})`;
      }
    }
    console.log(`  q=${JSON.stringify(q)}: ${cells.join(", ")}`);
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
