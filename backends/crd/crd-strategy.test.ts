import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { cloneJson, type JsonObject } from "../common/json.ts";
import { naming } from "../naming/naming.ts";
import { type FieldError, formatFieldError } from "../registry/field-error.ts";
import { crdCleanupFinalizer, crdStatus, crdStrategy } from "./crd-strategy.ts";

const cluster = naming("cluster");
const text = (errs: readonly FieldError[] | undefined) => (errs ?? []).map(formatFieldError);

const SCHEMA: JsonObject = {
  type: "object",
  properties: {
    spec: {
      type: "object",
      properties: {
        size: { type: "integer", minimum: 1, default: 1 },
        color: { type: "string", enum: ["red", "blue"] },
      },
    },
    status: { type: "object", properties: { replicas: { type: "integer" } } },
  },
};

function widgets(): JsonObject {
  return {
    apiVersion: `${cluster.group("apiextensions")}/v1`,
    kind: "CustomResourceDefinition",
    metadata: { name: "widgets.example.com" },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { plural: "widgets", kind: "Widget", shortNames: ["wd"], categories: ["all"] },
      versions: [{ name: "v1", served: true, storage: true, schema: { openAPIV3Schema: cloneJson(SCHEMA) } }],
    },
  };
}

/** The version entry at `i` of a CRD built by widgets(). */
function version(crd: JsonObject, i = 0): JsonObject {
  return ((crd.spec as JsonObject).versions as JsonObject[])[i] as JsonObject;
}

function specSchema(crd: JsonObject, i = 0): JsonObject {
  const schema = (version(crd, i).schema as JsonObject).openAPIV3Schema as JsonObject;
  return (schema.properties as JsonObject).spec as JsonObject;
}

function create(crd: JsonObject, n = cluster): string[] {
  const { main } = crdStrategy(n);
  main.prepareForCreate?.(crd);
  return text(main.validate?.(crd));
}

/** Runs an update the way the registry does: prepare, then validate and validateUpdate. */
function update(crd: JsonObject, old: JsonObject): string[] {
  const { main } = crdStrategy(cluster);
  main.prepareForUpdate?.(crd, old);
  return [...text(main.validate?.(crd)), ...text(main.validateUpdate?.(crd, old))];
}

function stored(): JsonObject {
  const crd = widgets();
  assert.deepEqual(create(crd), []);
  crd.metadata = { ...(crd.metadata as JsonObject), uid: "u1", resourceVersion: "5" };
  crd.status = crdStatus(crd, [], { now: "2024-01-01T00:00:00Z" });
  return crd;
}

const DNS1035 =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

