/**
 * `quiver serve` as users run it: a child process on port 0. The generated key and its curl line,
 * progress and summary, request logs, QUIVER_API_KEYS, shared cursor secrets, a bad data file, usage
 * errors, --help, and the SIGTERM/SIGINT drain.
 */

import { execFile } from "node:child_process";
import net from "node:net";
import { promisify } from "node:util";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { listening, runQuiver, stop, tempFiles } from "../support/cli.js";

const exec = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test("demo graph, no QUIVER_API_KEYS: a generated key, a curl line that works, progress, summary, logs", async () => {
  const child = runQuiver(["serve", "--port", "0"]);
  try {
    const url = await listening(child);
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const err = child.stderr();
    assert.match(err, /reading entities .*entities\.jsonl: 573 lines, .* lines\/s/);
    assert.match(err, /reading statements .*statements\.jsonl: 566 lines/);
    assert.match(err, /building search-index/);
    assert.match(err, /^ready: 573 entities, 566 statements, loaded and built in [\d.]+ s; memory: heap [\d.]+ MB/m);
    const key = /^ {2}(sk_[A-Za-z0-9_-]{32})$/m.exec(err)?.[1];
    assert.ok(key, "the generated key is printed on a line of its own");
    const curls = err.split("\n").filter((l) => l.trim().startsWith("curl "));
    assert.is(curls.length, 2);
    for (const line of curls) {
      // The printed line, run by a shell as a user would paste it.
      const { stdout } = await exec("sh", ["-c", line.trim() + " -s -w '\\n%{http_code}'"]);
      const [body, status] = stdout.split("\n");
      assert.is(status, "200", line);
      assert.ok(JSON.parse(body!).items.length > 0, line);
    }
    await sleep(100);
    const lines = child
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    // Event lines (startup, ready) and request lines share stdout; requests have no "event".
    const logs = lines.filter((l) => l.event === undefined);
    assert.equal(
      lines.filter((l) => l.event !== undefined).map((l) => l.event),
      ["startup", "ready"],
    );
    assert.equal(
      logs.map((l) => [l.method, l.path, l.status]),
      [
        ["GET", "/graph/v1/search", 200],
        ["GET", "/graph/v1/statements", 200],
      ],
    );
    for (const l of logs)
      assert.equal(Object.keys(l), ["level", "time", "pid", "id", "method", "path", "status", "ms"]);
    assert.not.ok(child.stdout().includes(key!));
  } finally {
    assert.is(await stop(child), 0);
  }
});

test("QUIVER_API_KEYS: those keys are accepted, none is printed; --quiet: no request log", async () => {
  const child = runQuiver(["serve", "--port", "0", "--quiet"], { QUIVER_API_KEYS: " sk_one_key , sk_two_key ,," });
  try {
    const url = await listening(child);
    for (const [key, status] of [
      ["sk_one_key", 200],
      ["sk_two_key", 200],
      ["sk_three", 401],
    ] as const) {
      const r = await fetch(`${url}/graph/v1/search?q=male`, { headers: { "X-API-Key": key } });
      assert.is(r.status, status, key);
    }
    assert.not.ok(child.stderr().includes("sk_one_key") || child.stderr().includes("sk_two_key"));
    assert.match(child.stderr(), /X-API-Key: <one of QUIVER_API_KEYS>/);
    await sleep(100);
    const events = child
      .stdout()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    assert.ok(
      events.every((l) => typeof l.event === "string"),
      "only event lines: no request line with --quiet",
    );
  } finally {
    assert.is(await stop(child), 0);
  }
});

test("a bad QUIVER_API_KEYS entry: exit 2, named by position, its text never printed", async () => {
  const child = runQuiver(["serve", "--port", "0"], { QUIVER_API_KEYS: "sk_fine,pk_live_secret" });
  assert.is(await child.exited, 2);
  assert.match(child.stderr(), /key 2 of 2/);
  assert.not.ok(child.stderr().includes("pk_live_secret"));
});

test("--entities/--statements: that graph; --cursor-secret and QUIVER_CURSOR_SECRET: replicas share cursors", async () => {
  const entities = Array.from({ length: 30 }, (_, i) =>
    JSON.stringify({ entityId: `n${i}`, rawIdentifier: `Node ${i}`, type: "0", sourceType: "t" }),
  ).join("\n");
  const files = await tempFiles({
    "e.jsonl": entities + "\n",
    "s.jsonl": '{"subjectEntityId":"n1","predicateEntityId":"n2","objectEntityId":"n3"}\n',
  });
  const data = ["--entities", files["e.jsonl"]!, "--statements", files["s.jsonl"]!];
  const key = { QUIVER_API_KEYS: "sk_replica" };
  const a = runQuiver(
    ["serve", "--port", "0", "--quiet", ...data, "--cursor-secret", "shared secret 0123456789abcdefXYZ"],
    key,
  );
  const b = runQuiver(["serve", "--port", "0", "--quiet", ...data], {
    ...key,
    QUIVER_CURSOR_SECRET: "shared secret 0123456789abcdefXYZ",
  });
  const c = runQuiver(["serve", "--port", "0", "--quiet", ...data], key);
  try {
    const [ua, ub, uc] = await Promise.all([listening(a), listening(b), listening(c)]);
    assert.match(a.stderr(), /ready: 30 entities, 1 statements/);
    const get = (u: string, q: string) =>
      fetch(`${u}/graph/v1/search?q=${q}`, { headers: { "X-API-Key": "sk_replica" } });
    const first = (await (await get(ua, "node&limit=10")).json()) as any;
    assert.is(first.items.length, 10);
    const onB = await get(ub, `node&limit=10&cursor=${first.nextCursor}`);
    assert.is(onB.status, 200, "same secret: the cursor works on the replica");
    assert.is(((await onB.json()) as any).items[0].entityId, "n18");
    assert.is((await get(uc, `node&cursor=${first.nextCursor}`)).status, 400, "another (random) secret: 400");
  } finally {
    assert.equal(await Promise.all([stop(a), stop(b), stop(c)]), [0, 0, 0]);
  }
});

