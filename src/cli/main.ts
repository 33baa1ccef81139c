#!/usr/bin/env node
/**
 * `quiver` command
 * ================
 * The package's `bin`: `quiver <command> [options]` (inside the repository `npm run quiver -- ...`;
 * `npm start` is `quiver serve`). One table of commands, in the order a user meets them; each
 * command parses its own options and resolves with its exit status (command.ts).
 */

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runBuild } from "./build.js";
import { runApply, runCompact } from "./changes.js";
import { type Command, EXIT_FAILURE, EXIT_USAGE, isClosedOutput } from "./command.js";
import { runConvert } from "./convert.js";
import { runDump } from "./dump.js";
import { runInfo } from "./info.js";
import { runEntity, runSearch, runStatements } from "./query.js";
import { VERSION } from "./version.js";

const COMMANDS: Record<string, Command> = {
  // Loaded only when it runs: the server's modules (node:http, the metrics and tracing packages) were
  // about a tenth of every other command's start-up (`quiver search --entities fixtures/entities.jsonl
  // --statements fixtures/statements.jsonl --q paul`, 5 runs x 3 alternations: 364-400 -> 330-353 ms).
  serve: {
    summary: "load a graph and serve the HTTP API (what `npm start` runs)",
    run: async (argv) => (await import("./serve.js")).runServe(argv),
  },
  build: { summary: "build a snapshot file from JSON Lines (serve it with serve --snapshot FILE)", run: runBuild },
  info: { summary: "describe a snapshot file: format, counts, checksum, sizes, build time", run: runInfo },
  apply: { summary: "append a batch of changes to a change log (as its writer)", run: runApply },
  compact: { summary: "fold a change log into its base: a new snapshot", run: runCompact },
  search: { summary: "search entity identifiers in a graph; prints JSON Lines", run: runSearch },
  entity: { summary: "print one entity of a graph by its entityId", run: runEntity },
  statements: { summary: "list the statements of a graph matching filters; prints JSON Lines", run: runStatements },
  dump: { summary: "write a graph (a snapshot) back as entities.jsonl and statements.jsonl", run: runDump },
  convert: {
    summary: "convert a YAGO3-10 or FB15k-237 folder to entities.jsonl and statements.jsonl",
    run: runConvert,
  },
};

export const MAIN_HELP = `Usage: quiver <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(11)}${c.summary}`)
  .join("\n")}

Run "quiver <command> --help" for the options and environment variables of a command,
"quiver --version" for the version.
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = name === "help" && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    if (topic !== undefined) return topic.run(["--help"]);
    process.stdout.write(MAIN_HELP);
    return name === undefined ? EXIT_USAGE : 0;
  }
  if (name === "--version" || name === "-v") {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`quiver: unknown command ${JSON.stringify(name)}\n\n${MAIN_HELP}`);
    return EXIT_USAGE;
  }
  return command.run(rest);
}

/** How long the exit waits for a slow reader of stdout to take the last lines. */
const STDOUT_EXIT_WAIT_MS = 5000;

/**
 * process.exit drops what a piped stdout has not written yet (node writes pipes asynchronously):
 * the last event lines (`stopped`) go out first, within STDOUT_EXIT_WAIT_MS.
 */
function exitWhenWritten(status: number): void {
  if (process.stdout.writableLength === 0) process.exit(status);
  process.stdout.write("", () => process.exit(status));
  setTimeout(() => process.exit(status), STDOUT_EXIT_WAIT_MS).unref();
}

/** True when this file is the program node was started with (through the bin symlink too). */
function isMainModule(): boolean {
  const entry = process.argv[1];
  if (entry === undefined) return false;
  try {
    return realpathSync(entry) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isMainModule()) {
  // Output piped into a reader that stops early (`quiver statements g.snap --all | head`): stop quietly.
  process.stdout.on("error", (e) => {
    if (isClosedOutput(e)) process.exit(0);
    throw e;
  });
  main(process.argv.slice(2)).then(
    (status) => exitWhenWritten(status),
    (error: unknown) => {
      process.stderr.write(
        `quiver: unexpected fault: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(EXIT_FAILURE);
    },
  );
}
