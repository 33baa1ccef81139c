/**
 * OpenAPI 3.1 document
 * ====================
 * The API as CONTRACT.md decides it, written once as a typed constant: the three data endpoints
 * (search, statements, the entity lookup), every parameter with its bounds, both item schemas, the
 * page envelope (`nextCursor` nullable, `total` with `count=true`), the error
 * body with its closed list of codes (status.ts), every status, and the headers of caching
 * (`ETag`, `Cache-Control`, `If-None-Match` and 304), compression, `X-Request-Id` and
 * `X-Quiver-Sequence`; and `POST /graph/v1/changes` (CONTRACT.md "Changes (live updates)"), which
 * exists only on a server with a change log: its four kinds of change line, its result, its statuses.
 * `/graph/v1/openapi.json` serves it, serialized once at module load.
 *
 * The item schemas are also the serializers' field lists (serialize.ts), so the document and the
 * bytes on the wire cannot drift apart; test/http/openapi.test.ts checks live responses against the
 * document with a JSON Schema 2020-12 validator (OpenAPI 3.1 schemas are JSON Schema 2020-12).
 * Reference: https://spec.openapis.org/oas/v3.1.0
 */

import {
  ENTITY_ID_MAX_BYTES,
  MAX_SCORE,
  RAW_IDENTIFIER_MAX_BYTES,
  SEARCH_DEFAULT_LIMIT,
  SEARCH_MAX_LIMIT,
  SEARCH_MAX_QUERY_LENGTH,
  SOURCE_TYPE_MAX_BYTES,
  STATEMENT_FINGERPRINT_MAX_BYTES,
  STATEMENTS_DEFAULT_LIMIT,
  STATEMENTS_MAX_LIMIT,
} from "../engine/limits.js";
import { ENTITY_TYPES } from "../engine/types.js";
import {
  CHANGE_RETRY_AFTER_SECONDS,
  MAX_CHANGE_BODY_BYTES,
  MAX_HEAD_BYTES,
  MAX_REQUEST_TARGET_BYTES,
} from "./limits.js";
import { MAX_REQUEST_ID_CHARS } from "./request-id.js";
import { ROUTES } from "./routes.js";
import { CLIENT_ERROR_CODES } from "./status.js";

/** The subset of JSON Schema the document uses. */
export interface JsonSchema {
  type?: string | readonly string[];
  description?: string;
  properties?: Readonly<Record<string, JsonSchema>>;
  required?: readonly string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  oneOf?: readonly JsonSchema[];
  enum?: readonly string[];
  const?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: number | string | boolean;
  pattern?: string;
  examples?: readonly unknown[];
  $ref?: string;
}

interface Parameter {
  name: string;
  in: "query" | "header" | "path";
  required: boolean;
  description: string;
  schema: JsonSchema;
}

/** Request headers every operation reads. */
const REQUEST_ID_PARAMETER = { $ref: "#/components/parameters/XRequestId" };
const CONDITIONAL_PARAMETERS = [{ $ref: "#/components/parameters/IfNoneMatch" }, REQUEST_ID_PARAMETER];

interface Response {
  description: string;
  headers?: Record<string, { description: string; schema: JsonSchema } | { $ref: string }>;
  content?: Record<string, { schema: JsonSchema }>;
}

interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags?: string[];
  security: Record<string, string[]>[];
  parameters: (Parameter | { $ref: string })[];
  requestBody?: { required: boolean; description: string; content: Record<string, { schema: JsonSchema }> };
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
    total: {
      type: "integer",
      minimum: 0,
      description:
        "Only with `count=true`, and then always: the exact number of items that following every cursor from the " +
        "first page returns (the whole walk, whichever page carries it; never an estimate or a capped figure).",
    },
  },
  required: ["items", "nextCursor"],
  additionalProperties: false,
});

const ERROR_SCHEMA: JsonSchema = {
  type: "object",
  description:
    "Every error: one sentence a person can act on (which parameter, what was wrong, what is allowed), " +
    "and a code from a closed list a program can branch on (the same codes QuiverError carries in the embedded API).",
  properties: {
    error: { type: "string", minLength: 1 },
    code: { type: "string", enum: CLIENT_ERROR_CODES },
  },
  required: ["error", "code"],
  additionalProperties: false,
};

