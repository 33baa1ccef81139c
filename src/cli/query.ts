/**
 * `quiver search`, `quiver statements` and `quiver entity`
 * ========================================================
 * The three HTTP data endpoints as commands, for scripts and quick looks: the same parameters with
 * the same names and rules (`--q`, `--type`, `--order`, `--subjectEntityId`, `--limit`, `--cursor`...),
 * checked by the engine with the endpoint's own sentences, and the page's items printed on stdout as
 * JSON Lines in the endpoint's order. `--all` follows the cursors to the last page (pages of the
 * endpoint's largest limit unless `--limit` says otherwise), so `quiver statements g.snap --all`
 * lists a graph. Without it one page is printed, and when more follow, the cursor that continues it
 * on stderr. `--count` prints the exact total of the whole walk on stderr too (stdout stays JSON
 * Lines, one item a line). `quiver entity ID` prints the one entity with that id, or says on stderr
 * that there is none and exits with EXIT_NOT_FOUND.
 *
 * Cursors are sealed with `--cursor-secret`, else QUIVER_CURSOR_SECRET, else CLI_CURSOR_SECRET, a
 * fixed secret: a cursor printed by one run is taken by the next run over the same data, and one
 * printed by a server is taken here when both use the same secret.
 *
 * Cost: opening the graph (a snapshot in about a second per million entities; JSON Lines are
 * loaded and built), then the engine's cost per page (microseconds) and the printing.
 */

import {
  type EntityType,
  type Graph,
  GraphBuilder,
  type Page,
  SEARCH_MAX_LIMIT,
  STATEMENTS_MAX_LIMIT,
} from "../index.js";
import type { SearchOrder } from "../engine/types.js";
import { EXIT_NOT_FOUND, runCommand, UsageError } from "./command.js";
import { GRAPH_INPUT_HELP, GRAPH_INPUT_OPTIONS, graphInputFrom, openGraphInput } from "./graph-input.js";
import { writeJsonLinesTo } from "./jsonl-writer.js";
import { CURSOR_SECRET_ENV } from "./serve-options.js";

/** The secret of the CLI's cursors when none is given: cursors stay valid from one run to the next. */
export const CLI_CURSOR_SECRET = "quiver-cli";

const CURSOR_HELP = `  --all                 follow the cursors to the last page and print every item
  --count               print the exact number of items of the whole walk on stderr
                        ("total: N"; with or without --all, whichever page is printed)
  --cursor-secret S     the secret that seals cursors; default ${CURSOR_SECRET_ENV}, else a fixed one,
                        so a cursor printed by one run is taken by the next (and by a server
                        with the same secret); any non-empty text here, where quiver serve
                        asks for 32 characters or more (its cursors go to clients)`;

export const SEARCH_HELP = `Usage: quiver search (SNAPSHOT | --entities FILE --statements FILE) --q TEXT [--type T]
                     [--order name|score] [--limit N] [--cursor C] [--all] [--count]
                     [--cursor-secret S] [--quiet]

Finds the entities whose identifier contains TEXT, as GET /graph/v1/search does, and prints them on
stdout, one JSON object per line: {"entityId","rawIdentifier","type","sourceType"}. Order: exact
matches, then identifiers starting with TEXT, then the rest (the tier); inside each tier, with
--order score, the entity's score first, highest first (the input's "score", else its number of
statements); then the folded identifier, then entityId.

Graph:
${GRAPH_INPUT_HELP}

Parameters (the endpoint's, same names and rules):
  --q TEXT              the text to find, 1 to 256 characters; case and Unicode forms are folded
                        ("STRASSE" finds "Straße"); accents are kept unless the graph was built
                        with --fold accents ("zurich" then finds "Zürich")
  --type T              only entities of type T, "0" to "7"
  --order name|score    inside each tier: by name (the default) or by score, highest first
  --limit N             entities per page, 1 to ${SEARCH_MAX_LIMIT} (default 20; with --all, ${SEARCH_MAX_LIMIT})
  --cursor C            the page after the one that printed this cursor

Options:
${CURSOR_HELP}
  -h, --help            show this help

Output: the entities on stdout; without --all, when more follow, "next page: --cursor C" on stderr;
with --count, "total: N" on stderr.
Exit status: 0 on success (also when nothing matches); 1 when the graph cannot be read; 2 for a
usage error or a bad parameter value.
`;

