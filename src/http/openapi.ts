/**
 * OpenAPI 3.1 document
 * ====================
 * The API as CONTRACT.md decides it, written once as a typed constant: both endpoints, every
 * parameter with its bounds, both item schemas, the page envelope (`nextCursor` nullable), the error
 * body and every status. `/graph/v1/openapi.json` serves it, serialized once at module load.
 *
 * The item schemas are also the serializers' field lists (serialize.ts), so the document and the
 * bytes on the wire cannot drift apart; test/http/openapi.test.ts checks live responses against the
 * document with a JSON Schema 2020-12 validator (OpenAPI 3.1 schemas are JSON Schema 2020-12).
 * Reference: https://spec.openapis.org/oas/v3.1.0
 */

import {
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY_LENGTH,
  STATEMENTS_DEFAULT_LIMIT,
  STATEMENTS_MAX_LIMIT,
} from "../engine/limits.js";
import { ENTITY_TYPES } from "../engine/types.js";
import { MAX_REQUEST_TARGET_BYTES } from "./limits.js";

/** The subset of JSON Schema the document uses. */
export interface JsonSchema {
  type?: string | readonly string[];
  description?: string;
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  enum?: readonly string[];
  const?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: number | string;
  pattern?: string;
  examples?: readonly unknown[];
  $ref?: string;
}

interface Parameter {
  name: string;
  in: "query" | "header";
  required: boolean;
  description: string;
  schema: JsonSchema;
}

interface Response {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema }>;
  content?: Record<string, { schema: JsonSchema }>;
}

interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags?: string[];
  security: Record<string, string[]>[];
  parameters: Parameter[];
  responses: Record<string, Response | { $ref: string }>;
}

const str = (description: string, extra: JsonSchema = {}): JsonSchema => ({ type: "string", description, ...extra });

/** Item and envelope schemas; `required` lists every field because every field is always present. */
export const ENTITY_SCHEMA = {
  type: "object",
  description: "An entity: a resolved identifier of the graph.",
  properties: {
    entityId: str("Resolved identifier of the entity; unique across the graph, opaque.", { minLength: 1 }),
    rawIdentifier: str("The raw identifier text that search matches against (may be empty)."),
    type: str('Entity type character, "0" to "7".', { enum: ENTITY_TYPES }),
    sourceType: str("Kind of source of the entity; free-form (may be empty)."),
  },
  required: ["entityId", "rawIdentifier", "type", "sourceType"],
  additionalProperties: false,
} as const satisfies JsonSchema;

export const STATEMENT_SCHEMA = {
  type: "object",
  description: "A statement: subject, predicate, object, with the raw identifier of each.",
  properties: {
    statementFingerprint: str(
      "Identifies the statement; unique across the graph. Derived ones are 16 lowercase hex digits.",
      {
        minLength: 1,
      },
    ),
    subjectEntityId: str("Resolved identifier of the subject.", { minLength: 1 }),
    subjectRawIdentifier: str("Raw identifier of the subject."),
    predicateEntityId: str("Identifier of the predicate (an entity too).", { minLength: 1 }),
    predicateRawIdentifier: str("Raw identifier of the predicate."),
    objectEntityId: str("Resolved identifier of the object.", { minLength: 1 }),
    objectRawIdentifier: str("Raw identifier of the object."),
  },
  required: [
    "statementFingerprint",
    "subjectEntityId",
    "subjectRawIdentifier",
    "predicateEntityId",
    "predicateRawIdentifier",
    "objectEntityId",
    "objectRawIdentifier",
  ],
  additionalProperties: false,
} as const satisfies JsonSchema;

const CURSOR_PATTERN = "^[A-Za-z0-9_-]+$";

const pageSchema = (item: string, what: string): JsonSchema => ({
  type: "object",
  description: `One page of ${what}, in the contract's order.`,
  properties: {
    items: { type: "array", items: { $ref: `#/components/schemas/${item}` } },
    nextCursor: {
      type: ["string", "null"],
      pattern: CURSOR_PATTERN,
      description: "Pass it as `cursor` for the following page; null exactly when no item follows this page.",
    },
  },
  required: ["items", "nextCursor"],
  additionalProperties: false,
});

const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  description: "Every error: one sentence a person can act on (which parameter, what was wrong, what is allowed).",
  properties: { error: { type: "string", minLength: 1 } },
  required: ["error"],
  additionalProperties: false,
};

const json = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });
const errorResponse = (description: string): Response => ({ description, content: json("Error") });

const limitParameter = (max: number, def: number): Parameter => ({
  name: "limit",
  in: "query",
  required: false,
  description: `Maximum number of items on the page: a decimal integer (digits only, no sign or leading zeros), 1 to ${max}.`,
  schema: { type: "integer", minimum: 1, maximum: max, default: def },
});

const cursorParameter: Parameter = {
  name: "cursor",
  in: "query",
  required: false,
  description: "The `nextCursor` of an earlier response to the same query, unchanged (`limit` may differ).",
  schema: { type: "string", minLength: 1, pattern: CURSOR_PATTERN },
};

const filterParameter = (name: string, role: string): Parameter => ({
  name,
  in: "query",
  required: false,
  description: `Only statements whose ${role} is this entityId. An id that names no entity gives an empty page.`,
  schema: { type: "string", minLength: 1 },
});

/** The statuses both data endpoints answer besides 200; 404 belongs to every other path. */
const COMMON_ERRORS = {
  "400": { $ref: "#/components/responses/BadRequest" },
  "401": { $ref: "#/components/responses/Unauthorized" },
  "405": { $ref: "#/components/responses/MethodNotAllowed" },
  "414": { $ref: "#/components/responses/UriTooLong" },
  "500": { $ref: "#/components/responses/InternalError" },
};

