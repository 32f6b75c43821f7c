import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ERROR_LIMITS, type FieldError, formatFieldError } from "../../registry/field-error.ts";
import { compileNode } from "./node.ts";
import type { StructuralSchema } from "./types.ts";
import { FIELD_VALUE_TOO_MANY, validateNodeUpdate, validateValue } from "./validate.ts";

function spec(
  properties: Record<string, StructuralSchema>,
  extra: Partial<StructuralSchema> = {},
): StructuralSchema {
  return { type: "object", properties: { spec: { type: "object", properties, ...extra } } };
}

function texts(errs: readonly FieldError[]): string[] {
  return errs.map(formatFieldError);
}

function check(schema: StructuralSchema, value: unknown, options: { builtin?: boolean } = {}): string[] {
  return texts(validateValue(schema, value, options));
}

describe("types", () => {
  const cases: [string, StructuralSchema, unknown, string[]][] = [
    [
      "string for integer",
      { type: "integer" },
      "3",
      ['spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"'],
    ],
    [
      "float for integer",
      { type: "integer" },
      1.5,
      ['spec.x: Invalid value: "number": spec.x in body must be of type integer: "number"'],
    ],
    ["integer for number", { type: "number" }, 3, []],
    ["float for number", { type: "number" }, 3.25, []],
    [
      "object for string",
      { type: "string" },
      { a: 1 },
      ['spec.x: Invalid value: "object": spec.x in body must be of type string: "object"'],
    ],
    [
      "array for object",
      { type: "object" },
      [1],
      ['spec.x: Invalid value: "array": spec.x in body must be of type object: "array"'],
    ],
    [
      "number for boolean",
      { type: "boolean" },
      0,
      ['spec.x: Invalid value: "integer": spec.x in body must be of type boolean: "integer"'],
    ],
    ["boolean", { type: "boolean" }, false, []],
    [
      "null for non-nullable",
      { type: "string" },
      null,
      ['spec.x: Invalid value: "null": spec.x in body must be of type string: "null"'],
    ],
    ["null for nullable", { type: "string", nullable: true }, null, []],
    ["int-or-string takes an integer", { "x-kubernetes-int-or-string": true }, 8080, []],
    ["int-or-string takes a string", { "x-kubernetes-int-or-string": true }, "http", []],
    [
      "int-or-string refuses a float",
      { "x-kubernetes-int-or-string": true },
      1.5,
      ['spec.x: Invalid value: "number": spec.x in body must be of type integer,string: "number"'],
    ],
    [
      "untyped under preserve-unknown-fields",
      { "x-kubernetes-preserve-unknown-fields": true },
      { any: [1] },
      [],
    ],
    [
      "number where a formatted string is wanted",
      { type: "string", format: "date-time" },
      5,
      ['spec.x: Invalid value: "int64": spec.x in body must be of type date-time: "int64"'],
    ],
  ];
  for (const [name, schema, value, want] of cases) {
    it(name, () => {
      assert.deepEqual(check(spec({ x: schema }), { spec: { x: value } }), want);
    });
  }

  it("reports a type error with its detail and the JSON type as the value", () => {
    const [e] = validateValue(spec({ replicas: { type: "integer" } }), { spec: { replicas: "3" } });
    assert.deepEqual(e, {
      field: "spec.replicas",
      type: "FieldValueTypeInvalid",
      value: "string",
      detail: 'spec.replicas in body must be of type integer: "string"',
    });
  });
});

