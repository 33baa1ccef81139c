/**
 * Engine internals
 * ================
 * What the package's own layers may use of the engine beyond its public API: a Graph's parts (the
 * snapshot writes them) and a GraphBuilder's entry for parsed JSON of unknown shape (the loader hands
 * it each line's value; the builder checks it like any item). Not re-exported from index.ts: no type
 * that carries dense ids leaves the package, and benchmarks, tools and tests that measure or check the
 * engine from outside use `graph.stats()`.
 */

export { graphParts, type GraphParts } from "./graph.js";
export { addParsedItem } from "./graph-builder.js";