describe("CustomResourceDefinition create", () => {
  it("accepts a valid definition; defaults names and conversion, seeds status and generation", () => {
    const crd = widgets();
    crd.status = { acceptedNames: { plural: "x", kind: "X" }, storedVersions: ["v0"] };
    assert.deepEqual(create(crd), []);
    const spec = crd.spec as JsonObject;
    assert.deepEqual(spec.names, {
      plural: "widgets",
      kind: "Widget",
      shortNames: ["wd"],
      categories: ["all"],
      singular: "widget",
      listKind: "WidgetList",
    });
    assert.deepEqual(spec.conversion, { strategy: "None" });
    assert.deepEqual(crd.status, { storedVersions: ["v1"] });
    assert.equal((crd.metadata as JsonObject).generation, 1);
  });

  it("accepts a definition with subresources, printer columns, rules and several versions", () => {
    const crd = widgets();
    const v1 = version(crd);
    v1.subresources = {
      status: {},
      scale: {
        specReplicasPath: ".spec.size",
        statusReplicasPath: ".status.replicas",
        labelSelectorPath: ".status.selector",
      },
    };
    v1.additionalPrinterColumns = [
      { name: "Size", type: "integer", jsonPath: ".spec.size" },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ];
    specSchema(crd)["x-kubernetes-validations"] = [
      { rule: "self.size <= 10", message: "too big" },
      {
        rule: "!has(oldSelf.color) || self.color == oldSelf.color",
        messageExpression: "'color is immutable'",
      },
    ];
    const v2 = {
      ...cloneJson(v1),
      name: "v2",
      storage: false,
      deprecated: true,
      deprecationWarning: "use v1",
    };
    (crd.spec as JsonObject).versions = [v1, v2];
    assert.deepEqual(create(crd), []);
  });

  const WEBHOOK_FORM = "; desired format: https://host[/path]";
  const cases: [string, (crd: JsonObject) => void, string[]][] = [
    [
      "name not <plural>.<group>",
      (c) => {
        (c.metadata as JsonObject).name = "gadgets.example.com";
      },
      ['metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group'],
    ],
    [
      "group without a dot, bad scope",
      (c) => {
        Object.assign(c.spec as JsonObject, { group: "example", scope: "Global" });
        (c.metadata as JsonObject).name = "widgets.example";
      },
      [
        'spec.group: Invalid value: "example": should be a domain with at least one dot',
        'spec.scope: Unsupported value: "Global": supported values: "Cluster", "Namespaced"',
      ],
    ],
    [
      "missing group and scope",
      (c) => {
        const spec = c.spec as JsonObject;
        delete spec.group;
        delete spec.scope;
        (c.metadata as JsonObject).name = "widgets.";
      },
      ["spec.group: Required value", "spec.scope: Required value"],
    ],
    [
      "bad names",
      (c) => {
        (c.spec as JsonObject).names = {
          plural: "Widgets",
          kind: "Wid_get",
          listKind: "Wid_get",
          shortNames: ["w-"],
          categories: ["A"],
        };
        (c.metadata as JsonObject).name = "Widgets.example.com";
      },
      [
        `spec.names.plural: Invalid value: "Widgets": ${DNS1035}`,
        `spec.names.singular: Invalid value: "wid_get": ${DNS1035}`,
        `spec.names.kind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${DNS1035}`,
        `spec.names.listKind: Invalid value: "Wid_get": may have mixed case, but should otherwise match: ${DNS1035}`,
        `spec.names.shortNames[0]: Invalid value: "w-": ${DNS1035}`,
        'spec.names.listKind: Invalid value: "Wid_get": kind and listKind may not be the same',
        `spec.names.categories[0]: Invalid value: "A": ${DNS1035}`,
      ],
    ],
    [
      "missing kind",
      (c) => {
        (c.spec as JsonObject).names = { plural: "widgets" };
      },
      [
        "spec.names.singular: Required value",
        "spec.names.kind: Required value",
        "spec.names.listKind: Required value",
      ],
    ],
    [
      "version name not a DNS-1035 label (reported for spec.version too)",
      (c) => {
        version(c).name = "V1";
      },
      [
        `spec.versions[0].name: Invalid value: "V1": ${DNS1035}`,
        `spec.version: Invalid value: "V1": ${DNS1035}`,
      ],
    ],
    [
      "duplicate version names, two storage versions",
      (c) => {
        const v = version(c);
        (c.spec as JsonObject).versions = [v, cloneJson(v)];
      },
      [
        `spec.versions: Invalid value: ${JSON.stringify([version(widgets()), version(widgets())])}: must contain unique version names`,
        `spec.versions: Invalid value: ${JSON.stringify([version(widgets()), version(widgets())])}: must have exactly one version marked as storage version`,
        // Only one stored "v1" to match the two storage entries, as upstream counts them.
        `status.storedVersions: Invalid value: ${JSON.stringify(version(widgets()))}: must have the storage version v1`,
      ],
    ],
    [
      "no storage version",
      (c) => {
        version(c).storage = false;
      },
      [
        `spec.versions: Invalid value: ${JSON.stringify([{ ...version(widgets()), storage: false }])}: must have exactly one version marked as storage version`,
        "status.storedVersions: Invalid value: []: must have at least one stored version",
      ],
    ],
    [
      "no schema",
      (c) => {
        delete version(c).schema;
      },
      ["spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required"],
    ],
    [
      "deprecationWarning on a version that is not deprecated; an empty one",
      (c) => {
        const v2 = {
          ...cloneJson(version(c)),
          name: "v2",
          storage: false,
          deprecated: true,
          deprecationWarning: "",
        };
        version(c).deprecationWarning = "old";
        (c.spec as JsonObject).versions = [version(c), v2];
      },
      [
        'spec.versions[0].deprecationWarning: Invalid value: "old": can only be set for deprecated versions',
        'spec.versions[1].deprecationWarning: Invalid value: "": must not be an empty string',
      ],
    ],
    [
      "printer columns",
      (c) => {
        version(c).additionalPrinterColumns = [
          { name: "", type: "text", format: "uuid", jsonPath: "spec.size" },
          { name: "B", type: "", jsonPath: "" },
        ];
      },
      [
        "spec.additionalPrinterColumns[0].name: Required value",
        'spec.additionalPrinterColumns[0].type: Invalid value: "text": must be one of boolean,date,integer,number,string',
        'spec.additionalPrinterColumns[0].format: Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password',
        'spec.additionalPrinterColumns[0].JSONPath: Invalid value: "spec.size": must be a simple json path starting with .',
        "spec.additionalPrinterColumns[1].type: Required value: must be one of boolean,date,integer,number,string",
        "spec.additionalPrinterColumns[1].JSONPath: Required value",
      ],
    ],
    [
      "scale paths",
      (c) => {
        version(c).subresources = {
          scale: {
            specReplicasPath: ".status.size",
            statusReplicasPath: "",
            labelSelectorPath: ".metadata.x",
          },
        };
      },
      [
        'spec.subresources.scale.specReplicasPath: Invalid value: ".status.size": should be a json path under .spec',
        "spec.subresources.scale.statusReplicasPath: Required value",
        'spec.subresources.scale.labelSelectorPath: Invalid value: ".metadata.x": should be a json path under either .spec or .status',
      ],
    ],
    [
      "per-version subresources are reported per version",
      (c) => {
        const v2 = { ...cloneJson(version(c)), name: "v2", storage: false };
        version(c).subresources = { scale: { specReplicasPath: ".spec.size", statusReplicasPath: "status" } };
        (c.spec as JsonObject).versions = [version(c), v2];
      },
      [
        'spec.versions[0].subresources.scale.statusReplicasPath: Invalid value: "status": must be a simple json path starting with .',
      ],
    ],
    [
      "webhook conversion without a client config",
      (c) => {
        (c.spec as JsonObject).conversion = { strategy: "Webhook" };
      },
      [
        "spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook",
        "spec.conversion.conversionReviewVersions: Required value",
      ],
    ],
    [
      "webhook conversion with a bad URL and review versions",
      (c) => {
        (c.spec as JsonObject).conversion = {
          strategy: "Webhook",
          webhook: {
            clientConfig: { url: "http://user@host/p?q=1" },
            conversionReviewVersions: ["v2", "v2"],
          },
        };
      },
      [
        `spec.conversion.webhookClientConfig.url: Invalid value: "http": 'https' is the only allowed URL scheme${WEBHOOK_FORM}`,
        'spec.conversion.webhookClientConfig.url: Invalid value: "user": user information is not permitted in the URL',
        'spec.conversion.webhookClientConfig.url: Invalid value: "q=1": query parameters are not permitted in the URL',
        'spec.conversion.conversionReviewVersions[1]: Invalid value: "v2": duplicate version',
        'spec.conversion.conversionReviewVersions: Invalid value: ["v2","v2"]: must include at least one of v1, v1beta1',
      ],
    ],
    [
      "webhook conversion to a service",
      (c) => {
        (c.spec as JsonObject).conversion = {
          strategy: "Webhook",
          webhook: {
            clientConfig: { service: { namespace: "", name: "conv", path: "/a//B", port: 70000 } },
            conversionReviewVersions: ["v1"],
          },
        };
      },
      [
        "spec.conversion.webhookClientConfig.service.namespace: Required value: service namespace is required",
        "spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive",
        'spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[1] may not be empty',
        `spec.conversion.webhookClientConfig.service.path: Invalid value: "/a//B": segment[2]: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
      ],
    ],
    [
      "webhook settings with strategy None",
      (c) => {
        (c.spec as JsonObject).conversion = {
          strategy: "None",
          webhook: { clientConfig: { url: "https://h" }, conversionReviewVersions: ["v1"] },
        };
      },
      [
        "spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook",
        "spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook",
      ],
    ],
    [
      "preserveUnknownFields true",
      (c) => {
        (c.spec as JsonObject).preserveUnknownFields = true;
      },
      [
        "spec.preserveUnknownFields: Invalid value: true: must be false in order to use defaults in the schema",
        "spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
      ],
    ],
    [
      "status subresource restricts the root of the schema",
      (c) => {
        version(c).subresources = { status: {} };
        const schema = (version(c).schema as JsonObject).openAPIV3Schema as JsonObject;
        schema.type = "array";
        schema.items = { type: "string" };
      },
      [
        'spec.validation.openAPIV3Schema.type: Invalid value: "array": only "object" is allowed as the type at the root of the schema if the status subresource is enabled',
        'spec.validation.openAPIV3Schema.type: Invalid value: "array": must be object at the root',
      ],
    ],
  ];
  for (const [name, mutate, expected] of cases) {
    it(`rejects: ${name}`, () => {
      const crd = widgets();
      mutate(crd);
      assert.deepEqual(create(crd), expected);
    });
  }
});

describe("CustomResourceDefinition schemas", () => {
  it("a non-structural schema shared by every version is reported under spec.validation", () => {
    const crd = widgets();
    (specSchema(crd).properties as JsonObject).shape = {};
    assert.deepEqual(create(crd), [
      "spec.validation.openAPIV3Schema.properties[spec].properties[shape].type: Required value: must not be empty for specified object fields",
    ]);
  });

  it("a non-structural schema of one version is reported under that version", () => {
    const crd = widgets();
    const v2 = { ...cloneJson(version(crd)), name: "v2", storage: false };
    (crd.spec as JsonObject).versions = [version(crd), v2];
    const spec = specSchema(crd, 1);
    spec.anyOf = [{ type: "object", properties: { color: { nullable: true } } }];
    assert.deepEqual(create(crd), [
      "spec.versions[1].schema.openAPIV3Schema.properties[spec].anyOf[0].properties[color].nullable: Forbidden: must be false to be structural",
      "spec.versions[1].schema.openAPIV3Schema.properties[spec].anyOf[0].type: Forbidden: must be empty to be structural",
    ]);
  });

  it("defaults must be valid and pruned", () => {
    const crd = widgets();
    const props = specSchema(crd).properties as JsonObject;
    (props.size as JsonObject).default = 0;
    props.tags = { type: "object", properties: { a: { type: "string" } }, default: { a: "x", b: "y" } };
    assert.deepEqual(create(crd), [
      "spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: 0:  in body should be greater than or equal to 1",
      'spec.validation.openAPIV3Schema.properties[spec].properties[tags].default: Invalid value: {"a":"x","b":"y"}: must not have unknown fields',
    ]);
  });

  it("a rule that does not compile is rejected at creation", () => {
    const crd = widgets();
    specSchema(crd)["x-kubernetes-validations"] = [{ rule: "self.weight > 1" }, { rule: "self.size" }];
    const errs = create(crd);
    assert.equal(errs.length, 2);
    assert.match(
      errs[0] as string,
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[0\]\.rule: Invalid value: \{"rule":"self\.weight > 1"\}: compilation failed: ERROR: <input>:1:6: undefined field 'weight'/,
    );
    assert.match(
      errs[1] as string,
      /^spec\.validation\.openAPIV3Schema\.properties\[spec\]\.x-kubernetes-validations\[1\]\.rule: Invalid value: \{"rule":"self\.size"\}: /,
    );
  });

  it("a messageExpression that does not compile is rejected", () => {
    const crd = widgets();
    specSchema(crd)["x-kubernetes-validations"] = [{ rule: "self.size > 0", messageExpression: "self.size" }];
    assert.deepEqual(create(crd), [
      'spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].messageExpression: Invalid value: {"rule":"self.size > 0","messageExpression":"self.size"}: messageExpression must evaluate to a string',
    ]);
  });

  it("rule texts are checked before rules are compiled", () => {
    const crd = widgets();
    specSchema(crd)["x-kubernetes-validations"] = [{ rule: " " }, { rule: "self.size >\n 0" }];
    assert.deepEqual(create(crd), [
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: Required value: rule is not specified",
      "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[1].message: Required value: message must be specified if rule contains line breaks",
    ]);
  });

  it("a rule over unbounded data whose estimated cost is over budget is rejected", () => {
    const crd = widgets();
    const spec = specSchema(crd);
    (spec.properties as JsonObject).tags = { type: "array", items: { type: "string" } };
    spec["x-kubernetes-validations"] = [{ rule: "self.tags.all(x, self.tags.exists_one(y, x == y))" }];
    const budget =
      "exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)";
    const rule = "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule";
    assert.deepEqual(create(crd), [
      `${rule}: Forbidden: estimated rule cost ${budget}`,
      `${rule}: Forbidden: contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema`,
      `spec.validation.openAPIV3Schema: Forbidden: x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema ${budget}`,
    ]);
    // Bounded by maxItems and maxLength, the same rule fits.
    const bounded = widgets();
    const s = specSchema(bounded);
    (s.properties as JsonObject).tags = {
      type: "array",
      maxItems: 20,
      items: { type: "string", maxLength: 32 },
    };
    s["x-kubernetes-validations"] = [{ rule: "self.tags.all(x, self.tags.exists_one(y, x == y))" }];
    assert.deepEqual(create(bounded), []);
  });

  it("oldSelf is refused below the items of a list that is not a map list", () => {
    const crd = widgets();
    (specSchema(crd).properties as JsonObject).items = {
      type: "array",
      maxItems: 5,
      items: {
        type: "object",
        properties: { name: { type: "string", maxLength: 10 } },
        "x-kubernetes-validations": [{ rule: "self.name == oldSelf.name" }],
      },
    };
    assert.deepEqual(create(crd), [
      'spec.validation.openAPIV3Schema.properties[spec].properties[items].items.x-kubernetes-validations[0].rule: Invalid value: "self.name == oldSelf.name": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[spec].properties[items]',
    ]);
    const mapList = widgets();
    const items = (specSchema(crd).properties as JsonObject).items as JsonObject;
    (specSchema(mapList).properties as JsonObject).items = {
      ...items,
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      items: { ...(items.items as JsonObject), required: ["name"] },
    };
    assert.deepEqual(create(mapList), []);
  });

  it("defaults must satisfy the rules of their schema", () => {
    const crd = widgets();
    const size = (specSchema(crd).properties as JsonObject).size as JsonObject;
    size["x-kubernetes-validations"] = [{ rule: "self % 2 == 0", message: "must be even" }];
    assert.deepEqual(create(crd), [
      'spec.validation.openAPIV3Schema.properties[spec].properties[size].default: Invalid value: "integer": must be even',
    ]);
  });
});

describe("CustomResourceDefinition update", () => {
  it("keeps status, adds a new storage version to storedVersions, bumps generation on spec changes", () => {
    const old = stored();
    const crd = cloneJson(old);
    crd.status = { storedVersions: [] };
    assert.deepEqual(update(crd, old), []);
    assert.deepEqual(crd.status, old.status);
    assert.equal((crd.metadata as JsonObject).generation, 1);

    const next = cloneJson(old);
    const v2 = { ...cloneJson(version(next)), name: "v2" };
    version(next).storage = false;
    (next.spec as JsonObject).versions = [version(next), v2];
    assert.deepEqual(update(next, old), []);
    assert.deepEqual((next.status as JsonObject).storedVersions, ["v1", "v2"]);
    assert.equal((next.metadata as JsonObject).generation, 2);
  });

  it("group and plural are immutable; scope and kind once established", () => {
    const old = stored();
    const crd = cloneJson(old);
    Object.assign(crd.spec as JsonObject, { group: "example.org", scope: "Cluster" });
    (crd.spec as JsonObject).names = { plural: "gadgets", kind: "Gadget" };
    assert.deepEqual(update(crd, old), [
      'spec.scope: Invalid value: "Cluster": field is immutable',
      'spec.names.kind: Invalid value: "Gadget": field is immutable',
      'spec.group: Invalid value: "example.org": field is immutable',
      'spec.names.plural: Invalid value: "gadgets": field is immutable',
    ]);
    // Before it is established, scope and kind may still change.
    const fresh = cloneJson(old);
    fresh.status = { storedVersions: ["v1"] };
    const changed = cloneJson(fresh);
    Object.assign(changed.spec as JsonObject, { scope: "Cluster" });
    ((changed.spec as JsonObject).names as JsonObject).kind = "Gizmo";
    ((changed.spec as JsonObject).names as JsonObject).listKind = "GizmoList";
    assert.deepEqual(update(changed, fresh), []);
  });

  it("a stored version cannot leave spec.versions", () => {
    const old = stored();
    (old.status as JsonObject).storedVersions = ["v0", "v1"];
    const crd = cloneJson(old);
    assert.deepEqual(update(crd, old), [
      'status.storedVersions[0]: Invalid value: "v0": must appear in spec.versions',
    ]);
  });

  it("the status subresource keeps the spec and checks accepted names", () => {
    const old = stored();
    const crd = cloneJson(old);
    (crd.spec as JsonObject).group = "changed.example.com";
    (crd.status as JsonObject).acceptedNames = { plural: "Bad", kind: "Widget" };
    const { status } = crdStrategy(cluster);
    status.prepareForUpdate?.(crd, old);
    assert.deepEqual(crd.spec, old.spec);
    assert.deepEqual(text(status.validateUpdate?.(crd, old)), [
      `status.acceptedNames.plural: Invalid value: "Bad": ${DNS1035}`,
    ]);
  });
});

describe("CustomResourceDefinition status (naming and establishing)", () => {
  it("accepts free names and establishes the definition", () => {
    const crd = widgets();
    create(crd);
    const status = crdStatus(crd, [], { now: "2024-01-01T00:00:00Z" });
    assert.deepEqual(status, {
      conditions: [
        {
          type: "NamesAccepted",
          status: "True",
          lastTransitionTime: "2024-01-01T00:00:00Z",
          reason: "NoConflicts",
          message: "no conflicts found",
        },
        {
          type: "Established",
          status: "True",
          lastTransitionTime: "2024-01-01T00:00:00Z",
          reason: "InitialNamesAccepted",
          message: "the initial names have been accepted",
        },
      ],
      acceptedNames: {
        plural: "widgets",
        singular: "widget",
        shortNames: ["wd"],
        kind: "Widget",
        listKind: "WidgetList",
        categories: ["all"],
      },
      storedVersions: ["v1"],
    });
    // Nothing changes once the names are accepted.
    crd.status = status;
    assert.deepEqual(crdStatus(crd, [crd], { now: "2025-01-01T00:00:00Z" }), status);
  });

  it("reports names another definition of the group holds", () => {
    const other = stored();
    const crd = widgets();
    (crd.metadata as JsonObject).name = "gadgets.example.com";
    (crd.spec as JsonObject).names = { plural: "gadgets", kind: "Widget", listKind: "GadgetList" };
    create(crd);
    const status = crdStatus(crd, [other, crd], { now: "2024-02-01T00:00:00Z" });
    assert.deepEqual(status.conditions, [
      {
        type: "NamesAccepted",
        status: "False",
        lastTransitionTime: "2024-02-01T00:00:00Z",
        reason: "KindConflict",
        message: '"Widget" is already in use',
      },
      {
        type: "Established",
        status: "False",
        lastTransitionTime: "2024-02-01T00:00:00Z",
        reason: "NotAccepted",
        message: "not all names are accepted",
      },
    ]);
    // The defaulted singular "widget" conflicts as well; only the last conflict is reported.
    assert.deepEqual(status.acceptedNames, { plural: "gadgets", kind: "", listKind: "GadgetList" });
    // The last conflict found is the one reported; conflicting names stay unaccepted.
    const both = widgets();
    (both.spec as JsonObject).names = {
      plural: "gadgets",
      singular: "gadget",
      kind: "Gadget",
      shortNames: ["wd", "gd"],
    };
    create(both);
    const s2 = crdStatus(both, [other], { now: "2024-02-01T00:00:00Z" });
    assert.deepEqual((s2.conditions as JsonObject[])[0]?.reason, "ShortNamesConflict");
    assert.deepEqual((s2.conditions as JsonObject[])[0]?.message, '"wd" is already in use');
    assert.deepEqual(s2.acceptedNames, {
      plural: "gadgets",
      singular: "gadget",
      kind: "Gadget",
      listKind: "GadgetList",
    });
    // In another group the same names are free.
    (other.spec as JsonObject).group = "example.org";
    const free = crdStatus(crd, [other], { now: "2024-02-01T00:00:00Z" });
    assert.equal((free.conditions as JsonObject[])[0]?.reason, "NoConflicts");
  });

  it("sets KubernetesAPIApprovalPolicyConformant for the product's own groups", () => {
    const k8s = naming("kubernetes");
    const crd = widgets();
    const annotation = `api-approved.${k8s.labelDomain}`;
    (crd.spec as JsonObject).group = k8s.group("widgets");
    (crd.metadata as JsonObject).name = `widgets.${k8s.group("widgets")}`;
    assert.deepEqual(create(crd, k8s), [
      `metadata.annotations[${annotation}]: Required value: protected groups must have approval annotation "${annotation}", see https://github.com/kubernetes/enhancements/pull/1111`,
    ]);
    (crd.metadata as JsonObject).annotations = { [annotation]: "unapproved, testing only" };
    assert.deepEqual(create(crd, k8s), []);
    const status = crdStatus(crd, [], { now: "2024-01-01T00:00:00Z", naming: k8s });
    assert.deepEqual((status.conditions as JsonObject[])[2], {
      type: "KubernetesAPIApprovalPolicyConformant",
      status: "False",
      lastTransitionTime: "2024-01-01T00:00:00Z",
      reason: "UnapprovedAnnotation",
      message: 'not approved: "unapproved, testing only"',
    });
  });
});

