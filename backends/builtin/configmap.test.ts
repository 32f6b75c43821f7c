import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { RegistryError } from "../registry/errors.ts";
import { type FieldError, formatFieldError } from "../registry/field-error.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { configMapKind } from "./configmap.ts";

const text = (errs: FieldError[] | undefined) => (errs ?? []).map(formatFieldError);
const kind = configMapKind(naming("cluster"));
const { strategy } = kind;
const KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

function create(object: JsonObject): FieldError[] {
  strategy.prepareForCreate?.(object);
  return strategy.validate?.(object) ?? [];
}

describe("ConfigMap", () => {
  it("schema", () => {
    assert.deepEqual(kind.schema.shortNames, ["cm"]);
    assert.equal(kind.schema.namespaced, true);
    assert.equal(kind.schema.verbs.length, 8);
    assert.equal(strategy.nameRule, "dns-subdomain");
    assert.equal(kind.schema.selectableFields, undefined);
  });

  const cases: [string, JsonObject, string[]][] = [
    ["plain data", { data: { "app.conf": "x=1", KEY_2: "" }, binaryData: { "b.bin": "AAEC" } }, []],
    [
      "bad keys",
      { data: { "a/b": "x", "..": "y" } },
      [`data[a/b]: Invalid value: "a/b": ${KEY_MSG}`, `data[..]: Invalid value: "..": must not be '..'`],
    ],
    ["bad binary key", { binaryData: { "a b": "" } }, [`binaryData[a b]: Invalid value: "a b": ${KEY_MSG}`]],
    [
      "a key in both maps",
      { data: { k: "x" }, binaryData: { k: "eA==" } },
      ['data[k]: Invalid value: "k": duplicate of key present in binaryData'],
    ],
    ["1 MiB is fine", { data: { a: "x".repeat(1024 * 1024 - 2) }, binaryData: { b: "eHg=" } }, []],
    [
      "more than 1 MiB in all",
      { data: { a: "x".repeat(1024 * 1024 - 1) }, binaryData: { b: "eHg=" } },
      [": Too long: must have at most 1048576 bytes"],
    ],
    [
      "multi-byte characters count as bytes",
      { data: { a: "é".repeat(512 * 1024 + 1) } },
      [": Too long: must have at most 1048576 bytes"],
    ],
  ];
  for (const [name, body, want] of cases) {
    it(name, () =>
      assert.deepEqual(text(create({ metadata: { name: "c", namespace: "n" }, ...body })), want),
    );
  }

  it("stores binaryData in canonical base64", () => {
    const cm: JsonObject = { binaryData: { a: "aGVs\nbG8=", b: null } };
    strategy.prepareForCreate?.(cm);
    assert.deepEqual(cm.binaryData, { a: "aGVsbG8=", b: "" });
  });

  it("refuses non-base64 binaryData as a bad request", () => {
    const cm: JsonObject = { metadata: { name: "c" }, binaryData: { a: "not base64!" } };
    assert.throws(
      () => strategy.prepareForCreate?.(cm),
      (e: unknown) =>
        e instanceof RegistryError &&
        e.reason === "BadRequest" &&
        e.objectName === "c" &&
        e.message ===
          'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 3',
    );
  });

  it("refuses non-string data values as a bad request", () => {
    assert.throws(
      () => strategy.prepareForCreate?.({ data: { a: 5 } }),
      /ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string/,
    );
  });

  it("an immutable ConfigMap keeps data, binaryData and immutable", () => {
    const old: JsonObject = {
      metadata: { name: "c" },
      immutable: true,
      data: { a: "1" },
      binaryData: { b: "AA==" },
    };
    const same: JsonObject = {
      metadata: { name: "c", labels: { x: "y" } },
      immutable: true,
      data: { a: "1" },
      binaryData: { b: "AA==" },
    };
    strategy.prepareForUpdate?.(same, old);
    assert.deepEqual(strategy.validateUpdate?.(same, old), []);
    const changed: JsonObject = { metadata: { name: "c" }, immutable: false, data: { a: "2" } };
    strategy.prepareForUpdate?.(changed, old);
    assert.deepEqual(text(strategy.validateUpdate?.(changed, old)), [
      "immutable: Forbidden: field is immutable when `immutable` is set",
      "data: Forbidden: field is immutable when `immutable` is set",
      "binaryData: Forbidden: field is immutable when `immutable` is set",
    ]);
  });

  it("a mutable ConfigMap may change and become immutable", () => {
    const old: JsonObject = { metadata: { name: "c" }, data: { a: "1" } };
    assert.deepEqual(
      strategy.validateUpdate?.({ metadata: { name: "c" }, data: { a: "2" }, immutable: true }, old),
      [],
    );
  });

  it("shows the number of entries", () => {
    const col = kind.schema.tableColumns?.[0];
    assert.equal(col?.name, "Data");
    assert.equal(col?.cell({ data: { a: "", b: "" }, binaryData: { c: "" } }), 3);
    assert.equal(col?.cell({}), 0);
  });
});