describe("required, enum, strings, numbers, lists, objects", () => {
  const cases: [string, StructuralSchema, unknown, string[]][] = [
    [
      "required present",
      { type: "object", required: ["a"], properties: { a: { type: "string" } } },
      { a: "" },
      [],
    ],
    [
      "required missing",
      { type: "object", required: ["a", "b"], properties: { a: { type: "string" }, b: { type: "string" } } },
      { b: "x" },
      ["spec.x.a: Required value"],
    ],
    ["enum member", { type: "string", enum: ["a", "b"] }, "b", []],
    [
      "enum non-member",
      { type: "string", enum: ["a", "b"] },
      "x",
      ['spec.x: Unsupported value: "x": supported values: "a", "b"'],
    ],
    [
      "numeric enum lists JSON",
      { type: "integer", enum: [1, 2] },
      3,
      ['spec.x: Unsupported value: 3: supported values: "1", "2"'],
    ],
    [
      "null never matches an enum",
      { type: "string", nullable: true, enum: ["a", null] },
      null,
      ['spec.x: Unsupported value: null: supported values: "a", "null"'],
    ],
    ["maxLength counts characters", { type: "string", maxLength: 2 }, "éé", []],
    ["maxLength counts astral characters once", { type: "string", maxLength: 2 }, "😀😀", []],
    ["maxLength", { type: "string", maxLength: 5 }, "abcdef", ["spec.x: Too long: may not be longer than 5"]],
    [
      "minLength",
      { type: "string", minLength: 3 },
      "ab",
      ['spec.x: Invalid value: "ab": spec.x in body should be at least 3 chars long'],
    ],
    [
      "maxLength stops the other string checks",
      { type: "string", maxLength: 1, pattern: "^[0-9]+$" },
      "ab",
      ["spec.x: Too long: may not be longer than 1"],
    ],
    ["pattern match (unanchored)", { type: "string", pattern: "[0-9]" }, "a1b", []],
    [
      "pattern mismatch",
      { type: "string", pattern: "^[a-z]+$" },
      "ABC",
      ["spec.x: Invalid value: \"ABC\": spec.x in body should match '^[a-z]+$'"],
    ],
    [
      "invalid pattern",
      { type: "string", pattern: "(" },
      "a",
      [
        "spec.x: Invalid value: \"a\": spec.x in body should match '(, but pattern is invalid: error parsing regexp: missing closing ): `(`'",
      ],
    ],
    [
      "minimum",
      { type: "integer", minimum: 1 },
      0,
      ["spec.x: Invalid value: 0: spec.x in body should be greater than or equal to 1"],
    ],
    [
      "exclusive minimum",
      { type: "integer", minimum: 1, exclusiveMinimum: true },
      1,
      ["spec.x: Invalid value: 1: spec.x in body should be greater than 1"],
    ],
    [
      "maximum",
      { type: "integer", maximum: 10 },
      11,
      ["spec.x: Invalid value: 11: spec.x in body should be less than or equal to 10"],
    ],
    [
      "exclusive maximum",
      { type: "number", maximum: 1.5, exclusiveMaximum: true },
      1.5,
      ["spec.x: Invalid value: 1.5: spec.x in body should be less than 1.5"],
    ],
    [
      "float bounds print as Go does",
      { type: "number", maximum: 1000000 },
      1000000.5,
      ["spec.x: Invalid value: 1000000.5: spec.x in body should be less than or equal to 1e+06"],
    ],
    ["integers meet truncated bounds", { type: "integer", minimum: 1.5 }, 1, []],
    ["multipleOf", { type: "integer", multipleOf: 5 }, 15, []],
    [
      "not a multiple",
      { type: "integer", multipleOf: 5 },
      12,
      ["spec.x: Invalid value: 12: spec.x in body should be a multiple of 5"],
    ],
    ["float multipleOf within upstream's tolerance", { type: "number", multipleOf: 0.1 }, 0.3, []],
    [
      "fractional factor for an integer",
      { type: "integer", multipleOf: 0.5 },
      3,
      ["spec.x: Invalid value: 0: factor MultipleOf declared for spec.x must be positive: 0"],
    ],
    [
      "minItems",
      { type: "array", minItems: 2, items: { type: "string" } },
      ["a"],
      ["spec.x: Invalid value: 1: spec.x in body should have at least 2 items"],
    ],
    [
      "items are checked with their index",
      { type: "array", items: { type: "integer" } },
      [1, "2"],
      ['spec.x[1]: Invalid value: "string": spec.x[1] in body must be of type integer: "string"'],
    ],
    [
      "uniqueItems",
      { type: "array", uniqueItems: true, items: { type: "object" } },
      [{ a: 1 }, { a: 1 }],
      ['spec.x: Invalid value: "": spec.x in body shouldn\'t contain duplicates'],
    ],
    [
      "minProperties",
      { type: "object", minProperties: 2, additionalProperties: { type: "string" } },
      { a: "1" },
      ["spec.x: Invalid value: 1: spec.x in body should have at least 2 properties"],
    ],
    [
      "minProperties failure skips the object's children",
      { type: "object", minProperties: 2, additionalProperties: { type: "string" } },
      { a: 1 },
      ["spec.x: Invalid value: 1: spec.x in body should have at least 2 properties"],
    ],
    [
      "map values use dotted keys",
      { type: "object", additionalProperties: { type: "integer" } },
      { "a.b": "1" },
      ['spec.x.a.b: Invalid value: "string": spec.x.a.b in body must be of type integer: "string"'],
    ],
    [
      "additionalProperties false",
      { type: "object", additionalProperties: false },
      { extra: 1 },
      ['spec.x: Invalid value: "extra": spec.x.extra in body is a forbidden property'],
    ],
    [
      "additionalProperties true checks nothing",
      { type: "object", additionalProperties: true },
      { extra: [1] },
      [],
    ],
  ];
  for (const [name, schema, value, want] of cases) {
    it(name, () => {
      assert.deepEqual(check(spec({ x: schema }), { spec: { x: value } }), want);
    });
  }

  it("maxItems and maxProperties say Too many with the count", () => {
    const errs = validateValue(
      spec({
        list: { type: "array", maxItems: 3, items: { type: "string" } },
        map: { type: "object", maxProperties: 1, additionalProperties: { type: "string" } },
      }),
      { spec: { list: ["a", "b", "c", "d"], map: { a: "1", b: "2" } } },
    );
    assert.deepEqual(errs, [
      { field: "spec.list", type: FIELD_VALUE_TOO_MANY, value: 4, detail: "must have at most 3 items" },
      { field: "spec.map", type: FIELD_VALUE_TOO_MANY, value: 2, detail: "must have at most 1 items" },
    ]);
    assert.equal(errs[0]?.type, "FieldValueTooMany");
    assert.equal(
      formatFieldError(errs[0] as FieldError),
      "spec.list: Too many: 4: must have at most 3 items",
    );
  });

  it("names a required field at the root without a leading dot", () => {
    assert.deepEqual(
      check({ type: "object", required: ["spec"], properties: { spec: { type: "object" } } }, {}),
      ["spec: Required value"],
    );
  });

  it("spells a map key at the root with a dot in its message, as upstream", () => {
    const errs = validateValue({ type: "object", additionalProperties: { type: "integer" } }, { a: "x" });
    assert.deepEqual(texts(errs), [
      'a: Invalid value: "string": .a in body must be of type integer: "string"',
    ]);
  });

  it("names fields under empty and dotted root keys as upstream trims one leading dot", () => {
    const schema: StructuralSchema = {
      type: "object",
      additionalProperties: { type: "object", additionalProperties: { type: "integer" } },
    };
    assert.deepEqual(texts(validateValue(schema, { "": { a: "x" }, ".b": { c: "y" } })), [
      '.a: Invalid value: "string": ..a in body must be of type integer: "string"',
      '.b.c: Invalid value: "string": ..b.c in body must be of type integer: "string"',
    ]);
  });

  it("names errors below a megabyte-long key without copying it per error", () => {
    const key = "k".repeat(1_000_000);
    const schema: StructuralSchema = {
      type: "object",
      additionalProperties: { type: "array", items: { type: "string", allOf: [{ enum: ["a"] }] } },
    };
    const errs = validateValue(schema, { [key]: Array.from({ length: 2000 }, () => "x") });
    // Two errors an item; the walk stops once it holds ERROR_LIMITS.collected, and says so first.
    assert.equal(errs.length, ERROR_LIMITS.collected + 1);
    assert.equal(
      errs[0]?.detail,
      `validation stopped after ${ERROR_LIMITS.collected} errors; there may be more`,
    );
    // Compared as booleans: a failing assertion would print the megabyte.
    assert.ok(errs[1]?.field === `${key}[0]` && errs[1].type === "FieldValueNotSupported");
    assert.ok(errs[4]?.detail === `".${key}[1]" must validate all the schemas (allOf). None validated`);
  });

  it("stops walking a list once it holds ERROR_LIMITS.collected errors, without changing validity", () => {
    const schema: StructuralSchema = { type: "array", items: { type: "integer", minimum: 5 } };
    const bad = validateValue(
      schema,
      Array.from({ length: 100_000 }, () => 1),
    );
    assert.equal(bad.length, ERROR_LIMITS.collected + 1);
    assert.equal(bad[0]?.type, "FieldValueTooMany");
    assert.equal(bad[ERROR_LIMITS.collected]?.field, `[${ERROR_LIMITS.collected - 1}]`);
    // A branch of anyOf that fails everywhere stops early, and the other branch still decides.
    const either: StructuralSchema = {
      type: "array",
      items: { type: "integer", anyOf: [{ minimum: 5 }, { maximum: 1 }] },
    };
    assert.deepEqual(
      validateValue(
        either,
        Array.from({ length: 100_000 }, () => 1),
      ),
      [],
    );
    const last = Array.from({ length: 100_000 }, () => 1);
    last[99_999] = 3;
    assert.equal(validateValue(either, last).length > 0, true);
  });

  it("puts a base path before fields but not in messages", () => {
    const errs = validateValue({ type: "integer" }, "x", { basePath: "spec.versions[0].default" });
    assert.deepEqual(texts(errs), [
      'spec.versions[0].default: Invalid value: "string":  in body must be of type integer: "string"',
    ]);
  });

  it("keeps checking after a type error, as upstream does", () => {
    assert.deepEqual(check(spec({ x: { type: "integer", enum: [1] } }), { spec: { x: "a" } }), [
      'spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"',
      'spec.x: Unsupported value: "a": supported values: "1"',
    ]);
  });
});