export const STATEMENTS_HELP = `Usage: quiver statements (SNAPSHOT | --entities FILE --statements FILE) [--subjectEntityId ID]
                         [--predicateEntityId ID] [--objectEntityId ID] [--limit N] [--cursor C]
                         [--all] [--count] [--cursor-secret S] [--quiet]

Lists the statements that match every filter given (none: all of them), as GET /graph/v1/statements
does, and prints them on stdout, one JSON object per line: {"statementFingerprint","subjectEntityId",
"subjectRawIdentifier","predicateEntityId","predicateRawIdentifier","objectEntityId",
"objectRawIdentifier"}. Order: by subject, predicate, object (none, S, S+P, S+P+O); by predicate,
object, subject (P, P+O); by object, subject, predicate (O, O+S); the fingerprint last.

Graph:
${GRAPH_INPUT_HELP}

Parameters (the endpoint's, same names and rules):
  --subjectEntityId ID    only statements with this subject
  --predicateEntityId ID  only statements with this predicate
  --objectEntityId ID     only statements with this object (an id no entity has: no statements)
  --limit N               statements per page, 1 to ${STATEMENTS_MAX_LIMIT} (default 50; with --all, ${STATEMENTS_MAX_LIMIT})
  --cursor C              the page after the one that printed this cursor

Options:
${CURSOR_HELP}
  -h, --help              show this help

Output: the statements on stdout; without --all, when more follow, "next page: --cursor C" on stderr;
with --count, "total: N" on stderr.
Exit status: 0 on success (also when nothing matches); 1 when the graph cannot be read; 2 for a
usage error or a bad parameter value.
`;

export const ENTITY_HELP = `Usage: quiver entity (SNAPSHOT | --entities FILE --statements FILE) [--quiet] [--] ID

Prints the entity whose entityId is ID, as GET /graph/v1/entities/{entityId} does: one JSON object
on stdout, {"entityId","rawIdentifier","type","sourceType"}. ID is the id itself, not percent-encoded
(quote it for the shell; put -- before an id that begins with "-").

Graph:
${GRAPH_INPUT_HELP}

Options:
  -h, --help            show this help

Exit status: 0 when the entity is printed; ${EXIT_NOT_FOUND} when the graph has no entity with that id (said on
stderr); 1 when the graph cannot be read; 2 for a usage error.
`;

const PAGING_OPTIONS = {
  limit: { type: "string" },
  cursor: { type: "string" },
  all: { type: "boolean" },
  count: { type: "boolean" },
  "cursor-secret": { type: "string" },
} as const;

/**
 * The value of --limit for the engine: a number when it is plain decimal digits (the endpoint's
 * rule), else the text itself, which the engine then refuses with the endpoint's sentence.
 */
function limitValue(text: string | undefined, all: boolean, max: number): number | string | undefined {
  if (text === undefined) return all ? max : undefined;
  return /^(0|[1-9][0-9]*)$/.test(text) ? Number(text) : text;
}

function cursorSecretOf(value: string | undefined): string {
  const secret = value ?? process.env[CURSOR_SECRET_ENV] ?? CLI_CURSOR_SECRET;
  if (secret === "")
    throw new UsageError(`the cursor secret (--cursor-secret or ${CURSOR_SECRET_ENV}) must not be empty`);
  return secret;
}

/** The items of the first page, then (with `all`) of each following page; the last cursor seen. */
function* pages<T>(first: Page<T>, next: (cursor: string) => Page<T>, all: boolean, last: { cursor: string | null }) {
  let page = first;
  for (;;) {
    yield* page.items;
    last.cursor = page.nextCursor;
    if (!all || page.nextCursor === null) return;
    page = next(page.nextCursor);
  }
}

/**
 * Checks the parameters, loads the graph, prints. The parameters are checked first by running the
 * query on an empty graph with the same cursor secret (the engine's own checks, so the same
 * sentences), so a bad --limit or cursor is reported before minutes of loading, not after.
 */