const SECURITY = [{ apiKeyAuth: [] }];

const searchOperation: Operation = {
  operationId: "searchEntities",
  summary: "Search entities by a substring of their raw identifier.",
  description:
    "Matching folds case and compatibility forms (NFKC, full case folding); accents are kept. " +
    "Order: exact matches, then prefix matches, then the rest; within each, by folded raw identifier, then entityId.",
  security: SECURITY,
  parameters: [
    {
      name: "q",
      in: "query",
      required: true,
      description: `Substring to search for, 1 to ${SEARCH_MAX_QUERY_LENGTH} UTF-16 code units after URL decoding ('+' is a space).`,
      schema: { type: "string", minLength: 1, maxLength: SEARCH_MAX_QUERY_LENGTH },
    },
    {
      name: "type",
      in: "query",
      required: false,
      description: "Only entities of this type.",
      schema: { type: "string", enum: ENTITY_TYPES },
    },
    limitParameter(SEARCH_MAX_LIMIT, SEARCH_DEFAULT_LIMIT),
    cursorParameter,
  ],
  responses: { "200": { description: "A page of entities.", content: json("EntityPage") }, ...COMMON_ERRORS },
};

const statementsOperation: Operation = {
  operationId: "listStatements",
  summary: "List statements, optionally filtered by subject, predicate and object (filters combine with AND).",
  description:
    "Order: by (subject, predicate, object) with no filter or S, S+P, S+P+O; by (predicate, object, subject) with P or P+O; " +
    "by (object, subject, predicate) with O or O+S; the fingerprint last. Identifiers compare as UTF-16 code units.",
  security: SECURITY,
  parameters: [
    filterParameter("subjectEntityId", "subject"),
    filterParameter("predicateEntityId", "predicate"),
    filterParameter("objectEntityId", "object"),
    limitParameter(STATEMENTS_MAX_LIMIT, STATEMENTS_DEFAULT_LIMIT),
    cursorParameter,
  ],
  responses: { "200": { description: "A page of statements.", content: json("StatementPage") }, ...COMMON_ERRORS },
};

/** HEAD answers as GET with the same status and headers, and no body. */
function headOf(op: Operation): Operation {
  const responses: Operation["responses"] = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = "$ref" in r ? r : { description: r.description };
  }
  return { ...op, operationId: `${op.operationId}Head`, summary: `${op.summary} (headers only)`, responses };
}

const publicOperation = (operationId: string, summary: string, ok: Response): Operation => ({
  operationId,
  summary,
  description: "Needs no API key.",
  security: [],
  parameters: [],
  responses: {
    "200": ok,
    "405": { $ref: "#/components/responses/MethodNotAllowed" },
    "414": { $ref: "#/components/responses/UriTooLong" },
  },
});

const healthOperation = publicOperation("health", "Liveness, for load balancers.", {
  description: "The server is up.",
  content: json("Health"),
});

const openapiOperation = publicOperation("openapi", "This document.", {
  description: "The OpenAPI 3.1 document of this API.",
  content: { "application/json": { schema: { type: "object" } } },
});

export const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Quiver graph query API",
    version: "1.0.0",
    description:
      "Search entities and list statements of an in-memory graph, with keyset pagination. " +
      'Every error is application/json {"error": "..."}. Any path not listed here answers 404; ' +
      `a request target longer than ${MAX_REQUEST_TARGET_BYTES} bytes answers 414. Before any path is looked at, ` +
      "a client too slow to send its headers gets 408, and headers too large 431 (components.responses).",
  },
  paths: {
    "/graph/v1/search": { get: searchOperation, head: headOf(searchOperation) },
    "/graph/v1/statements": { get: statementsOperation, head: headOf(statementsOperation) },
    "/healthz": { get: healthOperation, head: headOf(healthOperation) },
    "/graph/v1/openapi.json": { get: openapiOperation, head: headOf(openapiOperation) },
  },
  components: {
    securitySchemes: {
      apiKeyAuth: {
        type: "apiKey",
        in: "header",
        name: "X-API-Key",
        description: "An API key that begins with `sk_`. Checked before anything else on both data endpoints.",
      },
    },
    schemas: {
      Entity: ENTITY_SCHEMA,
      Statement: STATEMENT_SCHEMA,
      EntityPage: pageSchema("Entity", "entities"),
      StatementPage: pageSchema("Statement", "statements"),
      Error: ERROR_SCHEMA,
      Health: {
        type: "object",
        properties: { status: { type: "string", const: "ok" } },
        required: ["status"],
        additionalProperties: false,
      },
    },
    responses: {
      BadRequest: errorResponse(
        "A parameter is missing, empty, repeated, unknown, malformed or out of range; a bad cursor " +
          "(altered, malformed, or from another endpoint or other parameters); or a query string that is not valid percent-encoded UTF-8.",
      ),
      Unauthorized: errorResponse("X-API-Key is missing or not accepted."),
      NotFound: errorResponse("No such path."),
      MethodNotAllowed: {
        description: "A method other than GET or HEAD.",
        headers: { Allow: { description: "Always `GET, HEAD`.", schema: { type: "string", const: "GET, HEAD" } } },
        content: json("Error"),
      },
      UriTooLong: errorResponse(`The request target is longer than ${MAX_REQUEST_TARGET_BYTES} bytes.`),
      RequestTimeout: errorResponse(
        "The request line and headers did not arrive in time (any path; answered before routing).",
      ),
      HeadersTooLarge: errorResponse("The request headers are too large (any path; answered before routing)."),
      InternalError: errorResponse("An unexpected fault; the body never carries a stack trace."),
    },
  },
} as const;

/** The document as bytes, serialized once. */
export const OPENAPI_JSON: Buffer = Buffer.from(JSON.stringify(OPENAPI_DOCUMENT), "utf8");
