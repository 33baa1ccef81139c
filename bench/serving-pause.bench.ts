/**
 * Serving-pause benchmark: what a pause between pieces of work gives waiting requests
 * ==================================================================================
 * Measures the choice src/serving/serving-pause.ts makes (a timer, not setImmediate). A child
 * process serves node:http (an empty answer) and, once asked, runs PIECES pieces of PIECE_MS of
 * busy work, each followed by a pause of one kind: none, a setImmediate turn, or a timer of 1, 3 or
 * SERVING_PAUSE_MS ms. A client in this process sends a GET every CLIENT_EVERY_MS (open loop, a
 * keep-alive agent of 16 sockets, as bench/changes-compaction.ts's probes) from before the work to
 * after it, and prints per kind the slowest answers: with no pause they wait for the whole work;
 * a pause that lets them through makes them wait for one piece.
 *
 * Run: `npm run bench:serving-pause` (a few seconds; `--rounds N`, default 3, the kinds interleaved).
 */

import { type ChildProcess, fork } from "node:child_process";
import { Agent, createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { SERVING_PAUSE_MS } from "../src/serving/serving-pause.js";

const PIECES = 6;
const PIECE_MS = 70;
const CLIENT_EVERY_MS = 10;
/** Probes before and after the work. */
const MARGIN_MS = 300;
const SHOWN = 5;

const KINDS = ["none", "setImmediate", "timer 1 ms", "timer 3 ms", `timer ${SERVING_PAUSE_MS} ms`] as const;
type Kind = (typeof KINDS)[number];

function pause(kind: Kind): Promise<void> | undefined {
  // Each branch: no pause, a turn of the event loop, or a timer of the kind's ms.
  if (kind === "none") return undefined;
  if (kind === "setImmediate") return new Promise((resolve) => setImmediate(resolve));
  return new Promise((resolve) => setTimeout(resolve, Number(/\d+/.exec(kind)![0])));
}

/** The child: serves, and on a message runs the pieces with the kind's pauses, then answers. */
function serveChild(): void {
  const server = createServer((_req, res) => res.end());
  server.listen(0, "127.0.0.1", () => process.send!((server.address() as AddressInfo).port));
  process.on("message", async (kind: Kind) => {
    for (let i = 0; i < PIECES; i++) {
      const until = performance.now() + PIECE_MS;
      while (performance.now() < until);
      await pause(kind);
    }
    process.send!("done");
  });
}

async function measure(kind: Kind): Promise<number[]> {
  const child: ChildProcess = fork(new URL(import.meta.url), ["--child"]);
  const port = await new Promise<number>((resolve) => child.once("message", (m) => resolve(m as number)));
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const latencies: number[] = [];
  const pending = new Set<Promise<void>>();
  let stop = false;
  const loop = (async () => {
    while (!stop) {
      const t = performance.now();
      const p = new Promise<void>((resolve) => {
        request({ host: "127.0.0.1", port, path: "/", agent }, (res) => {
          res.resume();
          res.on("end", () => {
            latencies.push(performance.now() - t);
            resolve();
          });
        }).end();
      });
      pending.add(p);
      void p.finally(() => pending.delete(p));
      await new Promise((resolve) => setTimeout(resolve, CLIENT_EVERY_MS));
    }
  })();
  await new Promise((resolve) => setTimeout(resolve, MARGIN_MS));
  child.send(kind);
  await new Promise((resolve) => child.once("message", resolve));
  await new Promise((resolve) => setTimeout(resolve, MARGIN_MS));
  stop = true;
  await loop;
  await Promise.all(pending);
  agent.destroy();
  child.kill();
  return latencies.sort((a, b) => b - a);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" }, child: { type: "boolean" } } });
  if (values.child === true) return serveChild();
  console.log(`${PIECES} pieces of ${PIECE_MS} ms of work, a GET every ${CLIENT_EVERY_MS} ms; the slowest answers, ms`);
  for (let round = 1; round <= Number(values.rounds); round++)
    for (const kind of round % 2 === 1 ? KINDS : [...KINDS].reverse()) {
      const slowest = (await measure(kind)).slice(0, SHOWN);
      console.log(`round ${round}  ${kind.padEnd(14)} ${slowest.map((ms) => ms.toFixed(0).padStart(4)).join(" ")}`);
    }
}

await main();
