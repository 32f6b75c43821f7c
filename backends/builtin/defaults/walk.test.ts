import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Catalog } from "../../catalog/catalog.ts";
import { f, inline, pkg, t } from "../../catalog/model.ts";
import { compileDefaulter, compileDefaulterIfAny, type TypeDefaulters, unknownDefaulterIds } from "./walk.ts";

const META = pkg("meta/v1", "test.meta", {
  ObjectMeta: t("Metadata.", { name: f(1, "string", "Name."), labels: f(2, "{}string", "Labels.") }),
});

const SHOP = pkg("shop/v1", "test.shop", {
  Order: t("An order.", {
    metadata: f(1, "meta/v1.ObjectMeta", "Metadata."),
    spec: f(2, "OrderSpec", "Spec."),
    status: f(3, "OrderStatus", "Status."),
  }),
  OrderSpec: t("What was ordered.", {
    lines: f(1, "[]Line", "Lines."),
    byWarehouse: f(2, "{}Line", "Lines by warehouse."),
    nested: f(3, "[][]Line", "Lines in groups."),
    note: f(4, "Note", "A note without defaults."),
    payment: f(5, "Payment", "Payment."),
  }),
  Line: t("One line.", {
    item: f(1, "string", "Item."),
    quantity: f(2, "int32", "How many."),
    gift: f(3, "Wrapping", "Gift wrapping, inlined.", inline),
  }),
  Wrapping: t("Wrapping.", { paper: f(1, "string", "Paper."), ribbon: f(2, "Ribbon", "Ribbon.") }),
  Ribbon: t("A ribbon.", { color: f(1, "string", "Color.") }),
  Note: t("A note.", { text: f(1, "string", "Text."), again: f(2, "Note", "A note inside.") }),
  OrderStatus: t("Status.", { phase: f(1, "string", "Phase.") }),
  Payment: t("Payment.", { card: f(1, "Card", "Card."), next: f(2, "Payment", "A later payment.") }),
  Card: t("A card.", { kind: f(1, "string", "Kind.") }),
});

const catalog = new Catalog([META, SHOP]);

/** Defaulters that record the order they ran in and set a marker. */
function recording(log: string[]): TypeDefaulters {
  const mark =
    (name: string, apply: (v: Record<string, unknown>) => void = () => {}) =>
    (v: Record<string, unknown>) => {
      log.push(name);
      apply(v);
    };
  return {
    "shop/v1.Order": mark("Order", (o) => {
      // The parent runs first: what it creates is then walked too.
      const spec = o.spec;
      if (typeof spec === "object" && spec !== null && !("lines" in spec)) {
        (spec as Record<string, unknown>).lines = [{ item: "added" }];
      }
    }),
    "shop/v1.OrderSpec": mark("OrderSpec"),
    "shop/v1.Line": mark("Line", (l) => {
      l.quantity ??= 1;
    }),
    "shop/v1.Wrapping": mark("Wrapping", (w) => {
      w.paper ??= "plain";
    }),
    "shop/v1.Ribbon": mark("Ribbon", (r) => {
      r.color ??= "red";
    }),
    "shop/v1.Card": mark("Card", (c) => {
      c.kind ??= "debit";
    }),
  };
}

describe("compileDefaulter", () => {
  it("runs the parent first, then fields in field order, through lists, maps and inline structs", () => {
    const log: string[] = [];
    const run = compileDefaulter(catalog, "shop/v1.Order", recording(log));
    const order = {
      spec: {
        lines: [
          { item: "a", ribbon: {} },
          { item: "b", quantity: 3 },
        ],
        byWarehouse: { north: { item: "c" } },
        nested: [[{ item: "d" }], []],
      },
    };
    run(order);
    assert.deepEqual(log, [
      "Order",
      "OrderSpec",
      "Line",
      "Wrapping",
      "Ribbon",
      "Line",
      "Wrapping",
      "Line",
      "Wrapping",
      "Line",
      "Wrapping",
    ]);
    assert.deepEqual(order.spec, {
      lines: [
        { item: "a", quantity: 1, paper: "plain", ribbon: { color: "red" } },
        { item: "b", quantity: 3, paper: "plain" },
      ],
      byWarehouse: { north: { item: "c", quantity: 1, paper: "plain" } },
      nested: [[{ item: "d", quantity: 1, paper: "plain" }], []],
    });
  });

  it("walks what a parent's defaulter created", () => {
    const run = compileDefaulter(catalog, "shop/v1.Order", recording([]));
    const order = { spec: {} };
    run(order);
    assert.deepEqual(order.spec, { lines: [{ item: "added", quantity: 1, paper: "plain" }] });
  });

  it("skips values of the wrong JSON type and missing values", () => {
    const log: string[] = [];
    const run = compileDefaulter(catalog, "shop/v1.Order", recording(log));
    const order = {
      spec: { lines: { item: "not a list" }, byWarehouse: [{ item: "not a map" }], nested: ["x", [1, null]] },
    };
    run(order);
    assert.deepEqual(log, ["Order", "OrderSpec"]);
    assert.deepEqual(order.spec, {
      lines: { item: "not a list" },
      byWarehouse: [{ item: "not a map" }],
      nested: ["x", [1, null]],
    });
    for (const value of [null, "x", 3, [], undefined]) run(value);
    const spec = { spec: "wrong" };
    run(spec);
    assert.deepEqual(spec, { spec: "wrong" });
  });

  it("follows recursive types", () => {
    const run = compileDefaulter(catalog, "shop/v1.Order", recording([]));
    const order = { spec: { lines: [], payment: { card: {}, next: { next: { card: {} } } } } };
    run(order);
    assert.deepEqual(order.spec.payment, {
      card: { kind: "debit" },
      next: { next: { card: { kind: "debit" } } },
    });
  });

  it("compiles no walk for types that reach no defaulter", () => {
    const defaulters = recording([]);
    assert.equal(compileDefaulterIfAny(catalog, "shop/v1.Note", defaulters), undefined);
    assert.equal(compileDefaulterIfAny(catalog, "shop/v1.OrderStatus", defaulters), undefined);
    assert.notEqual(compileDefaulterIfAny(catalog, "shop/v1.Payment", defaulters), undefined);
    const note = { text: "x" };
    compileDefaulter(catalog, "shop/v1.Note", defaulters)(note);
    assert.deepEqual(note, { text: "x" });
    assert.throws(() => compileDefaulter(catalog, "shop/v1.Missing", defaulters), /not defined/);
  });

  it("names defaulters for types the catalog lacks", () => {
    assert.deepEqual(unknownDefaulterIds(catalog, { ...recording([]), "shop/v1.Lines": () => {} }), [
      "shop/v1.Lines",
    ]);
  });
});
