/**
 * Engine internals
 * ================
 * What the package's own layers may read of a Graph beyond its public API: its parts (the snapshot
 * writes them). Not re-exported from index.ts: no type that carries dense ids leaves the package, and
 * benchmarks, tools and tests that measure or check the engine from outside use `graph.stats()`.
 */

export { graphParts, type GraphParts } from "./graph.js";
