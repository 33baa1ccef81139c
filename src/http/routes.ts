/**
 * Routes
 * ======
 * The API's five paths, spelled once: the router dispatches on them, params.ts names them in its
 * sentences, openapi.ts documents them, the CLI prints them in its curl lines. CONTRACT.md is the
 * source: three data endpoints (an API key, checked before anything else) and two public ones.
 * The entity lookup is a template, `/graph/v1/entities/{entityId}`: a path names it when it is the
 * prefix followed by exactly one non-empty segment (no further "/"); `entityIdOf` percent-decodes
 * that segment (`%2F` is a "/" inside an id). An empty segment or more than one is no route (404).
 *
 * `pathOfTarget` reads the path out of a request target in either form a server must accept
 * (RFC 9112 section 3.2): origin-form (`/graph/v1/search?q=a`) and absolute-form
 * (`http://host/graph/v1/search?q=a`, section 3.2.2: "a server MUST accept the absolute-form"),
 * whose path is served as if it had come alone. Cost: one or two `indexOf`, no URL parsing.
 */

export const ROUTES = {
  search: "/graph/v1/search",
  statements: "/graph/v1/statements",
  health: "/healthz",
  openapi: "/graph/v1/openapi.json",
  entity: "/graph/v1/entities/{entityId}",
  /** Only on a server with a change log (CONTRACT.md "Changes"); elsewhere 404 like any unknown path. */
  changes: "/graph/v1/changes",
} as const;

/** What every path of the entity lookup begins with; the entityId segment follows. */
export const ENTITY_PATH_PREFIX = "/graph/v1/entities/";

export type RouteName = keyof typeof ROUTES;
export type RoutePath = (typeof ROUTES)[RouteName];

/** Every path, in the order sentences list them. */
export const ROUTE_PATHS: readonly RoutePath[] = [
  ROUTES.search,
  ROUTES.statements,
  ROUTES.entity,
  ROUTES.health,
  ROUTES.openapi,
];

/** The route a path names, or undefined for any other path (404). */
export function routeOf(path: string): RouteName | undefined {
  switch (path) {
    case ROUTES.search:
      return "search";
    case ROUTES.statements:
      return "statements";
    case ROUTES.health:
      return "health";
    case ROUTES.openapi:
      return "openapi";
    case ROUTES.changes:
      return "changes";
    default:
      // One segment after the prefix, not empty: the lookup. "/graph/v1/entities/" and
      // "/graph/v1/entities/a/b" name nothing, like any unknown path.
      return path.length > ENTITY_PATH_PREFIX.length &&
        path.startsWith(ENTITY_PATH_PREFIX) &&
        path.indexOf("/", ENTITY_PATH_PREFIX.length) === -1
        ? "entity"
        : undefined;
  }
}

/** The path as a metrics label or log field of bounded variety: the route's path or template, else undefined. */
export function routePathOf(path: string): RoutePath | undefined {
  const name = routeOf(path);
  return name === undefined ? undefined : ROUTES[name];
}

/** The three routes that carry data and need an API key. */
export function isDataRoute(route: RouteName | undefined): route is "search" | "statements" | "entity" {
  return route === "search" || route === "statements" || route === "entity";
}

/** The path and query of a request target; the query is "" when there is none. */
export interface TargetParts {
  path: string;
  query: string;
}

/**
 * Origin-form is taken as it is. Absolute-form (a scheme, "://", an authority) loses its scheme and
 * authority; an absolute-form target with an empty path names "/" (RFC 9112 section 3.2.2). Anything
 * else (asterisk-form, authority-form of CONNECT, garbage) is kept whole and names no route.
 */
export function splitTarget(target: string): TargetParts {
  let start = 0;
  // Absolute-form starts with a scheme ("http:", "https:", any letter first) then "//".
  if (target.charCodeAt(0) !== 0x2f /* / */) {
    const scheme = target.indexOf("://");
    if (scheme > 0 && /^[A-Za-z][A-Za-z0-9+.-]*$/.test(target.slice(0, scheme))) {
      const authorityEnd = firstOf(target, scheme + 3);
      start = authorityEnd;
      if (start === target.length || target.charCodeAt(start) !== 0x2f) {
        const query = start < target.length && target.charCodeAt(start) === 0x3f ? target.slice(start + 1) : "";
        return { path: "/", query };
      }
    }
  }
  const mark = target.indexOf("?", start);
  return mark === -1
    ? { path: start === 0 ? target : target.slice(start), query: "" }
    : { path: target.slice(start, mark), query: target.slice(mark + 1) };
}

/** The first "/", "?" or "#" at or after `from`, else the length: where an authority ends. */
function firstOf(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) return i;
  }
  return s.length;
}
