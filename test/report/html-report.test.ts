/**
 * The benchmark's report, in a real browser (`npm run test:report`)
 * =================================================================
 * Runs the benchmark as a user does (`node dist/bench/main.js`, a small and fast size, no import of
 * bench/), then checks what it printed and the HTML report it wrote:
 *  - the terminal output fits 100 columns, and the run recorded no failed part;
 *  - by default nothing is judged: no goal, no pass or FAIL, in the output or the report; the
 *    project's goals appear only with `--goals` (drawn again from the same results here);
 *  - Debian's chromium, headless through playwright-core, loads the report with no console error,
 *    no page error and no request for anything but the file itself (it must be self-contained);
 *    every chart is there, drawn (a size, marks inside), and a screenshot of the whole page is
 *    taken (kept in bench/results/report-test.png for a person to look at).
 * Needs the system package `chromium` (.ci/run installs it): without it the test fails with a
 * sentence saying so, never skips. CHROMIUM_PATH overrides /usr/bin/chromium.
 * The snapshot part is left out of the run: this checks the report, the snapshot has its own tests.
 */

import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { test } from "uvu";
import * as assert from "uvu/assert";

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium";
const LAUNCH_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];
/** The charts every full run draws (bench/charts.ts names them). */
const CHARTS = [
  "stream-latency",
  "stream-cdf",
  "depth",
  "search-latency",
  "statements-latency",
  "statements-baselines",
  "build-phases",
  "memory-code-unit",
  "memory-statement",
];
/** A run small enough for a test on a busy 2-core machine: tens of seconds. */
const SMALL_RUN = [
  "--entities",
  "3000",
  "--statements",
  "30000",
  "--queries",
  "200",
  "--naive-queries",
  "10",
  "--time",
  "30",
  "--baseline-statements",
  "10000",
  "--only",
  "memory,stream,depth,search,statements",
];
const RUN_TIMEOUT_MS = 10 * 60_000;
const TERMINAL_COLUMNS = 100;

let dir = "";
let stdout = "";

// Setup as tests, not in test.before: uvu swallows an error thrown by a before hook (the suite would
// pass having run nothing), and a missing chromium must fail with its sentence.
test("Debian's chromium is installed", () => {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `npm run test:report needs Debian's chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (or set CHROMIUM_PATH)`,
    );
});

test("a small benchmark run writes its results and report", async () => {
  dir = await mkdtemp(join(tmpdir(), "quiver-report-test-"));
  stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      process.execPath,
      [
        "--expose-gc",
        "dist/bench/main.js",
        ...SMALL_RUN,
        "--data-dir",
        join(dir, "data"),
        "--out",
        join(dir, "results.json"),
      ],
      { timeout: RUN_TIMEOUT_MS, maxBuffer: 16 * 2 ** 20 },
      (error, out, err) => (error ? reject(new Error(`the benchmark failed: ${error.message}\n${err}`)) : resolve(out)),
    );
  });
  assert.ok(existsSync(join(dir, "results.json")) && existsSync(join(dir, "results.html")));
});

test.after(async () => {
  if (dir !== "") await rm(dir, { recursive: true, force: true });
});

test("the terminal output fits 100 columns", () => {
  const wide = stdout.split("\n").filter((line) => [...line].length > TERMINAL_COLUMNS);
  assert.equal(wide, [], `lines wider than ${TERMINAL_COLUMNS} columns`);
  assert.match(stdout, /Distinct-query stream \(headline\)/);
});

test("by default a run judges nothing: no goals, no pass, no FAIL", async () => {
  assert.not.match(stdout, /Goals|goal|\bFAIL\b|\bpass\b/);
  const html = await readFile(join(dir, "results.html"), "utf8");
  // Only the page's text and the charts' labels: the stylesheet names the verdict classes either way.
  const shown = html.replace(/<style>[\s\S]*?<\/style>/, "");
  assert.not.match(shown, /[Gg]oal|\bFAIL\b|\bpass\b/);
});

test("--goals draws the project's goals into the report", async () => {
  const goals = join(dir, "goals.html");
  await new Promise<void>((resolve, reject) =>
    execFile(
      process.execPath,
      ["dist/bench/html-report.js", join(dir, "results.json"), "--goals", "--out", goals],
      (error, _out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve()),
    ),
  );
  assert.match(await readFile(goals, "utf8"), /<h2>Project goals<\/h2>/);
});

test("the results record every part and no failure", async () => {
  const results = JSON.parse(await readFile(join(dir, "results.json"), "utf8"));
  assert.equal(results.errors, []);
  for (const part of ["memory", "stream", "depth", "search", "statements"]) assert.ok(results[part] !== null, part);
  assert.equal(results.stream.disagreements, [], "the baselines' pages equal Quiver's");
  assert.ok(results.goals.length > 0);
});

test("chromium shows the report: every chart, no console error, no request elsewhere", async () => {
  const profile = await mkdtemp(join(tmpdir(), "quiver-report-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: LAUNCH_FLAGS,
    viewport: { width: 1000, height: 800 },
  });
  const problems: string[] = [];
  const report = pathToFileURL(join(dir, "results.html")).href;
  try {
    // Anything but the report itself is a dependency the report must not have: refuse and record it.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url === report) return route.continue();
      problems.push(`request for ${url}`);
      return route.abort();
    });
    const page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(`console ${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    await page.goto(report, { waitUntil: "load" });

    const drawn = await page.$$eval("svg[data-chart]", (svgs) =>
      svgs.map((svg) => {
        const box = svg.getBoundingClientRect();
        return {
          name: svg.getAttribute("data-chart"),
          width: box.width,
          height: box.height,
          marks: svg.querySelectorAll("circle, path, rect, line").length,
        };
      }),
    );
    assert.equal(drawn.map((c) => c.name).sort(), [...CHARTS].sort(), "the charts of the report");
    for (const c of drawn) {
      assert.ok(c.width > 300 && c.height > 80, `${c.name} has a size (${c.width} x ${c.height})`);
      assert.ok(c.marks > 5, `${c.name} has marks (${c.marks})`);
    }
    const shot = join(dir, "report.png");
    await page.screenshot({ path: shot, fullPage: true });
    assert.ok((await stat(shot)).size > 20_000, "the screenshot shows something");
    await mkdir("bench/results", { recursive: true });
    await copyFile(shot, "bench/results/report-test.png");
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
  assert.equal(problems, [], "console errors, page errors or requests");
});

test.run();
