/**
 * `quiver convert`
 * ================
 * A knowledge-graph benchmark folder (YAGO3-10, FB15k-237: `entities.dict`, `relations.dict` and
 * tab-separated triple files) to the input format, `entities.jsonl` and `statements.jsonl` in the
 * folder `--out`, ready for `quiver build` or `quiver serve`. The conversion and its conventions
 * (ids, raw identifiers, types) are kg-datasets.ts's; this file is the command around it.
 *
 * Cost: the dataset is read whole (these files are a few MB); O(bytes) time.
 */

import { basename, join, resolve } from "node:path";
import { positionalArgument, runCommand, UsageError } from "./command.js";
import { ENTITIES_FILE, STATEMENTS_FILE } from "./dump.js";
import {
  DEFAULT_SPLITS,
  KG_DATASET_NAMES,
  type KgDatasetName,
  readKgDataset,
  writeKgDatasetJsonLines,
} from "./kg-datasets.js";
import { checkInputDirectory, checkInputFile, checkOutputDirectory } from "./paths.js";

export const CONVERT_HELP = `Usage: quiver convert DIR --out DIR [--dataset ${KG_DATASET_NAMES.join("|")}] [--splits FILES]
                      [--types fixed|hashed]

Converts a knowledge-graph benchmark folder in the link-prediction layout (YAGO3-10, FB15k-237) to
Quiver's input format: OUT/${ENTITIES_FILE} and OUT/${STATEMENTS_FILE}.

The folder holds, UTF-8, one record per line, fields separated by a TAB:
  entities.dict       index<TAB>name           one per entity name (the index is not used)
  relations.dict      index<TAB>relation       one per relation
  valid.txt, test.txt head<TAB>relation<TAB>tail   one per triple (the splits, see --splits)

Each name becomes an entity, each relation an entity (the predicate), each triple a statement:
  yago3-10    name      entityId "yago:NAME", rawIdentifier NAME with each _ as a space, type "0"
              relation  entityId "yago-rel:REL", rawIdentifier REL, type "1"
  fb15k-237   mid       entityId "fb:MID", rawIdentifier MID as given, type "0"
              relation  entityId "fb-rel:REL", rawIdentifier REL, type "1"
sourceType is the dataset's name. Names and relations that only the triples use become entities too.

Options:
  --out DIR           the folder to write the two files into (created if missing)
  --dataset NAME      ${KG_DATASET_NAMES.join(" or ")}; default: the input folder's name
  --splits FILES      the triple files to convert, comma-separated, in order
                      (default ${DEFAULT_SPLITS.join(",")}; add train.txt for the full graph)
  --types MODE        fixed (default): names "0", relations "1"; hashed: each name one of "0",
                      "2".."7" by a hash of its text, so type filters have something to select
  -h, --help          show this help

Output: a line per file written on stderr. Exit status: 0 on success; 1 when a file is missing or
malformed (named as file:line) or cannot be written; 2 for a usage error.
`;

export function runConvert(argv: string[]): Promise<number> {
  const options = {
    out: { type: "string" },
    dataset: { type: "string" },
    splits: { type: "string" },
    types: { type: "string" },
  } as const;
  return runCommand("convert", CONVERT_HELP, argv, options, async ({ values, positionals }) => {
    const dir = positionalArgument(positionals, "DIR");
    const out = values.out;
    if (out === undefined) throw new UsageError("--out DIR is required: the folder to write the files into");
    // The layout is named, or read off the folder's name (how the benchmarks ship).
    const dataset = values.dataset ?? basename(resolve(dir));
    if (!isDatasetName(dataset)) {
      throw new UsageError(
        values.dataset === undefined
          ? `cannot tell the layout of ${dir} from its name: give --dataset ${KG_DATASET_NAMES.join(" or ")}`
          : `--dataset must be ${KG_DATASET_NAMES.join(" or ")}; got ${JSON.stringify(dataset)}`,
      );
    }
    const types = values.types ?? "fixed";
    if (types !== "fixed" && types !== "hashed") {
      throw new UsageError(`--types must be fixed or hashed; got ${JSON.stringify(types)}`);
    }
    const splits = values.splits === undefined ? DEFAULT_SPLITS : values.splits.split(",").filter((s) => s !== "");
    if (splits.length === 0) throw new UsageError("--splits names no file");

    // Every input, then the output, before any reading.
    await checkInputDirectory("DIR", dir);
    for (const file of ["entities.dict", "relations.dict", ...splits]) await checkInputFile("DIR", join(dir, file));
    await checkOutputDirectory("--out", out);

    const data = await readKgDataset(dir, { dataset, splits, types });
    const written = await writeKgDatasetJsonLines(data, out);
    const count = (n: number) => n.toLocaleString("en-US");
    process.stderr.write(
      `wrote ${written.entities}: ${count(data.entities.length)} entities ` +
        `(names: ${count(data.nameCount)}, relations: ${count(data.relationCount)})\n` +
        `wrote ${written.statements}: ${count(data.statements.length)} statements\n`,
    );
    return 0;
  });
}

function isDatasetName(name: string): name is KgDatasetName {
  return (KG_DATASET_NAMES as readonly string[]).includes(name);
}
