/**
 * docs/openapi.json, written from the code
 * ========================================
 * The OpenAPI document is one typed constant (src/http/openapi.ts), which the server serves at
 * `/graph/v1/openapi.json`. This script writes the same document, indented, to docs/openapi.json,
 * so that readers of the repository have it beside docs/http-api.md; test/tools/write-openapi.test.ts
 * fails when the checked-in file and the constant differ (the Fastify habit of a generated file
 * checked in with a test that regenerates and diffs it).
 *
 *   npm run docs:openapi            write docs/openapi.json
 *   node dist/tools/write-openapi.js --check
 *                                   exit 1, saying so, when docs/openapi.json is not what it would write
 */

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

import { OPENAPI_DOCUMENT } from "../src/http/openapi.js";
import { isMainModule } from "./main-module.js";

/** Where the document goes, from the repository's root. */
export const OPENAPI_FILE = join("docs", "openapi.json");

/** The file's text: the served document, indented two spaces, one newline at the end. */
export function openapiText(): string {
  return `${JSON.stringify(OPENAPI_DOCUMENT, null, 2)}\n`;
}

function main(argv: readonly string[]): void {
  const file = join(process.cwd(), OPENAPI_FILE);
  if (argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(file, "utf8");
    } catch {
      // A missing file is simply out of date.
    }
    if (current !== openapiText()) {
      console.error(`${OPENAPI_FILE} is out of date: run npm run docs:openapi`);
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(file, openapiText());
  console.log(`wrote ${OPENAPI_FILE}`);
}

if (isMainModule(import.meta.url)) main(process.argv.slice(2));