const json = (ref: string) => ({ "application/json": { schema: { $ref: `#/components/schemas/${ref}` } } });
const header = (ref: string) => ({ $ref: `#/components/headers/${ref}` });
/** Every answer says which request it was. */
const REQUEST_ID = { "X-Request-Id": header("XRequestId") };
const errorResponse = (description: string): Response => ({ description, headers: REQUEST_ID, content: json("Error") });

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

const countParameter: Parameter = {
  name: "count",
  in: "query",
  required: false,
  description:
    "`true`: the page carries `total`, the exact number of items of the whole walk from the first page. " +
    "It may change between pages (the cursor does not depend on it).",
  // A boolean in the query: spelt `true` or `false`, as OpenAPI's form style writes one.
  schema: { type: "boolean", default: false },
};

const filterParameter = (name: string, role: string): Parameter => ({
  name,
  in: "query",
  required: false,
  description: `Only statements whose ${role} is this entityId. An id that names no entity gives an empty page.`,
  schema: { type: "string", minLength: 1 },
});

/** The shared answers (components.responses); the data endpoints add `X-Quiver-Sequence` to most. */
const RESPONSES = {
  NotModified: {
    description: "If-None-Match named the tag of the answer this request would get: no body.",
    headers: {
      ETag: header("ETag"),
      "Cache-Control": header("CacheControlPrivate"),
      Vary: header("Vary"),
      ...REQUEST_ID,
    },
  },
  BadRequest: errorResponse(
    "A parameter is missing, empty, repeated, unknown, malformed or out of range; a bad cursor " +
      "(altered, malformed, or from another endpoint or other parameters); or a query string that is not valid percent-encoded UTF-8.",
  ),
  Unauthorized: errorResponse("X-API-Key is missing or not accepted."),
  NotFound: errorResponse("No such path."),
  MethodNotAllowed: {
    description: "A method other than GET or HEAD.",
    headers: {
      Allow: { description: "Always `GET, HEAD`.", schema: { type: "string", const: "GET, HEAD" } },
      ...REQUEST_ID,
    },
    content: json("Error"),
  },
  UriTooLong: errorResponse(`The request target is longer than ${MAX_REQUEST_TARGET_BYTES} bytes.`),
  RequestTimeout: errorResponse(
    "The request line and headers did not arrive in time (any path; answered before routing).",
  ),
  HeadersTooLarge: errorResponse(
    `The request head is over ${MAX_HEAD_BYTES} bytes and its target is not what made it long (any path; answered before routing).`,
  ),
  InternalError: errorResponse("An unexpected fault; the body never carries a stack trace."),
} satisfies Record<string, Response>;

/** Every answer of a data endpoint (a 401 too: the header names the batch, no content) names the graph's last batch. */
const SEQUENCE = { "X-Quiver-Sequence": header("XQuiverSequence") };
const withSequence = (r: Response): Response => ({ ...r, headers: { ...r.headers, ...SEQUENCE } });

/** The statuses the data endpoints answer besides 200; 404 belongs to every other path. */
const COMMON_ERRORS = {
  "304": withSequence(RESPONSES.NotModified),
  "400": withSequence(RESPONSES.BadRequest),
  // CONTRACT.md: every answer of the data endpoints carries it, a refused key's too.
  "401": withSequence(RESPONSES.Unauthorized),
  "405": withSequence(RESPONSES.MethodNotAllowed),
  "414": withSequence(RESPONSES.UriTooLong),
  "500": withSequence(RESPONSES.InternalError),
};

const SECURITY = [{ apiKeyAuth: [] }];

/** A 200 of a data endpoint: the page, its tag, and the headers of caching and compression. */
const page = (description: string, schema: string): Response => ({
  description,
  headers: {
    ETag: header("ETag"),
    "Cache-Control": header("CacheControlPrivate"),
    Vary: header("Vary"),
    "Content-Encoding": header("ContentEncoding"),
    ...REQUEST_ID,
    ...SEQUENCE,
  },
  content: json(schema),
});