describe("CustomResourceDefinition deletion", () => {
  it("with the cleanup finalizer, deletion marks the definition Terminating and holds it", () => {
    const { main } = crdStrategy(cluster, { cleanupFinalizer: true });
    const crd = stored();
    const finalizer = crdCleanupFinalizer(cluster);
    assert.equal(finalizer, `customresourcecleanup.${cluster.group("apiextensions")}`);
    assert.deepEqual(main.pendingFinalizers?.(crd), [finalizer]);
    (crd.metadata as JsonObject).deletionTimestamp = "2024-03-01T00:00:00Z";
    main.prepareForDelete?.(crd);
    assert.deepEqual((crd.metadata as JsonObject).finalizers, [finalizer]);
    const terminating = ((crd.status as JsonObject).conditions as JsonObject[]).find(
      (c) => c.type === "Terminating",
    );
    assert.deepEqual(terminating, {
      type: "Terminating",
      status: "True",
      lastTransitionTime: "2024-03-01T00:00:00Z",
      reason: "InstanceDeletionPending",
      message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    });
    (crd.metadata as JsonObject).finalizers = [];
    assert.deepEqual(main.pendingFinalizers?.(crd), []);
    assert.equal(crdStrategy(cluster).main.pendingFinalizers, undefined);
  });
});
