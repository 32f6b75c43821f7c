import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { RegistryError } from "../registry/errors.ts";
import { type FieldError, formatFieldError } from "../registry/field-error.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { secretKind, secretTypes } from "./secret.ts";

const text = (errs: FieldError[] | undefined) => (errs ?? []).map(formatFieldError);
const b64 = (s: string) => Buffer.from(s).toString("base64");

for (const preset of ["cluster", "kubernetes"] as const) {
  const n = naming(preset);
  const kind = secretKind(n);
  const { strategy } = kind;
  const types = secretTypes(n);
  const create = (object: JsonObject): string[] => {
    strategy.prepareForCreate?.(object);
    return text(strategy.validate?.(object));
  };

  describe(`Secret (${preset})`, () => {
    it("spells its types with the preset's domain", () => {
      assert.equal(types.tls, `${n.labelDomain}/tls`);
      assert.equal(types.bootstrapToken, `bootstrap.${n.labelDomain}/token`);
      assert.equal(types.serviceAccountNameAnnotation, `${n.labelDomain}/service-account.name`);
    });

    it("schema", () => {
      assert.deepEqual(kind.schema.shortNames, []);
      assert.equal(kind.schema.verbs.length, 8);
      assert.deepEqual(kind.schema.selectableFields?.({ type: types.tls }), { type: types.tls });
      assert.deepEqual(
        kind.schema.tableColumns?.map((c) => [c.name, c.cell({ type: "Opaque", data: { a: "", b: "" } })]),
        [
          ["Type", "Opaque"],
          ["Data", 2],
          ["Age", "<unknown>"],
        ],
      );
    });

    it("defaults the type to Opaque", () => {
      const s: JsonObject = { metadata: { name: "s" } };
      assert.deepEqual(create(s), []);
      assert.equal(s.type, "Opaque");
      const empty: JsonObject = { metadata: { name: "s" }, type: "" };
      strategy.prepareForCreate?.(empty);
      assert.equal(empty.type, "Opaque");
    });

    it("merges stringData into data, stringData winning, and drops it", () => {
      const s: JsonObject = { data: { a: b64("old"), b: b64("keep") }, stringData: { a: "new", c: "é" } };
      strategy.prepareForCreate?.(s);
      assert.deepEqual(s.data, { a: b64("new"), b: b64("keep"), c: b64("é") });
      assert.equal("stringData" in s, false);
      const onlyString: JsonObject = { stringData: { x: "1" } };
      strategy.prepareForUpdate?.(onlyString, { type: "Opaque" });
      assert.deepEqual(onlyString.data, { x: b64("1") });
    });

    it("stores data in canonical base64 and refuses anything else", () => {
      const s: JsonObject = { data: { a: "aGVs\r\nbG8=" } };
      strategy.prepareForCreate?.(s);
      assert.deepEqual(s.data, { a: "aGVsbG8=" });
      assert.throws(
        () => strategy.prepareForCreate?.({ metadata: { name: "s" }, data: { a: "aGVsbG8" } }),
        (e: unknown) =>
          e instanceof RegistryError &&
          e.reason === "BadRequest" &&
          e.message ===
            'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4',
      );
      assert.throws(
        () => strategy.prepareForCreate?.({ data: { a: true } }),
        /json: cannot unmarshal bool into Go struct field Secret.data of type \[\]uint8/,
      );
      assert.throws(
        () => strategy.prepareForCreate?.({ stringData: ["x"] }),
        /json: cannot unmarshal array into Go struct field Secret.stringData of type map\[string\]string/,
      );
    });

    it("checks keys and the 1 MiB limit on decoded bytes", () => {
      assert.deepEqual(create({ stringData: { "bad key": "x" } }), [
        "data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')",
      ]);
      const mib = Buffer.alloc(1024 * 1024).toString("base64");
      assert.deepEqual(create({ data: { a: mib } }), []);
      assert.deepEqual(create({ data: { a: mib, b: "AA==" } }), [
        "data: Too long: must have at most 1048576 bytes",
      ]);
    });

    const typed: [string, string, JsonObject, string[]][] = [
      [
        "service-account token without its annotation",
        types.serviceAccountToken,
        {},
        [`metadata.annotations[${types.serviceAccountNameAnnotation}]: Required value`],
      ],
      [
        "service-account token with its annotation",
        types.serviceAccountToken,
        {
          metadata: { name: "s", annotations: { [types.serviceAccountNameAnnotation]: "default" } },
        },
        [],
      ],
      ["dockercfg without its key", types.dockercfg, {}, ["data[.dockercfg]: Required value"]],
      [
        "dockercfg with bad JSON",
        types.dockercfg,
        { stringData: { ".dockercfg": "{" } },
        ['data[.dockercfg]: Invalid value: "<secret contents redacted>": unexpected end of JSON input'],
      ],
      ["dockercfg with JSON", types.dockercfg, { stringData: { ".dockercfg": '{"r":{}}' } }, []],
      [
        "dockerconfigjson without its key",
        types.dockerConfigJson,
        {},
        ["data[.dockerconfigjson]: Required value"],
      ],
      [
        "dockerconfigjson not an object",
        types.dockerConfigJson,
        { stringData: { ".dockerconfigjson": "[]" } },
        [
          'data[.dockerconfigjson]: Invalid value: "<secret contents redacted>": json: cannot unmarshal array into Go value of type map[string]interface {}',
        ],
      ],
      [
        "dockerconfigjson",
        types.dockerConfigJson,
        { stringData: { ".dockerconfigjson": '{"auths":{}}' } },
        [],
      ],
      [
        "basic-auth without either key",
        types.basicAuth,
        {},
        ["data[username]: Required value", "data[password]: Required value"],
      ],
      ["basic-auth with an empty password only", types.basicAuth, { data: { password: "" } }, []],
      [
        "ssh-auth without a key",
        types.sshAuth,
        { data: { "ssh-privatekey": "" } },
        ["data[ssh-privatekey]: Required value"],
      ],
      ["ssh-auth", types.sshAuth, { stringData: { "ssh-privatekey": "k" } }, []],
      [
        "tls without cert and key",
        types.tls,
        {},
        ["data[tls.crt]: Required value", "data[tls.key]: Required value"],
      ],
      ["tls", types.tls, { data: { "tls.crt": "", "tls.key": "" } }, []],
      ["bootstrap token (no API checks)", types.bootstrapToken, {}, []],
      ["custom type", "example.com/custom", {}, []],
    ];
    for (const [name, type, body, want] of typed) {
      it(name, () => assert.deepEqual(create({ metadata: { name: "s" }, ...body, type }), want));
    }

    it("keeps its type", () => {
      const old: JsonObject = {
        metadata: { name: "s" },
        type: types.tls,
        data: { "tls.crt": "", "tls.key": "" },
      };
      const next: JsonObject = { metadata: { name: "s" }, data: { "tls.crt": "", "tls.key": "" } };
      strategy.prepareForUpdate?.(next, old);
      assert.deepEqual(text(strategy.validateUpdate?.(next, old)), [
        'type: Invalid value: "Opaque": field is immutable',
      ]);
      assert.deepEqual(strategy.validateUpdate?.({ ...next, type: types.tls }, old), []);
    });

    it("an immutable Secret keeps data and immutable, stringData included", () => {
      const old: JsonObject = {
        metadata: { name: "s" },
        type: "Opaque",
        immutable: true,
        data: { a: b64("1") },
      };
      const same: JsonObject = { type: "Opaque", immutable: true, stringData: { a: "1" } };
      strategy.prepareForUpdate?.(same, old);
      assert.deepEqual(strategy.validateUpdate?.(same, old), []);
      const changed: JsonObject = { type: "Opaque", stringData: { a: "2" } };
      strategy.prepareForUpdate?.(changed, old);
      assert.deepEqual(text(strategy.validateUpdate?.(changed, old)), [
        "immutable: Forbidden: field is immutable when `immutable` is set",
        "data: Forbidden: field is immutable when `immutable` is set",
      ]);
    });
  });
}