const searchOperation: Operation = {
  operationId: "searchEntities",
  summary: "Search entities by a substring of their raw identifier.",
  description:
    "Matching folds case and compatibility forms (NFKC, full case folding); accents are kept, unless the graph " +
    'was built with accent folding (then combining marks are removed too: "zurich" finds "Zürich"). ' +
    "Order: exact matches, then prefix matches, then the rest (the tier); within each, with `order=score`, by the " +
    "entity's score, highest first; then by folded raw identifier, then entityId.",
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
    {
      name: "order",
      in: "query",
      required: false,
      description:
        "Inside each tier: `name` (by folded raw identifier, then entityId) or `score` (by the entity's score, highest " +
        "first, then as `name`). An entity's score is given in the input, else its number of statements. " +
        "A cursor belongs to its order.",
      schema: { type: "string", enum: ["name", "score"], default: "name" },
    },
    countParameter,
    ...CONDITIONAL_PARAMETERS,
  ],
  responses: { "200": page("A page of entities.", "EntityPage"), ...COMMON_ERRORS },
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
    countParameter,
    ...CONDITIONAL_PARAMETERS,
  ],
  responses: { "200": page("A page of statements.", "StatementPage"), ...COMMON_ERRORS },
};

const entityOperation: Operation = {
  operationId: "getEntity",
  summary: "One entity by its entityId.",
  description:
    "The entityId is the path segment, percent-encoded as UTF-8 (a `/` inside an id is `%2F`). " +
    "Takes no query parameters (any is 400). An empty segment, or more than one, is an unknown path (404 NOT_FOUND).",
  security: SECURITY,
  parameters: [
    {
      name: "entityId",
      in: "path",
      required: true,
      description: "The entityId, percent-encoded as UTF-8.",
      schema: { type: "string", minLength: 1 },
    },
    ...CONDITIONAL_PARAMETERS,
  ],
  responses: {
    "200": page("The entity.", "Entity"),
    ...COMMON_ERRORS,
    "404": withSequence(errorResponse("The graph has no entity with this entityId (code ENTITY_NOT_FOUND).")),
  },
};

/** An id of a change line: non-empty, at most ENTITY_ID_MAX_BYTES bytes of UTF-8. */
const changeId = (what: string): JsonSchema =>
  str(`${what}; non-empty, at most ${ENTITY_ID_MAX_BYTES} bytes of UTF-8.`, { minLength: 1 });

const FINGERPRINT_NOTE = `at most ${STATEMENT_FINGERPRINT_MAX_BYTES} bytes of UTF-8`;

/**
 * The four kinds of change line (change-batch.ts). Fields other than those named are ignored, so no
 * `additionalProperties: false`; a line that matches two kinds (an entity and a statement, both
 * delete targets) is refused by the server, which `oneOf` says too.
 */
const CHANGE_LINE_SCHEMA: JsonSchema = {
  description:
    "One line of a change batch: one of the four kinds. Fields other than those named are ignored; a line that " +
    "puts both an entity and a statement, or deletes both, is refused (400 INVALID_CHANGE).",
  oneOf: [
    {
      type: "object",
      description: "Adds the entity, or replaces the one with that entityId.",
      properties: {
        op: { type: "string", const: "put" },
        entity: {
          type: "object",
          properties: {
            entityId: changeId("The entity's id"),
            rawIdentifier: str(`The text search matches; at most ${RAW_IDENTIFIER_MAX_BYTES} bytes of UTF-8.`),
            type: str('Entity type character, "0" to "7".', { enum: ENTITY_TYPES }),
            sourceType: str(`Kind of source; at most ${SOURCE_TYPE_MAX_BYTES} bytes of UTF-8.`),
            score: {
              type: "integer",
              minimum: 0,
              maximum: MAX_SCORE,
              description: "Optional: left out, the entity's statements count it.",
            },
          },
          required: ["entityId", "rawIdentifier", "type", "sourceType"],
        },
      },
      required: ["op", "entity"],
    },
    {
      type: "object",
      description:
        "Removes the entity (an absent one is a no-op). A batch that leaves a statement naming it gets 409, " +
        "unless `cascade` is true, which removes those statements too.",
      properties: {
        op: { type: "string", const: "delete" },
        entityId: changeId("The entity's id"),
        cascade: { type: "boolean", default: false, description: "Also remove every statement naming the entity." },
      },
      required: ["op", "entityId"],
    },
    {
      type: "object",
      description:
        "Adds the statement; the same statement again is a no-op, another statement with its fingerprint is 409, " +
        "and so is an entity it names that is not there.",
      properties: {
        op: { type: "string", const: "put" },
        statement: {
          type: "object",
          properties: {
            subjectEntityId: changeId("Id of the subject"),
            predicateEntityId: changeId("Id of the predicate"),
            objectEntityId: changeId("Id of the object"),
            statementFingerprint: str(`Optional (derived when left out); non-empty, ${FINGERPRINT_NOTE}.`, {
              minLength: 1,
            }),
          },
          required: ["subjectEntityId", "predicateEntityId", "objectEntityId"],
        },
      },
      required: ["op", "statement"],
    },
    {
      type: "object",
      description: "Removes that statement; an unknown fingerprint is a no-op.",
      properties: {
        op: { type: "string", const: "delete" },
        statementFingerprint: str(`The statement's fingerprint; non-empty, ${FINGERPRINT_NOTE}.`, { minLength: 1 }),
      },
      required: ["op", "statementFingerprint"],
    },
  ],
};

