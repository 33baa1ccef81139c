/**
 * The entity view
 * ===============
 * One entity from the lookup endpoint (`GET /graph/v1/entities/{id}`), its statements as subject
 * and as object in two lists (each with its exact total, paged by cursor with "More statements"),
 * every entity a statement names a link to its own page, predicates shown by their raw identifiers,
 * and the neighbourhood picture (picture.ts) drawn from the first page of each list.
 *
 * On a server without the lookup (404 NOT_FOUND for the path), the entity is told from its
 * statements (their raw identifiers), and the page says the type and source are unknown.
 */

import { ApiProblem, type Entity, type Page, type Statement } from "./api.js";
import type { App } from "./app.js";
import { byId, count, h } from "./dom.js";
import { neighbourhood } from "./picture.js";

/** Statements a page, in each list. */
export const STATEMENT_PAGE = 10;

type Side = "subjectEntityId" | "objectEntityId";

export interface EntityView {
  show(id: string, force?: boolean): void;
}

export function entityView(app: App): EntityView {
  const root = byId("entity");
  let shown = "";
  let controller: AbortController | null = null;

  const link = (id: string, name: string): HTMLAnchorElement =>
    h("a", { href: app.entityHref(id), title: id }, name === "" ? h("em", {}, "(empty name)") : name);

  /** One statement list: a heading with its total, a table, and its "More statements" button. */
  const statementList = (entity: Entity, side: Side, first: Page<Statement>, signal: AbortSignal): HTMLElement => {
    const asSubject = side === "subjectEntityId";
    const headingId = asSubject ? "as-subject" : "as-object";
    const totalText = h("span", { class: "total" });
    const body = h("tbody");
    const more = h("button", { type: "button", class: "more" }, "More statements");
    let cursor = first.nextCursor;
    let loaded = 0;
    const total = first.total;
    const describe = (): void => {
      totalText.textContent =
        total !== undefined
          ? ` — ${count(total)} ${total === 1 ? "statement" : "statements"}${loaded < total ? `, ${count(loaded)} shown` : ""}`
          : ` — ${count(loaded)} shown${cursor === null ? "" : " and more"}`;
    };
    const add = (page: Page<Statement>): void => {
      for (const s of page.items) {
        const predicate = h("td", { class: "predicate" }, link(s.predicateEntityId, s.predicateRawIdentifier));
        const other = asSubject
          ? h("td", {}, link(s.objectEntityId, s.objectRawIdentifier))
          : h("td", {}, link(s.subjectEntityId, s.subjectRawIdentifier));
        body.append(asSubject ? h("tr", {}, predicate, other) : h("tr", {}, other, predicate));
      }
      loaded += page.items.length;
      cursor = page.nextCursor;
      more.hidden = cursor === null;
      describe();
    };
    more.addEventListener("click", () => {
      more.disabled = true;
      const before = body.rows.length;
      app.api.statements(side, entity.entityId, cursor, STATEMENT_PAGE, signal).then(
        (page) => {
          more.disabled = false;
          add(page);
          // The keyboard goes on where the new rows begin.
          body.rows[before]?.querySelector("a")?.focus();
        },
        (e: unknown) => {
          more.disabled = false;
          app.problem(e, () => more.click());
        },
      );
    });
    add(first);
    const head = asSubject
      ? h("tr", {}, h("th", { scope: "col" }, "predicate"), h("th", { scope: "col" }, "object"))
      : h("tr", {}, h("th", { scope: "col" }, "subject"), h("th", { scope: "col" }, "predicate"));
    const empty =
      loaded === 0
        ? h("p", { class: "empty" }, `No statement has this entity as ${asSubject ? "subject" : "object"}.`)
        : null;
    return h(
      "section",
      { "aria-labelledby": headingId, class: "statements" },
      h("h3", { id: headingId }, asSubject ? "As subject" : "As object", totalText),
      empty ?? h("table", {}, h("thead", {}, head), body),
      more,
    );
  };

  const render = (
    entity: Entity,
    subjects: Page<Statement>,
    objects: Page<Statement>,
    note: string,
    signal: AbortSignal,
  ): void => {
    const title = h("h2", { id: "entity-title", tabindex: "-1" }, entity.rawIdentifier || h("em", {}, "(empty name)"));
    const facts = h(
      "dl",
      { class: "facts" },
      h("dt", {}, "entityId"),
      h("dd", {}, h("code", {}, entity.entityId)),
      h("dt", {}, "type"),
      h("dd", {}, entity.type),
      h("dt", {}, "sourceType"),
      h("dd", {}, entity.sourceType === "" ? h("em", {}, "(none)") : entity.sourceType),
    );
    const figure = h(
      "figure",
      {},
      neighbourhood(entity, subjects.items, objects.items, app.entityHref),
      h(
        "figcaption",
        {},
        "Its first statements: subjects that point at it on the left, the objects it points at on the right.",
      ),
    );
    root.replaceChildren(
      h("p", {}, h("a", { href: app.entityHref(""), id: "back" }, "← Back to the results")),
      title,
      ...(note === "" ? [] : [h("p", { class: "note" }, note)]),
      facts,
      figure,
      h(
        "div",
        { class: "lists" },
        statementList(entity, "subjectEntityId", subjects, signal),
        statementList(entity, "objectEntityId", objects, signal),
      ),
    );
    document.title = `${entity.rawIdentifier || entity.entityId} — Quiver explorer`;
    title.focus();
  };

  const load = (id: string): void => {
    controller?.abort();
    const mine = new AbortController();
    controller = mine;
    const { signal } = mine;
    root.replaceChildren(h("p", { role: "status" }, "Loading…"));
    const lookup = app.api.entity(id, signal).then(
      (entity) => ({ entity, note: "" }),
      (e: unknown) => {
        // A server without the lookup path: the entity is told from its statements below.
        if (e instanceof ApiProblem && e.status === 404 && e.code === "NOT_FOUND") return { entity: null, note: "" };
        throw e;
      },
    );
    Promise.all([
      lookup,
      app.api.statements("subjectEntityId", id, null, STATEMENT_PAGE, signal),
      app.api.statements("objectEntityId", id, null, STATEMENT_PAGE, signal),
    ]).then(
      ([found, subjects, objects]) => {
        if (controller !== mine) return;
        app.problem(null);
        let entity = found.entity;
        let note = found.note;
        if (entity === null) {
          const s = subjects.items[0];
          const o = objects.items[0];
          entity = {
            entityId: id,
            rawIdentifier: s?.subjectRawIdentifier ?? o?.objectRawIdentifier ?? id,
            type: "?",
            sourceType: "?",
          };
          note =
            "This server has no entity lookup (GET /graph/v1/entities/…): the name comes from the statements, the type and source are unknown.";
        }
        render(entity, subjects, objects, note, signal);
      },
      (e: unknown) => {
        if (controller !== mine) return;
        shown = "";
        if (e instanceof ApiProblem && e.kind === "not-found") {
          root.replaceChildren(
            h(
              "p",
              { class: "empty" },
              `No entity has the id “${id}”. `,
              h("a", { href: app.entityHref("") }, "Back to the results"),
            ),
          );
          document.title = "No such entity — Quiver explorer";
          return;
        }
        root.replaceChildren();
        app.problem(e, () => load(id));
      },
    );
  };

  return {
    show(id, force = false) {
      if (!force && id === shown) return;
      shown = id;
      if (id === "") {
        controller?.abort();
        controller = null;
        root.replaceChildren();
        return;
      }
      load(id);
    },
  };
}
