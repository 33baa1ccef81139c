/**
 * Stop signals of `quiver serve` (cli/serve-process.ts)
 * =====================================================
 * The first SIGTERM or SIGINT drains, a second one cuts; the same signal again at once is the first
 * delivered twice (npm passes on the Ctrl-C the terminal gave the server too). A stop asked for by other means (the
 * primary's "drain" message to a worker, the primary or npm gone) only starts the drain: it is not
 * a second signal. A worker of `--workers N` gets both a signal and the primary's drain message
 * whenever the signal goes to the whole process group (Ctrl-C in a terminal, `timeout`, systemd's
 * default KillMode=control-group); counted as a repeat, that cut the requests in flight.
 * The signals are emitted on `process` (the listeners run, nothing is delivered by the kernel), on a
 * clock of the test's own; the listeners each test adds are removed after it.
 */

import { test } from "uvu";
import * as assert from "uvu/assert";
import { catchStopSignals, SIGNAL_ECHO_MS } from "../../src/cli/serve-process.js";

/** The clock the signals see: moved by hand. */
let clock = 0;

/** Runs `body` with catchStopSignals' listeners removed afterwards, and stderr's lines captured. */
async function withStopSignals(body: (stop: ReturnType<typeof catchStopSignals>) => Promise<void>): Promise<string> {
  const before = { SIGINT: process.listeners("SIGINT"), SIGTERM: process.listeners("SIGTERM") };
  const write = process.stderr.write;
  let written = "";
  process.stderr.write = ((chunk: string | Uint8Array) => {
    written += String(chunk);
    return true;
  }) as typeof process.stderr.write;
  try {
    clock = 0;
    await body(catchStopSignals(() => clock));
  } finally {
    process.stderr.write = write;
    for (const signal of ["SIGINT", "SIGTERM"] as const)
      for (const listener of process.listeners(signal))
        if (!before[signal].includes(listener)) process.off(signal, listener);
  }
  return written;
}

test("a drain asked for after the signal (a worker's SIGINT, then the primary's drain) does not cut", async () => {
  let cuts = 0;
  const written = await withStopSignals(async (stop) => {
    stop.onRepeat(() => cuts++);
    process.emit("SIGINT", "SIGINT");
    assert.is(await stop.first, "SIGINT");
    stop.trigger("SIGTERM"); // the primary's drain message
    stop.trigger("SIGTERM"); // the primary gone (disconnect)
  });
  assert.is(cuts, 0);
  assert.not.match(written, /again/);
});

test("a signal after a drain asked for otherwise starts nothing new, and a second signal cuts", async () => {
  let cuts = 0;
  const written = await withStopSignals(async (stop) => {
    stop.onRepeat(() => cuts++);
    stop.trigger("SIGTERM");
    assert.is(await stop.first, "SIGTERM");
    process.emit("SIGTERM", "SIGTERM");
    assert.is(cuts, 0);
    process.emit("SIGINT", "SIGINT");
    assert.is(cuts, 1);
  });
  assert.match(written, /^quiver serve: SIGINT again: closing every connection now$/m);
});

test("two signals: the first drains, the second cuts", async () => {
  let cuts = 0;
  const written = await withStopSignals(async (stop) => {
    stop.onRepeat(() => cuts++);
    process.emit("SIGTERM", "SIGTERM");
    assert.is(await stop.first, "SIGTERM");
    assert.is(cuts, 0);
    clock += SIGNAL_ECHO_MS;
    process.emit("SIGTERM", "SIGTERM");
    assert.is(cuts, 1);
  });
  assert.match(written, /SIGTERM again/);
});

test("the same signal again at once (npm passing on a Ctrl-C the server got too) does not cut", async () => {
  let cuts = 0;
  const written = await withStopSignals(async (stop) => {
    stop.onRepeat(() => cuts++);
    process.emit("SIGINT", "SIGINT");
    clock += 1; // npm's echo came about 1 ms after the terminal's signal
    process.emit("SIGINT", "SIGINT");
    assert.is(await stop.first, "SIGINT");
    assert.is(cuts, 0);
    clock += SIGNAL_ECHO_MS; // a person's second Ctrl-C
    process.emit("SIGINT", "SIGINT");
    assert.is(cuts, 1);
  });
  assert.is(written.match(/again/g)?.length, 1);
});

test("another signal at once is a second signal: it cuts", async () => {
  let cuts = 0;
  await withStopSignals(async (stop) => {
    stop.onRepeat(() => cuts++);
    process.emit("SIGTERM", "SIGTERM");
    process.emit("SIGINT", "SIGINT");
    assert.is(cuts, 1);
  });
});

test.run();
