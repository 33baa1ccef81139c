/**
 * Registered HTTP methods
 * =======================
 * Owns the list of every method name the IANA HTTP Method Registry holds, which decides between 405
 * and 400 for a method Quiver does not serve: a registered method gets 405 (or 401 first on the data
 * endpoints) even when a server's parser does not know it; a name not on the list, that no parser
 * reads, gets 400 (node.ts). Data only, as Hono keeps its status table in utils/http-status.ts.
 *
 * Reference: IANA "Hypertext Transfer Protocol (HTTP) Method Registry" (RFC 9110 section 16.1).
 */

/**
 * Every method name the IANA HTTP Method Registry holds (RFC 9110, RFC 7237 and later). A method
 * on this list gets 405 (or 401 first on the data endpoints) even when a server's parser does not
 * know it (node refuses ten of them); a name not on it, that no parser reads, gets 400.
 */
export const REGISTERED_METHODS: ReadonlySet<string> = new Set([
  "ACL",
  "BASELINE-CONTROL",
  "BIND",
  "CHECKIN",
  "CHECKOUT",
  "CONNECT",
  "COPY",
  "DELETE",
  "GET",
  "HEAD",
  "LABEL",
  "LINK",
  "LOCK",
  "MERGE",
  "MKACTIVITY",
  "MKCALENDAR",
  "MKCOL",
  "MKREDIRECTREF",
  "MKWORKSPACE",
  "MOVE",
  "OPTIONS",
  "ORDERPATCH",
  "PATCH",
  "POST",
  "PRI",
  "PROPFIND",
  "PROPPATCH",
  "PUT",
  "QUERY",
  "REBIND",
  "REPORT",
  "SEARCH",
  "TRACE",
  "UNBIND",
  "UNCHECKOUT",
  "UNLINK",
  "UNLOCK",
  "UPDATE",
  "UPDATEREDIRECTREF",
  "VERSION-CONTROL",
]);