describe("formats", () => {
  const cases: [string, string, string, boolean][] = [
    ["uuid", "uuid", "0bd4a0e4-9bd8-4c2f-8f1a-54f2d7b0a6e1", true],
    ["uuid", "uuid", "nope", false],
    ["date-time", "date-time", "2023-04-01T10:00:00Z", true],
    ["date-time", "date-time", "2023-04-01 10:00", false],
    ["byte", "byte", "aGVsbG8=", true],
    ["byte", "byte", "hello!", false],
    ["email", "email", "a@example.com", true],
    ["email", "email", "not-an-email", false],
    ["hostname", "hostname", "example.com", true],
    ["hostname", "hostname", "-bad-", false],
    ["ipv4", "ipv4", "10.0.0.1", true],
    ["ipv4", "ipv4", "300.0.0.1", false],
    ["unknown formats are ignored", "int32", "anything", true],
  ];
  for (const [name, format, value, ok] of cases) {
    it(`${name}: ${value}`, () => {
      const errs = check(spec({ x: { type: "string", format } }), { spec: { x: value } });
      assert.deepEqual(
        errs,
        ok
          ? []
          : [
              `spec.x: Invalid value: ${JSON.stringify(value)}: spec.x in body must be of type ${format}: ${JSON.stringify(value)}`,
            ],
      );
    });
  }
});

