/**
 * The API client of the page
 * ==========================
 * Every call goes to the page's own server (URLs relative to the page: nothing leaves it), carries the key
 * in `X-API-Key`, and can be cancelled with an AbortSignal (the search cancels the request in flight
 * when the user types on). Answers become values or an `ApiProblem` that says what a person can do:
 *
 *   no key / 401    -> "key": the field is focused, with the API's sentence;
 *   fetch rejected  -> "offline": the server went away (or the network): try again;
 *   other 4xx, 5xx  -> "api": the API's own sentence (`error`) and code, shown as they are;
 *   aborted         -> "aborted": a newer request replaced it; nothing is shown.
 *
 * Degrading on an older server: a 400 that names a parameter the page added (`count`, `order`) is
 * retried once without it and remembered, so the page still works, without totals or ranking.
 */

export interface Entity {
  entityId: string;
  rawIdentifier: string;
  type: string;
  sourceType: string;
}

export interface Statement {
  statementFingerprint: string;
  subjectEntityId: string;
  predicateEntityId: string;
  objectEntityId: string;
  subjectRawIdentifier: string;
  predicateRawIdentifier: string;
  objectRawIdentifier: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
  /** Present when the server counted (count=true). */
  total?: number;
}

export type ProblemKind = "key" | "offline" | "api" | "aborted" | "not-found";

export class ApiProblem extends Error {
  constructor(
    readonly kind: ProblemKind,
    message: string,
    readonly status = 0,
    readonly code = "",
  ) {
    super(message);
  }
}

/**
 * Relative to the page, so that behind a proxy that serves the server under a path prefix
 * (`/quiver/` -> `/`) the page still reaches its own server's API.
 */
export const API = {
  search: "graph/v1/search",
  statements: "graph/v1/statements",
  entities: "graph/v1/entities/",
} as const;

/** Parameters the page adds that an older server may refuse; dropped once refused. */
const OPTIONAL_PARAMETERS = ["count", "order"] as const;
type Optional = (typeof OPTIONAL_PARAMETERS)[number];
const refused = new Set<Optional>();

/** True once the server refused `name`: the page stops asking (and says so where it shows it). */
export function isRefused(name: Optional): boolean {
  return refused.has(name);
}

export class Api {
  constructor(private readonly key: () => string) {}

  search(
    params: { q: string; type?: string; order?: string; cursor?: string | null; limit: number },
    signal?: AbortSignal,
  ): Promise<Page<Entity>> {
    const query = new URLSearchParams({ q: params.q, limit: String(params.limit) });
    if (params.type) query.set("type", params.type);
    if (params.order) query.set("order", params.order);
    query.set("count", "true");
    if (params.cursor) query.set("cursor", params.cursor);
    return this.page<Entity>(API.search, query, signal);
  }

  statements(
    filter: "subjectEntityId" | "objectEntityId",
    id: string,
    cursor: string | null,
    limit: number,
    signal?: AbortSignal,
  ): Promise<Page<Statement>> {
    const query = new URLSearchParams({ [filter]: id, limit: String(limit), count: "true" });
    if (cursor) query.set("cursor", cursor);
    return this.page<Statement>(API.statements, query, signal);
  }

  /** The entity, or an ApiProblem of kind "not-found" when the graph has none with that id. */
  async entity(id: string, signal?: AbortSignal): Promise<Entity> {
    const { status, body } = await this.call(API.entities + encodeURIComponent(id), signal);
    if (status === 200) return body as Entity;
    throw problemOf(status, body);
  }

  private async page<T>(path: string, query: URLSearchParams, signal?: AbortSignal): Promise<Page<T>> {
    for (const name of refused) query.delete(name);
    const { status, body } = await this.call(`${path}?${query}`, signal);
    if (status === 200) return body as Page<T>;
    const problem = problemOf(status, body);
    // An older server: it names the parameter it does not know; ask again without it, once per name.
    if (status === 400 && problem.code === "UNKNOWN_PARAMETER") {
      const name = OPTIONAL_PARAMETERS.find((n) => query.has(n) && problem.message.includes(`"${n}"`));
      if (name !== undefined) {
        refused.add(name);
        return this.page<T>(path, query, signal);
      }
    }
    throw problem;
  }

  private async call(url: string, signal?: AbortSignal): Promise<{ status: number; body: unknown }> {
    const key = this.key();
    if (key === "") throw new ApiProblem("key", "Enter an API key to search: the server printed one when it started.");
    let response: Response;
    try {
      response = await fetch(url, { headers: { "X-API-Key": key, Accept: "application/json" }, signal });
    } catch (e) {
      // Cancelled by a newer request: not an error anyone needs to see.
      if ((e as Error).name === "AbortError") throw new ApiProblem("aborted", "replaced by a newer request");
      throw new ApiProblem(
        "offline",
        `The server at ${location.origin} did not answer: it may have stopped, or the network is down. Try again once it is back.`,
      );
    }
    let body: unknown = null;
    try {
      body = await response.json();
    } catch (e) {
      if ((e as Error).name === "AbortError") throw new ApiProblem("aborted", "replaced by a newer request");
      // A body that is not JSON (a proxy's error page, say): the status alone speaks.
    }
    return { status: response.status, body };
  }
}

function problemOf(status: number, body: unknown): ApiProblem {
  const { error, code } = (body ?? {}) as { error?: unknown; code?: unknown };
  const sentence = typeof error === "string" ? error : `The server answered ${status} without an explanation.`;
  const c = typeof code === "string" ? code : "";
  if (status === 401) return new ApiProblem("key", sentence, status, c);
  if (status === 404 && c === "ENTITY_NOT_FOUND") return new ApiProblem("not-found", sentence, status, c);
  return new ApiProblem("api", sentence, status, c);
}