const countsSchema = (what: string): JsonSchema => ({
  type: "object",
  description: `What the batch did to ${what}.`,
  properties: {
    put: { type: "integer", minimum: 0 },
    deleted: { type: "integer", minimum: 0 },
  },
  required: ["put", "deleted"],
  additionalProperties: false,
});

const CHANGE_RESULT_SCHEMA: JsonSchema = {
  type: "object",
  description:
    "An applied batch. `entities.put` counts every entity line (a replacement too); `deleted` counts entities and " +
    "statements that were there (cascaded statements included); `statements.put` leaves out no-ops.",
  properties: {
    sequence: {
      type: "integer",
      minimum: 1,
      description: "The batch's number: 1, 2, 3... in the order batches apply (an empty batch takes one too).",
    },
    entities: countsSchema("entities"),
    statements: countsSchema("statements"),
  },
  required: ["sequence", "entities", "statements"],
  additionalProperties: false,
};

const changesOperation: Operation = {
  operationId: "applyChanges",
  summary: "Apply one batch of changes, atomically and durably.",
  description:
    "This path exists only on a server started with a change log (`quiver serve ... --changes DIR`, or `changes` " +
    "in the embedded handler's options); on any other server (and on a `--follow` replica) it answers 404 NOT_FOUND " +
    "like any unknown path. Needs a write key (QUIVER_WRITE_KEYS): a read key gets 403. The body is JSON Lines, " +
    "one change a line (components.schemas.ChangeLine), applied in order as one atomic batch: later lines see " +
    "earlier ones, blank lines are skipped (but counted in line numbers), and a batch that gets any error applies " +
    "nothing. The 200 comes once the batch is in the log, flushed to disk, and visible to every later request.",
  security: SECURITY,
  parameters: [REQUEST_ID_PARAMETER],
  requestBody: {
    required: true,
    description: `A change batch: JSON Lines, each non-blank line one ChangeLine; at most ${MAX_CHANGE_BODY_BYTES} bytes.`,
    content: { "application/x-ndjson": { schema: { $ref: "#/components/schemas/ChangeBatch" } } },
  },
  responses: {
    "200": {
      description: "The batch is applied: durable and visible.",
      headers: {
        "Cache-Control": header("CacheControlNoStore"),
        ...REQUEST_ID,
        ...SEQUENCE,
      },
      content: json("ChangeResult"),
    },
    "400": withSequence(
      errorResponse(
        "INVALID_CHANGE: a line is not one of the four kinds or breaks a rule of the input format (the message names " +
          "the line and the field); INVALID_CONTENT_TYPE: a Content-Type other than application/x-ndjson " +
          "(parameters such as `; charset=utf-8` are accepted); UNKNOWN_PARAMETER or INVALID_ENCODING: a query " +
          "parameter (the path takes none). Nothing applied.",
      ),
    ),
    "401": withSequence(RESPONSES.Unauthorized),
    "403": withSequence(
      errorResponse(
        "WRITE_FORBIDDEN: a POST with a read key (QUIVER_API_KEYS); writing needs a write key (QUIVER_WRITE_KEYS).",
      ),
    ),
    "405": {
      description: "METHOD_NOT_ALLOWED: a method other than POST (after the key is checked; a read key gets it too).",
      headers: {
        Allow: { description: "Always `POST`.", schema: { type: "string", const: "POST" } },
        ...REQUEST_ID,
        ...SEQUENCE,
      },
      content: json("Error"),
    },
    "409": withSequence(
      errorResponse(
        "CHANGE_CONFLICT: the batch cannot apply to the graph as it stands (a statement naming an entity that is not " +
          "there, a fingerprint another statement holds, an entity deleted without `cascade` while a statement names " +
          "it); the message names the line and the statement in the way. Nothing applied.",
      ),
    ),
    "413": withSequence(
      errorResponse(
        `CHANGES_TOO_LARGE: a body over ${MAX_CHANGE_BODY_BYTES} bytes (the server's limit), refused by its ` +
          "Content-Length before a byte is read, or as soon as a chunked body passes it. Nothing applied.",
      ),
    ),
    "414": withSequence(RESPONSES.UriTooLong),
    "500": withSequence(RESPONSES.InternalError),
    "503": {
      description:
        "CHANGE_LOG_UNAVAILABLE: the change log cannot be written (full disk, read-only, gone); the graph and the " +
        "log are as before and the server keeps serving.",
      headers: { "Retry-After": header("RetryAfter"), ...REQUEST_ID, ...SEQUENCE },
      content: json("Error"),
    },
  },
};