describe("builtin formats", () => {
  it("checks quantities (strings and numbers) only for built-in kinds", () => {
    const schema = spec({ cpu: { format: "quantity" } });
    assert.deepEqual(check(schema, { spec: { cpu: "100m" } }, { builtin: true }), []);
    assert.deepEqual(check(schema, { spec: { cpu: 0.5 } }, { builtin: true }), []);
    assert.deepEqual(check(schema, { spec: { cpu: "1x" } }, { builtin: true }), [
      "spec.cpu: Invalid value: \"1x\": quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ]);
    assert.deepEqual(check(schema, { spec: { cpu: "1Kii" } }, { builtin: true }), [
      'spec.cpu: Invalid value: "1Kii": unable to parse quantity\'s suffix',
    ]);
    assert.deepEqual(check(schema, { spec: { cpu: "1x" } }), []);
  });

  it("checks int32 ranges only for built-in kinds", () => {
    const schema = spec({ n: { type: "integer", format: "int32" } });
    assert.deepEqual(check(schema, { spec: { n: 2 ** 31 } }, { builtin: true }), [
      "spec.n: Invalid value: 2147483648: Checked value must be of type integer with format int32 in spec.n",
    ]);
    assert.deepEqual(check(schema, { spec: { n: 2 ** 31 - 1 } }, { builtin: true }), []);
    assert.deepEqual(check(schema, { spec: { n: 2 ** 31 } }), []);
  });
});

describe("allOf, anyOf, oneOf, not", () => {
  const intOrString: StructuralSchema = {
    "x-kubernetes-int-or-string": true,
    anyOf: [{ type: "integer" }, { type: "string" }],
  };

  it("accepts what one anyOf branch accepts", () => {
    assert.deepEqual(check(spec({ port: intOrString }), { spec: { port: "http" } }), []);
  });

  it("reports anyOf failure on the base with the branch that matched most", () => {
    assert.deepEqual(check(spec({ port: intOrString }), { spec: { port: true } }), [
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
      ': Invalid value: "": "spec.port" must validate at least one schema (anyOf)',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer: "boolean"',
    ]);
  });

  it("picks the anyOf branch with more checks that ran (upstream's match count)", () => {
    const schema = spec({ x: { type: "string", anyOf: [{ maxLength: 1 }, { type: "integer" }] } });
    assert.deepEqual(check(schema, { spec: { x: "ab" } }), [
      ': Invalid value: "": "spec.x" must validate at least one schema (anyOf)',
      'spec.x: Invalid value: "string": spec.x in body must be of type integer: "string"',
    ]);
  });

  it("reports the first of equally matching anyOf branches", () => {
    const schema = spec({
      x: { type: "string", anyOf: [{ maxLength: 1 }, { pattern: "^[0-9]+$", minLength: 1 }] },
    });
    assert.deepEqual(check(schema, { spec: { x: "ab" } }), [
      ': Invalid value: "": "spec.x" must validate at least one schema (anyOf)',
      "spec.x: Too long: may not be longer than 1",
    ]);
  });

  it("oneOf: none valid and several valid", () => {
    const schema = spec({ x: { type: "integer", oneOf: [{ minimum: 10 }, { maximum: 5 }] } });
    assert.deepEqual(check(schema, { spec: { x: 12 } }), []);
    assert.deepEqual(check(schema, { spec: { x: 7 } }), [
      ': Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found none valid',
      "spec.x: Invalid value: 7: spec.x in body should be greater than or equal to 10",
    ]);
    const both = spec({ x: { type: "integer", oneOf: [{ minimum: 1 }, { maximum: 5 }] } });
    assert.deepEqual(check(both, { spec: { x: 3 } }), [
      ': Invalid value: "": "spec.x" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    ]);
  });

  it("allOf reports every failing branch, then the summary", () => {
    const schema = spec({ x: { type: "string", allOf: [{ minLength: 2 }, { pattern: "^a" }] } });
    assert.deepEqual(check(schema, { spec: { x: "b" } }), [
      'spec.x: Invalid value: "b": spec.x in body should be at least 2 chars long',
      "spec.x: Invalid value: \"b\": spec.x in body should match '^a'",
      ': Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated',
    ]);
    assert.deepEqual(check(schema, { spec: { x: "bb" } }), [
      "spec.x: Invalid value: \"bb\": spec.x in body should match '^a'",
      ': Invalid value: "": "spec.x" must validate all the schemas (allOf)',
    ]);
  });

  it("not", () => {
    const schema = spec({ x: { type: "string", not: { enum: ["forbidden"] } } });
    assert.deepEqual(check(schema, { spec: { x: "ok" } }), []);
    assert.deepEqual(check(schema, { spec: { x: "forbidden" } }), [
      ': Invalid value: "": "spec.x" must not validate the schema (not)',
    ]);
  });

  it("branch properties are checked at the same path", () => {
    const schema = spec({
      x: {
        type: "object",
        properties: { a: { type: "string" } },
        allOf: [{ properties: { a: { maxLength: 1 } } }],
      },
    });
    assert.deepEqual(check(schema, { spec: { x: { a: "long" } } }), [
      "spec.x.a: Too long: may not be longer than 1",
      ': Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated',
    ]);
  });

  it("reports an error repeated by branches once", () => {
    const schema = spec({ x: { type: "object", required: ["a"], allOf: [{ required: ["a"] }] } });
    assert.deepEqual(check(schema, { spec: { x: {} } }), [
      "spec.x.a: Required value",
      ': Invalid value: "": "spec.x" must validate all the schemas (allOf). None validated',
    ]);
  });
});

describe("list types", () => {
  const setSchema = spec({
    tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
  });
  const mapSchema = spec({
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port"],
      items: {
        type: "object",
        required: ["port"],
        properties: { port: { type: "integer" }, name: { type: "string" } },
      },
    },
  });
  const twoKeys = spec({
    ports: {
      type: "array",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["port", "protocol"],
      items: {
        type: "object",
        properties: { port: { type: "integer" }, protocol: { type: "string", default: "TCP" } },
      },
    },
  });

  it("set: each repeated value once, at its second index", () => {
    assert.deepEqual(check(setSchema, { spec: { tags: ["a", "b", "a", "a", "b"] } }), [
      'spec.tags[2]: Duplicate value: "a"',
      'spec.tags[4]: Duplicate value: "b"',
    ]);
    assert.deepEqual(check(setSchema, { spec: { tags: ["a", "b"] } }), []);
  });

  it("map: duplicate keys", () => {
    assert.deepEqual(
      check(mapSchema, { spec: { ports: [{ port: 80 }, { port: 443 }, { port: 80, name: "x" }] } }),
      ['spec.ports[2]: Duplicate value: {"port":80}'],
    );
  });

  it("map: several keys, missing keys compare as absent", () => {
    assert.deepEqual(
      check(twoKeys, {
        spec: {
          ports: [
            { port: 80, protocol: "TCP" },
            { port: 80, protocol: "UDP" },
            { port: 80, protocol: "UDP" },
          ],
        },
      }),
      ['spec.ports[2]: Duplicate value: {"port":80,"protocol":"UDP"}'],
    );
  });

  it("map: elements must be objects", () => {
    const errs = check(mapSchema, { spec: { ports: [{ port: 1 }, 5] } });
    assert.ok(
      errs.includes("spec.ports[1]: Invalid value: 5: must be an object for an array of list-type map"),
    );
  });

  it("list errors come after schema errors", () => {
    assert.deepEqual(check(mapSchema, { spec: { ports: [{ port: 80 }, { port: 80, name: 1 }] } }), [
      'spec.ports[1].name: Invalid value: "integer": spec.ports[1].name in body must be of type string: "integer"',
      'spec.ports[1]: Duplicate value: {"port":80}',
    ]);
  });

  it("update: duplicates are tolerated when the old object already had them", () => {
    const node = compileNode(setSchema);
    const dup = { spec: { tags: ["a", "a"] } };
    assert.deepEqual(texts(validateNodeUpdate(node, dup, { spec: { tags: ["a", "a"] } })), []);
    assert.deepEqual(texts(validateNodeUpdate(node, dup, { spec: { tags: ["a"] } })), [
      'spec.tags[1]: Duplicate value: "a"',
    ]);
  });

  it("list-map keys under a map value use bracketed keys", () => {
    const schema = spec({
      byName: {
        type: "object",
        additionalProperties: { type: "array", "x-kubernetes-list-type": "set", items: { type: "integer" } },
      },
    });
    assert.deepEqual(check(schema, { spec: { byName: { a: [1, 1] } } }), [
      "spec.byName[a][1]: Duplicate value: 1",
    ]);
  });
});

describe("embedded resources", () => {
  const schema = spec({
    template: {
      type: "object",
      "x-kubernetes-embedded-resource": true,
      "x-kubernetes-preserve-unknown-fields": true,
    },
  });

  it("accepts a well-formed embedded object", () => {
    const value = {
      spec: { template: { apiVersion: "v1", kind: "Pod", metadata: { name: "p", labels: { a: "b" } } } },
    };
    assert.deepEqual(check(schema, value), []);
  });

  it("requires apiVersion and kind", () => {
    assert.deepEqual(check(schema, { spec: { template: {} } }), [
      "spec.template.apiVersion: Required value: must not be empty",
      "spec.template.kind: Required value: must not be empty",
    ]);
  });

  it("checks apiVersion, kind and metadata", () => {
    const value = {
      spec: {
        template: {
          apiVersion: "a/b/c",
          kind: "Bad_Kind",
          metadata: { name: "x/y", labels: { "a b": "c" } },
        },
      },
    };
    assert.deepEqual(check(schema, value), [
      'spec.template.apiVersion: Invalid value: "a/b/c": unexpected GroupVersion string: a/b/c',
      "spec.template.kind: Invalid value: \"Bad_Kind\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      "spec.template.metadata.name: Invalid value: \"x/y\": may not contain '/'",
      "spec.template.metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
    ]);
  });

  it("reports metadata that does not decode", () => {
    assert.deepEqual(
      check(schema, { spec: { template: { apiVersion: "v1", kind: "Pod", metadata: { name: 5 } } } }),
      [
        'spec.template.metadata: Invalid value: {"name":5}: json: cannot unmarshal number into Go struct field ObjectMeta.name of type string',
      ],
    );
    assert.deepEqual(check(schema, { spec: { template: { apiVersion: 1, kind: "Pod" } } }), [
      "spec.template.apiVersion: Invalid value: 1: must be a string",
    ]);
  });
});
