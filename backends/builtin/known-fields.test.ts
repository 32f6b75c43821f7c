// Cross-checks each built-in kind's known-field tree against upstream's Protobuf IDL (read from
// the shared reference data, never at run time). In the IDL a field's name is its JSON name:
// `optional string generateName = 2;` is `generateName` on the wire.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { skipReason } from "../../test/support/service-process.ts";
import { naming } from "../naming/naming.ts";
import type { KnownFields } from "../registry/strategy.ts";
import { OBJECT_META_FIELDS } from "../validation/object-meta.ts";
import { builtinKinds } from "./index.ts";

const UPSTREAM = fileURLToPath(new URL("../../../shared/upstream/kubernetes-1.27/", import.meta.url));
const CORE = `${UPSTREAM}api/core/v1/generated.proto`;
const META = `${UPSTREAM}apimachinery/pkg/apis/meta/v1/generated.proto`;
const META_PKG = "k8s.io.apimachinery.pkg.apis.meta.v1";

// Messages whose JSON form is a single value rather than an object.
const JSON_SCALARS = new Set([`${META_PKG}.Time`, `${META_PKG}.MicroTime`, `${META_PKG}.FieldsV1`]);
const PROTO_SCALARS = new Set([
  "string",
  "bytes",
  "bool",
  "int32",
  "int64",
  "uint32",
  "uint64",
  "sint32",
  "sint64",
  "fixed32",
  "fixed64",
  "double",
  "float",
]);

interface ProtoField {
  readonly name: string;
  readonly type: string;
  readonly repeated: boolean;
  readonly mapValue?: string;
}

/** Top-level messages of one .proto file, by fully qualified name. */
function parseProto(path: string): Map<string, ProtoField[]> {
  const text = readFileSync(path, "utf8").replace(/\/\/.*$/gm, "");
  const pkg = /^package\s+([\w.]+)\s*;/m.exec(text)?.[1];
  assert.ok(pkg, `${path}: no package`);
  const messages = new Map<string, ProtoField[]>();
  const qualify = (type: string) => (PROTO_SCALARS.has(type) || type.includes(".") ? type : `${pkg}.${type}`);
  let current: ProtoField[] | undefined;
  let depth = 0;
  for (const line of text.split("\n")) {
    const open = /^\s*message\s+(\w+)\s*\{/.exec(line);
    if (open && depth === 0) {
      current = [];
      messages.set(`${pkg}.${open[1]}`, current);
    }
    if (current && depth === 1) {
      const map = /^\s*map<\s*([\w.]+)\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*\d+/.exec(line);
      const plain = /^\s*(optional|repeated|required)?\s*([\w.]+)\s+(\w+)\s*=\s*\d+/.exec(line);
      if (map)
        current.push({ name: map[3] ?? "", type: "map", repeated: false, mapValue: qualify(map[2] ?? "") });
      else if (plain)
        current.push({
          name: plain[3] ?? "",
          type: qualify(plain[2] ?? ""),
          repeated: plain[1] === "repeated",
        });
      assert.doesNotMatch(line, /json_name/, "a field renamed on the wire");
    }
    depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length;
    if (depth === 0) current = undefined;
  }
  return messages;
}

const available = existsSync(CORE) && existsSync(META);
const messages = available
  ? new Map([...parseProto(META), ...parseProto(CORE)])
  : new Map<string, ProtoField[]>();

/** The IDL package of a kind's group version, loading its file on first use. */
function packageOf(group: string, version: string): string {
  const dir = group === "" ? "core" : (group.split(".")[0] as string);
  const file = `${UPSTREAM}api/${dir}/${version}/generated.proto`;
  const pkg = `k8s.io.api.${dir}.${version}`;
  if (![...messages.keys()].some((m) => m.startsWith(`${pkg}.`))) {
    for (const [name, fields] of parseProto(file)) messages.set(name, fields);
  }
  return pkg;
}

/** The known-field tree the IDL implies for a message. */
function treeOf(message: string): KnownFields {
  const fields = messages.get(message);
  assert.ok(fields, `no message ${message} in the IDL`);
  const tree: Record<string, KnownFields | true> = {};
  for (const f of fields) {
    if (f.mapValue !== undefined) tree[f.name] = { "*": mapValueTree(f.mapValue) };
    else if (PROTO_SCALARS.has(f.type) || JSON_SCALARS.has(f.type)) tree[f.name] = true;
    else tree[f.name] = f.repeated ? { "[]": treeOf(f.type) } : treeOf(f.type);
  }
  return tree;
}

function mapValueTree(type: string): KnownFields | true {
  return PROTO_SCALARS.has(type) || JSON_SCALARS.has(type) ? true : treeOf(type);
}

describe("known fields agree with the upstream IDL", {
  skip: skipReason(available, `no IDL at ${UPSTREAM}`),
}, () => {
  it("ObjectMeta", () => {
    assert.deepEqual(OBJECT_META_FIELDS, treeOf(`${META_PKG}.ObjectMeta`));
  });

  for (const kind of builtinKinds(naming("cluster"))) {
    // Kinds without a known-field tree accept every field (strict validation comes later).
    if (kind.strategy.knownFields === undefined || kind.schema.storedAs) continue;
    it(kind.schema.kind, () => {
      const version = kind.schema.versions.find((v) => v.storage)?.name ?? "v1";
      const pkg = packageOf(kind.schema.group, version);
      const expected = { apiVersion: true, kind: true, ...treeOf(`${pkg}.${kind.schema.kind}`) };
      assert.deepEqual(kind.strategy.knownFields, expected);
      for (const [name, sub] of Object.entries(kind.subresourceStrategies ?? {})) {
        assert.deepEqual(sub.knownFields, expected, `${kind.schema.kind}/${name}`);
      }
      assert.ok(messages.has(`${pkg}.${kind.schema.listKind}`), `${kind.schema.listKind} exists upstream`);
    });
  }
});
