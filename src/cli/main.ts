#!/usr/bin/env node
/**
 * `quiver` command
 * ================
 * The package's `bin`: `quiver <command> [options]` (inside the repository `npm run quiver -- ...`;
 * `npm start` is `quiver serve`). One table of commands; each command parses its own options and
 * resolves with its exit status.
 */

import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runBuild } from "./build.js";
import { runServe, EXIT_USAGE } from "./serve.js";

interface Command {
  summary: string;
  run(argv: string[]): Promise<number>;
}

const COMMANDS: Record<string, Command> = {
  serve: { summary: "load a graph and serve the HTTP API (what `npm start` runs)", run: (argv) => runServe(argv) },
  build: {
    summary: "build a snapshot file from JSON Lines (serve it with serve --snapshot FILE)",
    run: (argv) => runBuild(argv),
  },
};

export const MAIN_HELP = `Usage: quiver <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(8)}${c.summary}`)
  .join("\n")}

Run "quiver <command> --help" for the options and environment variables of a command.
`;

export async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    const topic = name === "help" && rest[0] !== undefined ? COMMANDS[rest[0]] : undefined;
    if (topic !== undefined) return topic.run(["--help"]);
    process.stdout.write(MAIN_HELP);
    return name === undefined ? EXIT_USAGE : 0;
  }
  const command = COMMANDS[name];
  if (command === undefined) {
    process.stderr.write(`quiver: unknown command ${JSON.stringify(name)}\n\n${MAIN_HELP}`);
    return EXIT_USAGE;
  }
  return command.run(rest);
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
  main(process.argv.slice(2)).then(
    (status) => process.exit(status),
    (error: unknown) => {
      process.stderr.write(
        `quiver: unexpected fault: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exit(1);
    },
  );
}