/** HEAD answers as GET with the same status and headers, and no body. */
function headOf(op: Operation): Operation {
  const responses: Operation["responses"] = {};
  for (const [status, r] of Object.entries(op.responses)) {
    responses[status] = "$ref" in r ? r : { description: r.description };
  }
  return { ...op, operationId: `${op.operationId}Head`, summary: `${op.summary} (headers only)`, responses };
}

const publicOperation = (operationId: string, summary: string, ok: Response, conditional: boolean): Operation => ({
  operationId,
  summary,
  description: "Needs no API key.",
  security: [],
  parameters: conditional ? CONDITIONAL_PARAMETERS : [REQUEST_ID_PARAMETER],
  responses: {
    "200": ok,
    ...(conditional ? { "304": { $ref: "#/components/responses/NotModified" } } : {}),
    "405": { $ref: "#/components/responses/MethodNotAllowed" },
    "414": { $ref: "#/components/responses/UriTooLong" },
  },
});

const healthOperation = publicOperation(
  "health",
  "Liveness, for load balancers.",
  { description: "The server is up.", headers: REQUEST_ID, content: json("Health") },
  false,
);

const openapiOperation = publicOperation(
  "openapi",
  "This document.",
  {
    description: "The OpenAPI 3.1 document of this API.",
    headers: {
      ETag: header("ETag"),
      Vary: header("Vary"),
      "Content-Encoding": header("ContentEncoding"),
      ...REQUEST_ID,
    },
    content: { "application/json": { schema: { type: "object" } } },
  },
  true,
);

