import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatFieldError } from "../../registry/field-error.ts";
import {
  isStructural,
  structuralErrors,
  unsupportedKeyword,
  validateOpenAPISchema,
} from "./structural-check.ts";
import type { StructuralSchema } from "./types.ts";

const ROOT = "spec.validation.openAPIV3Schema";

function problems(schema: unknown, options: { statusSubresource?: boolean } = {}): string[] {
  return validateOpenAPISchema(schema, ROOT, options).map(formatFieldError);
}

function withSpec(spec: StructuralSchema): StructuralSchema {
  return { type: "object", properties: { spec } };
}

describe("accepted schemas", () => {
  const cases: [string, StructuralSchema][] = [
    [
      "a typical spec and status",
      {
        type: "object",
        properties: {
          apiVersion: { type: "string" },
          kind: { type: "string" },
          metadata: { type: "object" },
          spec: {
            type: "object",
            required: ["image"],
            properties: {
              image: { type: "string", minLength: 1 },
              replicas: { type: "integer", format: "int32", minimum: 0, default: 1 },
              mode: { type: "string", enum: ["Fast", "Slow"], default: "Fast" },
              labels: { type: "object", additionalProperties: { type: "string" } },
              ports: {
                type: "array",
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port"],
                items: { type: "object", required: ["port"], properties: { port: { type: "integer" } } },
              },
              tags: { type: "array", "x-kubernetes-list-type": "set", items: { type: "string" } },
            },
            "x-kubernetes-validations": [{ rule: "self.replicas >= 0", message: "no negative replicas" }],
          },
          status: { type: "object", "x-kubernetes-preserve-unknown-fields": true },
        },
      },
    ],
    [
      "int-or-string with the anyOf pattern",
      withSpec({ "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] }),
    ],
    [
      "int-or-string with the allOf pattern",
      withSpec({
        "x-kubernetes-int-or-string": true,
        allOf: [{ anyOf: [{ type: "integer" }, { type: "string" }] }, { pattern: "^[0-9]+%?$" }],
      }),
    ],
    ["preserve-unknown-fields without a type", withSpec({ "x-kubernetes-preserve-unknown-fields": true })],
    [
      "an embedded resource",
      withSpec({
        type: "object",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true,
      }),
    ],
    [
      "root metadata restricting name and generateName",
      {
        type: "object",
        properties: {
          metadata: {
            type: "object",
            properties: {
              name: { type: "string", maxLength: 10 },
              generateName: { type: "string", maxLength: 5 },
            },
          },
        },
      },
    ],
    [
      "value validation repeating specified fields",
      {
        type: "object",
        properties: { spec: { type: "object", properties: { a: { type: "string" } } } },
        anyOf: [{ properties: { spec: { properties: { a: { minLength: 1 } } } } }, { required: ["spec"] }],
      },
    ],
    [
      "a default inside an embedded resource's metadata",
      withSpec({
        type: "object",
        "x-kubernetes-embedded-resource": true,
        properties: {
          metadata: {
            type: "object",
            properties: { labels: { type: "object", additionalProperties: { type: "string" } } },
            default: { labels: { a: "b" } },
          },
        },
      }),
    ],
  ];
  for (const [name, schema] of cases) {
    it(name, () => {
      assert.deepEqual(problems(schema), []);
      assert.equal(isStructural(schema), true);
    });
  }
});

describe("rejected schemas", () => {
  const cases: [string, unknown, string[]][] = [
    [
      "a property without a type",
      withSpec({ properties: { a: { type: "string" } } }),
      [`${ROOT}.properties[spec].type: Required value: must not be empty for specified object fields`],
    ],
    [
      "no type at the root",
      { properties: {} },
      [`${ROOT}.type: Required value: must not be empty at the root`],
    ],
    [
      "a non-object root",
      { type: "string" },
      [`${ROOT}.type: Invalid value: "string": must be object at the root`],
    ],
    [
      "an array without items",
      withSpec({ type: "array" }),
      [`${ROOT}.properties[spec].items: Required value: must be specified`],
    ],
    [
      "items without a type",
      withSpec({ type: "array", items: { minLength: 1 } }),
      [`${ROOT}.properties[spec].items.type: Required value: must not be empty for specified array items`],
    ],
    [
      "a type inside anyOf",
      withSpec({ type: "string", anyOf: [{ type: "string", maxLength: 3 }] }),
      [`${ROOT}.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural`],
    ],
    [
      "a default, description and nullable inside allOf",
      withSpec({ type: "string", allOf: [{ default: "a", description: "d", nullable: true }] }),
      [
        `${ROOT}.properties[spec].allOf[0].default: Forbidden: must be undefined to be structural`,
        `${ROOT}.properties[spec].allOf[0].description: Forbidden: must be empty to be structural`,
        `${ROOT}.properties[spec].allOf[0].nullable: Forbidden: must be false to be structural`,
      ],
    ],
    [
      "additionalProperties with properties",
      withSpec({
        type: "object",
        properties: { a: { type: "string" } },
        additionalProperties: { type: "string" },
      }),
      [
        `${ROOT}.properties[spec].additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive`,
      ],
    ],
    [
      "additionalProperties at the root",
      { type: "object", additionalProperties: { type: "string" } },
      [`${ROOT}.additionalProperties: Forbidden: must not be used at the root`],
    ],
    [
      "root metadata with more than name",
      {
        type: "object",
        properties: { metadata: { type: "object", properties: { labels: { type: "object" } } } },
      },
      [
        `${ROOT}.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified`,
      ],
    ],
    [
      "root metadata that is not an object",
      { type: "object", properties: { metadata: { type: "string" } } },
      [`${ROOT}.properties[metadata].type: Invalid value: "string": must be object`],
    ],
    [
      "kind that is not a string",
      { type: "object", properties: { kind: { type: "integer" } } },
      [`${ROOT}.properties[kind].type: Invalid value: "integer": must be string`],
    ],
    [
      "metadata in a nested value validation",
      withSpec({
        type: "object",
        properties: { metadata: { type: "object" } },
        allOf: [{ properties: { metadata: {} } }],
      }),
      [
        `${ROOT}.properties[spec].allOf[0].properties[metadata]: Forbidden: must not be specified in a nested context`,
      ],
    ],
    [
      "value validation naming an unspecified field",
      {
        type: "object",
        properties: { a: { type: "string" } },
        allOf: [{ properties: { b: { minLength: 1 } } }],
      },
      [`${ROOT}.properties[b]: Required value: because it is defined in ${ROOT}.allOf[0].properties[b]`],
    ],
    [
      "an embedded resource that is not an object",
      withSpec({
        type: "string",
        "x-kubernetes-embedded-resource": true,
        "x-kubernetes-preserve-unknown-fields": true,
      }),
      [
        `${ROOT}.properties[spec].type: Invalid value: "string": must be object if x-kubernetes-embedded-resource is true`,
      ],
    ],
    [
      "an embedded resource without properties",
      withSpec({ type: "object", "x-kubernetes-embedded-resource": true }),
      [
        `${ROOT}.properties[spec].properties: Required value: must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields`,
      ],
    ],
    [
      "int-or-string with preserve-unknown-fields",
      withSpec({ "x-kubernetes-int-or-string": true, "x-kubernetes-preserve-unknown-fields": true }),
      [
        `${ROOT}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: true: must be false if x-kubernetes-int-or-string is true`,
      ],
    ],
    [
      "an invalid pattern",
      withSpec({ type: "string", pattern: "(" }),
      [
        `${ROOT}.properties[spec].pattern: Invalid value: "(": must be a valid regular expression, but isn't: error parsing regexp: missing closing ): \`(\``,
      ],
    ],
    [
      "uniqueItems",
      withSpec({ type: "array", uniqueItems: true, items: { type: "string" } }),
      [
        `${ROOT}.properties[spec].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic`,
      ],
    ],
    [
      "type null",
      withSpec({ type: "null" }),
      [
        `${ROOT}.properties[spec].type: Unsupported value: "null": supported values: "array", "boolean", "integer", "number", "object", "string"`,
        `${ROOT}.properties[spec].type: Forbidden: type cannot be set to null, use nullable as an alternative`,
      ],
    ],
    [
      "$ref",
      withSpec({ type: "object", $ref: "#/definitions/x" }),
      [`${ROOT}.properties[spec].$ref: Forbidden: $ref is not supported`],
    ],
    [
      "a list-map without keys",
      withSpec({
        type: "array",
        "x-kubernetes-list-type": "map",
        items: { type: "object", properties: { a: { type: "string" } } },
      }),
      [
        `${ROOT}.properties[spec].x-kubernetes-list-map-keys: Required value: must not be empty if x-kubernetes-list-type is map`,
      ],
    ],
    [
      "list-map keys that are not item properties",
      withSpec({
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", properties: { port: { type: "integer" } } },
      }),
      [
        `${ROOT}.properties[spec].x-kubernetes-list-map-keys: Invalid value: ["name"]: entries must all be names of item properties`,
      ],
    ],
    [
      "a list-map key that is neither required nor defaulted",
      withSpec({
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", properties: { name: { type: "string" } } },
      }),
      [
        `${ROOT}.properties[spec].items.properties[name].default: Required value: this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property`,
      ],
    ],
    [
      "a list-map key that is not a scalar",
      withSpec({
        type: "array",
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["name"],
        items: { type: "object", required: ["name"], properties: { name: { type: "object" } } },
      }),
      [
        `${ROOT}.properties[spec].items.properties[name].type: Invalid value: "object": must be a scalar type if parent array's x-kubernetes-list-type is map`,
      ],
    ],
    [
      "list map keys without list type map",
      withSpec({
        type: "array",
        "x-kubernetes-list-type": "set",
        "x-kubernetes-list-map-keys": ["a"],
        items: { type: "string" },
      }),
      [
        `${ROOT}.properties[spec].x-kubernetes-list-type: Invalid value: "set": must be map if x-kubernetes-list-map-keys is non-empty`,
      ],
    ],
    [
      "a set of non-atomic objects",
      withSpec({
        type: "array",
        "x-kubernetes-list-type": "set",
        items: { type: "object", properties: { a: { type: "string" } } },
      }),
      [
        `${ROOT}.properties[spec].items.x-kubernetes-map-type: Invalid value: null: must be atomic as item of a list with x-kubernetes-list-type=set`,
      ],
    ],
    [
      "an unknown list type on a non-array",
      withSpec({ type: "string", "x-kubernetes-list-type": "bag" }),
      [
        `${ROOT}.properties[spec].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified`,
        `${ROOT}.properties[spec].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"`,
      ],
    ],
    [
      "a map type on a non-object",
      withSpec({ type: "string", "x-kubernetes-map-type": "atomic" }),
      [
        `${ROOT}.properties[spec].type: Invalid value: "string": must be object if x-kubernetes-map-type is specified`,
      ],
    ],
    [
      "preserve-unknown-fields false",
      withSpec({ type: "object", "x-kubernetes-preserve-unknown-fields": false }),
      [
        `${ROOT}.properties[spec].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined`,
      ],
    ],
    [
      "validation rules without rule or with a bad message",
      withSpec({
        type: "string",
        "x-kubernetes-validations": [
          { rule: " " },
          { rule: "self != ''", message: "a\nb" },
          { rule: "a\n&& b" },
        ],
      }),
      [
        `${ROOT}.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified`,
        `${ROOT}.properties[spec].x-kubernetes-validations[1].message: Invalid value: "a\\nb": message must not contain line breaks`,
        `${ROOT}.properties[spec].x-kubernetes-validations[2].message: Required value: message must be specified if rule contains line breaks`,
      ],
    ],
    [
      "a default in top-level metadata",
      { type: "object", properties: { metadata: { type: "object", default: {} } } },
      [`${ROOT}.properties[metadata].default: Forbidden: must not be set in top-level metadata`],
    ],
    [
      "nullable at the root",
      { type: "object", nullable: true },
      [`${ROOT}.nullable: Forbidden: nullable cannot be true at the root`],
    ],
  ];
  for (const [name, schema, want] of cases) {
    it(name, () => {
      assert.deepEqual(problems(schema), want);
    });
  }

  it("sorts structural errors by their text, as upstream does", () => {
    const schema = {
      type: "object",
      properties: { b: { properties: {} }, a: { type: "array" } },
    };
    assert.deepEqual(structuralErrors(schema, ROOT).map(formatFieldError), [
      `${ROOT}.properties[a].items: Required value: must be specified`,
      `${ROOT}.properties[b].type: Required value: must not be empty for specified object fields`,
    ]);
    assert.equal(isStructural(schema), false);
  });

  it("names keywords it cannot read", () => {
    assert.equal(
      unsupportedKeyword({ type: "object", definitions: { a: {} } }),
      "OpenAPIV3Schema 'definitions' is not supported",
    );
    assert.equal(
      unsupportedKeyword({ type: "object", properties: { a: { items: [{ type: "string" }] } } }),
      "OpenAPIV3Schema 'items' must be a schema, but is an array",
    );
    assert.equal(unsupportedKeyword({ type: "object" }), undefined);
  });

  it("does not throw on garbage", () => {
    for (const junk of [
      null,
      5,
      "x",
      [],
      { properties: 5 },
      { properties: { a: null } },
      { items: "x", type: "array" },
    ]) {
      assert.ok(Array.isArray(validateOpenAPISchema(junk, ROOT)));
    }
  });
});

describe("defaults", () => {
  it("must have the schema's type", () => {
    const schema = withSpec({
      type: "object",
      properties: { replicas: { type: "integer", default: "three" } },
    });
    assert.deepEqual(problems(schema), [
      `${ROOT}.properties[spec].properties[replicas].default: Invalid value: "string":  in body must be of type integer: "string"`,
    ]);
  });

  it("must satisfy value validation, with paths inside the default", () => {
    const schema = withSpec({
      type: "object",
      default: { mode: "x" },
      properties: { mode: { type: "string", enum: ["a"] } },
    });
    assert.deepEqual(problems(schema), [
      `${ROOT}.properties[spec].default.mode: Unsupported value: "x": supported values: "a"`,
    ]);
  });

  it("must be pruned", () => {
    const schema = withSpec({
      type: "object",
      default: { a: "x", b: 1 },
      properties: { a: { type: "string" } },
    });
    assert.deepEqual(problems(schema), [
      `${ROOT}.properties[spec].default: Invalid value: {"a":"x","b":1}: must not have unknown fields`,
    ]);
  });

  it("inside embedded metadata must give valid metadata", () => {
    const schema = withSpec({
      type: "object",
      "x-kubernetes-embedded-resource": true,
      properties: {
        metadata: {
          type: "object",
          properties: {
            labels: { type: "object", additionalProperties: { type: "string" }, default: { "a b": "c" } },
          },
        },
      },
    });
    const [e] = validateOpenAPISchema(schema, ROOT);
    assert.equal(e?.field, `${ROOT}.properties[spec].properties[metadata].properties[labels].default`);
    assert.match(
      e?.detail ?? "",
      /^must result in valid metadata: metadata.labels: Invalid value: "a b": name part must consist/,
    );
  });

  it("are not checked when the schema is not structural", () => {
    const schema = withSpec({ properties: { a: { type: "integer", default: "x" } } });
    assert.deepEqual(problems(schema), [
      `${ROOT}.properties[spec].type: Required value: must not be empty for specified object fields`,
    ]);
  });
});

describe("status subresource", () => {
  it("allows only some keywords at the root", () => {
    assert.deepEqual(problems({ type: "object", properties: {} }, { statusSubresource: true }), []);
    const errs = validateOpenAPISchema({ type: "object", properties: {}, minProperties: 1 }, ROOT, {
      statusSubresource: true,
    });
    assert.equal(errs.length, 1);
    assert.equal(errs[0]?.field, ROOT);
    assert.match(
      errs[0]?.detail ?? "",
      /^only \[Description Type Format .* XValidations\] fields are allowed at the root of the schema if the status subresource is enabled$/,
    );
  });
});