test("a bad data file: the loader's file:line error, exit 1, and no port opened", async () => {
  const files = await tempFiles({
    "e.jsonl":
      '{"entityId":"a","rawIdentifier":"A","type":"0","sourceType":"t"}\n\n{"entityId":"b","rawIdentifier":"B","type":"9","sourceType":"t"}\n',
    "s.jsonl": "",
  });
  const child = runQuiver(["serve", "--port", "0", "--entities", files["e.jsonl"]!, "--statements", files["s.jsonl"]!]);
  assert.is(await child.exited, 1);
  assert.match(child.stderr(), new RegExp(`${files["e.jsonl"]!.replace(/[.]/g, "\\.")}:3: `));
  assert.not.match(child.stderr(), /listening on/);
  const missing = runQuiver([
    "serve",
    "--port",
    "0",
    "--entities",
    "/nonexistent/e.jsonl",
    "--statements",
    files["s.jsonl"]!,
  ]);
  assert.is(await missing.exited, 1);
  assert.match(missing.stderr(), /\/nonexistent\/e\.jsonl/);
});

test("usage errors exit 2 and point to --help", async () => {
  for (const args of [
    ["serve", "--port", "http"],
    ["serve", "--port", "70000"],
    ["serve", "--bogus"],
    ["serve", "--entities", "x.jsonl"],
    ["serve", "extra"],
    ["nope"],
    [],
  ]) {
    const child = runQuiver(args);
    assert.is(await child.exited, 2, args.join(" "));
    assert.ok(child.stderr().length + child.stdout().length > 0);
  }
  const bad = runQuiver(["serve", "--cursor-secret", ""]);
  assert.is(await bad.exited, 2);
});

test("--help explains every option and environment variable", async () => {
  const child = runQuiver(["serve", "--help"]);
  assert.is(await child.exited, 0);
  for (const word of [
    "--entities",
    "--statements",
    "--host",
    "--port",
    "--cursor-secret",
    "--quiet",
    "--help",
    "QUIVER_API_KEYS",
    "QUIVER_CURSOR_SECRET",
    "--workers",
    "--metrics",
    "--cache-mb",
    "--version",
    "PORT",
    "HOST",
    "QUIVER_METRICS",
    "SIGTERM",
    "SIGHUP",
    "Exit status",
  ]) {
    assert.ok(child.stdout().includes(word), word);
  }
  const top = runQuiver(["--help"]);
  assert.is(await top.exited, 0);
  assert.match(top.stdout(), /serve/);
  const viaHelp = runQuiver(["help", "serve"]);
  assert.is(await viaHelp.exited, 0);
  assert.match(viaHelp.stdout(), /--cursor-secret/);
});

test("SIGTERM while loading: stops at once with status 0, never listens", async () => {
  const lines = Array.from(
    { length: 300_000 },
    (_, i) => `{"entityId":"e${i}","rawIdentifier":"Entity number ${i}","type":"0","sourceType":"t"}`,
  );
  const files = await tempFiles({ "e.jsonl": lines.join("\n") + "\n", "s.jsonl": "" });
  const child = runQuiver(["serve", "--port", "0", "--entities", files["e.jsonl"]!, "--statements", files["s.jsonl"]!]);
  // The first progress line: loading has begun, and 300,000 lines are far from read.
  while (!/reading entities/.test(child.stderr()) && child.process.exitCode === null) await sleep(10);
  child.process.kill("SIGTERM");
  assert.is(await child.exited, 0);
  assert.match(child.stderr(), /SIGTERM before the server was listening/);
  assert.not.match(child.stderr(), /listening on/);
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal}: stop accepting, finish the request in flight, exit 0`, async () => {
    const child = runQuiver(["serve", "--port", "0"], { QUIVER_API_KEYS: "sk_drain" });
    const url = new URL(await listening(child));
    const socket = net.connect(Number(url.port), url.hostname);
    let answer = "";
    socket.setEncoding("utf8").on("data", (d: string) => (answer += d));
    const socketClosed = new Promise((r) => socket.on("close", r));
    await new Promise((r) => socket.on("connect", r));
    socket.write("GET /graph/v1/search?q=male&limit=1 HTTP/1.1\r\nHost: x\r\n");
    await sleep(100);
    child.process.kill(signal);
    await sleep(300);
    assert.match(child.stderr(), new RegExp(`${signal}: stopping`));
    assert.is(child.process.exitCode, null, "still running while a request is in flight");
    const refused = await new Promise((r) =>
      net
        .connect(Number(url.port), url.hostname)
        .on("error", () => r(true))
        .on("connect", () => r(false)),
    );
    assert.ok(refused, "no longer accepting");
    socket.write("X-API-Key: sk_drain\r\n\r\n");
    await socketClosed;
    assert.match(answer, /^HTTP\/1\.1 200 OK/);
    assert.match(answer, /"nextCursor"/);
    assert.is(await child.exited, 0);
    assert.match(child.stdout(), /"status":200/, "the drained request was logged before exit");
  });
}

test.run();