async function printPages<T>(
  positionals: string[],
  values: {
    entities?: string | undefined;
    statements?: string | undefined;
    quiet?: boolean | undefined;
    all?: boolean | undefined;
    count?: boolean | undefined;
    "cursor-secret"?: string | undefined;
  },
  query: (graph: Graph, cursor: string | undefined, count: boolean) => Page<T>,
  firstCursor: string | undefined,
): Promise<number> {
  const cursorSecret = cursorSecretOf(values["cursor-secret"]);
  const count = values.count === true;
  query(new GraphBuilder({ cursorSecret }).build(), firstCursor, count);
  const input = await graphInputFrom(positionals, values);
  const graph = await openGraphInput(input, { cursorSecret, quiet: values.quiet === true });
  const all = values.all === true;
  const first = query(graph, firstCursor, count);
  const last: { cursor: string | null } = { cursor: null };
  // The total is the whole walk's, whichever page carries it: the first page's is the one to print,
  // and the pages after it need not count again.
  await writeJsonLinesTo(
    process.stdout,
    pages(first, (cursor) => query(graph, cursor, false), all, last),
  );
  if (!all && last.cursor !== null) process.stderr.write(`next page: --cursor ${last.cursor}\n`);
  if (first.total !== undefined) process.stderr.write(`total: ${first.total}\n`);
  return 0;
}

export function runSearch(argv: string[]): Promise<number> {
  const options = {
    ...GRAPH_INPUT_OPTIONS,
    ...PAGING_OPTIONS,
    q: { type: "string" },
    type: { type: "string" },
    order: { type: "string" },
  } as const;
  return runCommand("search", SEARCH_HELP, argv, options, ({ values, positionals }) => {
    const limit = limitValue(values.limit, values.all === true, SEARCH_MAX_LIMIT);
    return printPages(
      positionals,
      values,
      // The engine checks every parameter (q missing or empty, type, limit, cursor, order) with the
      // endpoint's sentences; the casts only quiet the types of values it is about to refuse.
      (graph, cursor, count) =>
        graph.search({
          q: values.q as string,
          type: values.type as EntityType,
          limit: limit as number,
          cursor,
          order: values.order as SearchOrder,
          count,
        }),
      values.cursor,
    );
  });
}

export function runStatements(argv: string[]): Promise<number> {
  const options = {
    ...GRAPH_INPUT_OPTIONS,
    ...PAGING_OPTIONS,
    subjectEntityId: { type: "string" },
    predicateEntityId: { type: "string" },
    objectEntityId: { type: "string" },
  } as const;
  return runCommand("statements", STATEMENTS_HELP, argv, options, ({ values, positionals }) => {
    const limit = limitValue(values.limit, values.all === true, STATEMENTS_MAX_LIMIT);
    return printPages(
      positionals,
      values,
      (graph, cursor, count) =>
        graph.statements({
          subjectEntityId: values.subjectEntityId,
          predicateEntityId: values.predicateEntityId,
          objectEntityId: values.objectEntityId,
          limit: limit as number,
          cursor,
          count,
        }),
      values.cursor,
    );
  });
}

export function runEntity(argv: string[]): Promise<number> {
  const options = { ...GRAPH_INPUT_OPTIONS } as const;
  return runCommand("entity", ENTITY_HELP, argv, options, async ({ values, positionals }) => {
    // The id is the last argument; what comes before it names the graph (a SNAPSHOT, or nothing
    // beside --entities and --statements).
    const entityId = positionals.at(-1);
    const jsonl = values.entities !== undefined || values.statements !== undefined;
    if (entityId === undefined || (!jsonl && positionals.length < 2)) {
      throw new UsageError("give the graph (a SNAPSHOT, or --entities FILE --statements FILE) and the ID to print");
    }
    if (entityId === "") throw new UsageError("ID is empty: an entityId has 1 to 512 bytes");
    const input = await graphInputFrom(positionals.slice(0, -1), values);
    const graph = await openGraphInput(input, { cursorSecret: CLI_CURSOR_SECRET, quiet: values.quiet === true });
    const entity = graph.getEntity(entityId);
    if (entity === undefined) {
      process.stderr.write(`quiver entity: the graph has no entity with the entityId ${JSON.stringify(entityId)}\n`);
      return EXIT_NOT_FOUND;
    }
    await writeJsonLinesTo(process.stdout, [entity]);
    return 0;
  });
}
