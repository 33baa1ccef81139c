/**
 * What the benchmark reads out of a built graph
 * =============================================
 * Owns the data the benchmark needs beside a Graph, all through its public API: the entities
 * (graph.exportEntities(), for drawing queries and for the naive search), the names table, and the
 * whole-data baselines made from them (bench/baselines/): the naive substring scan and the Map
 * store of every statement (graph.exportStatements()). Each is made on first use and kept until
 * dropped, so the distinct-query stream can time Quiver before any baseline exists (their garbage
 * would otherwise slow Quiver's GCs), and a part that needs none never pays for them.
 *
 * Memory: the entities' objects (about 150 B each), the folded identifiers, and the Map store
 * (about 100 B a statement: 1 GB at 10M statements).
 */

import type { Entity, Graph } from "../src/index.js";
import { MapStore } from "./baselines/map-store.js";
import { NaiveSubstringScan } from "./baselines/naive-search.js";
import { progress, secondsOf } from "./format.js";

export class GraphData {
  readonly graph: Graph;
  #entities: Entity[] | undefined;
  #names: Map<string, string> | undefined;
  #naive: NaiveSubstringScan | undefined;
  #mapStore: MapStore | undefined;
  #scores: Map<string, number> | undefined;
  #byId: Map<string, Entity> | undefined;

  constructor(graph: Graph) {
    this.graph = graph;
  }

  /** Every entity, in entityId order. */
  get entities(): readonly Entity[] {
    this.#entities ??= [...this.graph.exportEntities()];
    return this.#entities;
  }

  /** entityId -> rawIdentifier. */
  get names(): ReadonlyMap<string, string> {
    this.#names ??= new Map(this.entities.map((e) => [e.entityId, e.rawIdentifier]));
    return this.#names;
  }

  /**
   * entityId -> score, as the contract defines the default (the bench's data gives none): the
   * statements naming the entity in any role, each counted once. Read through exportStatements.
   */
  scores(): ReadonlyMap<string, number> {
    if (this.#scores === undefined) {
      const scores = new Map<string, number>(this.entities.map((e) => [e.entityId, 0]));
      for (const st of this.graph.exportStatements()) {
        const { subjectEntityId: s, predicateEntityId: p, objectEntityId: o } = st;
        scores.set(s, scores.get(s)! + 1);
        if (p !== s) scores.set(p, scores.get(p)! + 1);
        if (o !== s && o !== p) scores.set(o, scores.get(o)! + 1);
      }
      this.#scores = scores;
    }
    return this.#scores;
  }

  /** entityId -> entity: the lookup baseline (a Map of every entity). */
  byId(): ReadonlyMap<string, Entity> {
    this.#byId ??= new Map(this.entities.map((e) => [e.entityId, e]));
    return this.#byId;
  }

  naiveSearch(): NaiveSubstringScan {
    if (this.#naive === undefined) {
      this.#naive = new NaiveSubstringScan(this.entities);
      progress(`naive scan: ${this.entities.length} identifiers folded in ${secondsOf(this.#naive.prepareMs)} s`);
    }
    return this.#naive;
  }

  mapStore(): MapStore {
    if (this.#mapStore === undefined) {
      const started = performance.now();
      this.#mapStore = new MapStore(this.graph.exportStatements(), this.names);
      progress(`Map store: ${this.#mapStore.size} statements in ${secondsOf(performance.now() - started)} s`);
    }
    return this.#mapStore;
  }

  /** Lets the Map store go (the largest of them) before parts that time Quiver again. */
  dropMapStore(): void {
    this.#mapStore = undefined;
  }
}