export const OPENAPI_DOCUMENT = {
  openapi: "3.1.0",
  info: {
    title: "Quiver graph query API",
    version: "1.0.0",
    description:
      "Search entities, look one up by its id, and list statements of an in-memory graph, with keyset pagination. " +
      "A server started with a change log also takes batches of changes (POST /graph/v1/changes). " +
      'Every error is application/json {"error": "<sentence>", "code": "<CODE>"}. Any path not listed here answers 404; ' +
      `a request target longer than ${MAX_REQUEST_TARGET_BYTES} bytes answers 414. Before any path is looked at, ` +
      `a client too slow to send its headers gets 408; a request head over ${MAX_HEAD_BYTES} bytes 414 when its target ` +
      "alone is too long and 431 otherwise; a malformed request line, a method name HTTP does not register, a target " +
      "byte that must be percent-encoded, or not one Host header in HTTP/1.1, 400 (components.responses). " +
      "Bodies of 1024 bytes or more are compressed with br or gzip when Accept-Encoding allows it (the server's default). " +
      "With CORS configured, a preflight (OPTIONS) from an allowed origin answers 204 before the key is checked.",
  },
  paths: {
    [ROUTES.search]: { get: searchOperation, head: headOf(searchOperation) },
    [ROUTES.statements]: { get: statementsOperation, head: headOf(statementsOperation) },
    [ROUTES.entity]: { get: entityOperation, head: headOf(entityOperation) },
    [ROUTES.health]: { get: healthOperation, head: headOf(healthOperation) },
    [ROUTES.openapi]: { get: openapiOperation, head: headOf(openapiOperation) },
    [ROUTES.changes]: { post: changesOperation },
  },
  components: {
    securitySchemes: {
      apiKeyAuth: {
        type: "apiKey",
        in: "header",
        name: "X-API-Key",
        description:
          "An API key that begins with `sk_`. Checked before anything else on the data endpoints. Read keys " +
          "(QUIVER_API_KEYS) read; write keys (QUIVER_WRITE_KEYS) read too, and are the only keys " +
          "`POST /graph/v1/changes` accepts (a read key gets 403 WRITE_FORBIDDEN there).",
      },
    },
    schemas: {
      Entity: ENTITY_SCHEMA,
      Statement: STATEMENT_SCHEMA,
      EntityPage: pageSchema("Entity", "entities"),
      StatementPage: pageSchema("Statement", "statements"),
      Error: ERROR_SCHEMA,
      ChangeLine: CHANGE_LINE_SCHEMA,
      ChangeBatch: {
        type: "string",
        description:
          "JSON Lines (application/x-ndjson): each non-blank line one ChangeLine, applied in order as one atomic batch.",
      },
      ChangeResult: CHANGE_RESULT_SCHEMA,
      Health: {
        type: "object",
        properties: { status: { type: "string", const: "ok" } },
        required: ["status"],
        additionalProperties: false,
      },
    },
    parameters: {
      IfNoneMatch: {
        name: "If-None-Match",
        in: "header",
        required: false,
        description:
          "An ETag of an earlier 200 (or `*`): when it names the answer's tag, the answer is 304 with no body " +
          "(after the API key is checked).",
        schema: { type: "string" },
      },
      XRequestId: {
        name: "X-Request-Id",
        in: "header",
        required: false,
        description: `An id for this request, echoed in the answer and in the server's log: 1 to ${MAX_REQUEST_ID_CHARS} visible ASCII characters; anything else is replaced by one the server makes.`,
        schema: { type: "string", minLength: 1, maxLength: MAX_REQUEST_ID_CHARS, pattern: "^[\\x21-\\x7e]+$" },
      },
    },
    headers: {
      ETag: {
        description:
          "A strong tag of the body: two answers with one tag have the same bytes, whatever graph or replica served " +
          'them. One per content coding ("...", "...-gz", "...-br").',
        schema: { type: "string", pattern: '^"[A-Za-z0-9_-]+"$' },
      },
      CacheControlPrivate: {
        description: "`private`: the answer depends on the API key, so no shared cache may store it.",
        schema: { type: "string", const: "private" },
      },
      Vary: {
        description:
          "`Accept-Encoding` (and `Origin` when CORS lists origins): what the body depends on besides the URL.",
        schema: { type: "string" },
      },
      ContentEncoding: {
        description: "`br` or `gzip` when the body is compressed (1024 bytes or more, and the client accepts it).",
        schema: { type: "string", enum: ["br", "gzip"] },
      },
      XRequestId: {
        description: "The request's id: the client's X-Request-Id when usable, else one the server made.",
        schema: { type: "string", minLength: 1, maxLength: MAX_REQUEST_ID_CHARS },
      },
      XQuiverSequence: {
        description:
          "The number of the last change batch the graph that answered holds, in decimal (0 on a server without a " +
          "change log, or before its first batch). On every answer of search, statements, the entity lookup and " +
          "POST /graph/v1/changes, a 401 and every other refusal included (not on the 400/408/414/431 sent before " +
          "routing, which reach no endpoint); a refused batch names the last batch the graph holds (nothing was applied).",
        schema: { type: "string", pattern: "^(0|[1-9][0-9]*)$" },
      },
      CacheControlNoStore: {
        description: "`no-store`: a write's answer is never cached.",
        schema: { type: "string", const: "no-store" },
      },
      RetryAfter: {
        description: "Seconds to wait before sending the batch again.",
        schema: { type: "string", const: String(CHANGE_RETRY_AFTER_SECONDS) },
      },
    },
    responses: RESPONSES,
  },
} as const;

/** The document as bytes, serialized once. */
export const OPENAPI_JSON: Buffer = Buffer.from(JSON.stringify(OPENAPI_DOCUMENT), "utf8");
