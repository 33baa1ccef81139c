/**
 * The event log's lines: one JSON object per line, keys in the request log's order (level, time,
 * pid, then the event), fields left undefined dropped, and a closed stdout never takes the server down.
 */

import { PassThrough } from "node:stream";
import { test } from "uvu";
import * as assert from "uvu/assert";
import { createEventLog, eventLine } from "../../src/serving/event-log.js";

test("a line: level, time, pid, event, then the fields given (undefined ones left out)", () => {
  const line = eventLine("warn", "worker-died", { workerPid: 7, code: null, signal: undefined }, new Date(0));
  assert.is(
    line,
    `{"level":"warn","time":"1970-01-01T00:00:00.000Z","pid":${process.pid},"event":"worker-died","workerPid":7,"code":null}\n`,
  );
});

test("one write per event; after the stream fails, events are dropped without throwing", () => {
  const out = new PassThrough();
  let text = "";
  out.on("data", (d: Buffer) => (text += d.toString()));
  const log = createEventLog(out);
  log.info("ready", { entities: 3 });
  log.error("reload-failed", { error: "e.jsonl:2: bad" });
  const lines = text
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  assert.equal(
    lines.map((l) => [l.level, l.event]),
    [
      ["info", "ready"],
      ["error", "reload-failed"],
    ],
  );
  out.emit("error", new Error("EPIPE"));
  log.info("stopped");
  assert.is(text.trim().split("\n").length, 2);
});

test.run();
