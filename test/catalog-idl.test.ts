// Cross-checks the built-in catalog against upstream's Protobuf IDL (the shared reference data,
// read by this test only): every field of every catalog type by JSON name, Protobuf number, type,
// repeated/map, and the list/patch markers; every reference resolves; `required` never contradicts
// `+optional`; the Go facts (`pointer`, `omitEmpty`) are where Go allows them and agree with
// `required`; and no description repeats upstream's comment text. CATALOG_FILES=a.ts,b.ts limits
// the check to some catalog files while they are being written.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { Catalog, type ParsedRef, parseRef, type ResolvedType } from "../backends/catalog/catalog.ts";
import type { CatalogPackage, FieldSpec } from "../backends/catalog/model.ts";
import { skipReason } from "./support/service-process.ts";

const UPSTREAM = fileURLToPath(new URL("../../shared/upstream/kubernetes-1.27/", import.meta.url));
const CATALOG_DIR = fileURLToPath(new URL("../backends/catalog/", import.meta.url));
// Files of the catalog module that hold no packages.
const NOT_PACKAGES = new Set(["model.ts", "catalog.ts", "expand.ts", "index.ts", "kinds.ts"]);

// Messages newer than the reference IDL (1.27.16), with the release that added them.
const LATER_MESSAGES = new Map([
  ["k8s.io.api.authentication.v1.SelfSubjectReview", "1.28"],
  ["k8s.io.api.authentication.v1.SelfSubjectReviewStatus", "1.28"],
]);

const SPECIAL_MESSAGES: Record<string, string> = {
  "k8s.io.apimachinery.pkg.api.resource.Quantity": "quantity",
  "k8s.io.apimachinery.pkg.util.intstr.IntOrString": "intOrString",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Time": "time",
  "k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime": "microTime",
  "k8s.io.apimachinery.pkg.apis.meta.v1.Duration": "duration",
  "k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1": "fieldsV1",
  "k8s.io.apimachinery.pkg.runtime.RawExtension": "rawExtension",
};

interface IdlField {
  readonly name: string;
  readonly number: number;
  /** Fully qualified message name, or the scalar's name. */
  readonly type: string;
  readonly repeated: boolean;
  readonly mapValue: boolean;
  readonly markers: ReadonlyMap<string, readonly string[]>;
  readonly comment: string;
}

interface IdlMessage {
  readonly comment: string;
  readonly fields: IdlField[];
}

const PROTO_SCALARS = new Set(["string", "bytes", "bool", "int32", "int64", "double", "float"]);

/** Top-level messages of every generated.proto under the reference data, by qualified name. */
function readIdl(): Map<string, IdlMessage> {
  const messages = new Map<string, IdlMessage>();
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(dir, entry.name));
      else if (entry.name === "generated.proto") files.push(join(dir, entry.name));
    }
  };
  walk(UPSTREAM);
  for (const file of files) {
    const lines = readFileSync(file, "utf8").split("\n");
    const pkg = lines.map((l) => /^package\s+([\w.]+)\s*;/.exec(l)?.[1]).find(Boolean);
    assert.ok(pkg, `${file}: no package`);
    const qualify = (type: string) =>
      PROTO_SCALARS.has(type) || type.includes(".") ? type : `${pkg}.${type}`;
    let comment: string[] = [];
    let current: IdlMessage | undefined;
    let depth = 0;
    for (const line of lines) {
      const c = /^\s*\/\/ ?(.*)$/.exec(line);
      if (c) {
        comment.push(c[1] ?? "");
        continue;
      }
      const open = /^\s*message\s+(\w+)\s*\{/.exec(line);
      if (open) {
        if (depth === 0) {
          current = { comment: comment.join("\n"), fields: [] };
          messages.set(`${pkg}.${open[1]}`, current);
        }
        depth++;
        comment = [];
        continue;
      }
      if (/^\s*\}/.test(line)) {
        depth--;
        if (depth === 0) current = undefined;
        comment = [];
        continue;
      }
      if (current && depth === 1) {
        const map = /^\s*map<\s*string\s*,\s*([\w.]+)\s*>\s+(\w+)\s*=\s*(\d+)/.exec(line);
        const plain = /^\s*(optional|repeated)\s+([\w.]+)\s+(\w+)\s*=\s*(\d+)/.exec(line);
        const markers = new Map<string, string[]>();
        const prose: string[] = [];
        for (const l of comment) {
          const m = /^\+([\w-]+)(?:=(.*))?$/.exec(l.trim());
          if (m?.[1]) markers.set(m[1], [...(markers.get(m[1]) ?? []), (m[2] ?? "").trim()]);
          else prose.push(l);
        }
        if (map) {
          current.fields.push({
            name: map[2] as string,
            number: Number(map[3]),
            type: qualify(map[1] as string),
            repeated: false,
            mapValue: true,
            markers,
            comment: prose.join(" "),
          });
        } else if (plain) {
          current.fields.push({
            name: plain[3] as string,
            number: Number(plain[4]),
            type: qualify(plain[2] as string),
            repeated: plain[1] === "repeated",
            mapValue: false,
            markers,
            comment: prose.join(" "),
          });
        }
      }
      if (line.trim() === "" || !/^\s*\/\//.test(line)) comment = [];
    }
  }
  return messages;
}

async function loadPackages(): Promise<{ file: string; pkg: CatalogPackage }[]> {
  const only = process.env.CATALOG_FILES?.split(",").map((s) => s.trim());
  const out: { file: string; pkg: CatalogPackage }[] = [];
  for (const file of readdirSync(CATALOG_DIR).sort()) {
    if (!file.endsWith(".ts") || file.endsWith(".test.ts") || NOT_PACKAGES.has(file)) continue;
    if (only && !only.includes(file)) continue;
    const mod = (await import(join(CATALOG_DIR, file))) as Record<string, unknown>;
    for (const value of Object.values(mod)) {
      const p = value as Partial<CatalogPackage> | null;
      if (
        p &&
        typeof p === "object" &&
        typeof p.id === "string" &&
        typeof p.protoPackage === "string" &&
        p.types
      ) {
        out.push({ file, pkg: p as CatalogPackage });
      }
    }
  }
  return out;
}

/** What a catalog field's type must be on the wire: [qualified type or scalar, repeated, map]. */
function wireType(catalog: Catalog, ref: ParsedRef): { type: string; repeated: boolean; map: boolean } {
  const element = (r: ParsedRef): string => {
    if (r.kind === "scalar") {
      const special = Object.entries(SPECIAL_MESSAGES).find(([, s]) => s === r.scalar)?.[0];
      if (special) return special;
      if (r.scalar === "json") return "k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.JSON";
      return r.scalar;
    }
    if (r.kind === "type") {
      const t = catalog.type(r.id);
      if (!t) return `<missing ${r.id}>`;
      return `${t.protoPackage}.${t.name}`;
    }
    return `<nested ${r.kind}>`;
  };
  if (ref.kind === "list") return { type: element(ref.of), repeated: true, map: false };
  if (ref.kind === "map") return { type: element(ref.of), repeated: false, map: true };
  return { type: element(ref), repeated: false, map: false };
}

const words = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9 ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean);

/** The longest run of consecutive words the two texts share. */
function sharedRun(a: string, b: string): string {
  const aw = words(a);
  const bw = words(b);
  let best: string[] = [];
  for (let i = 0; i < aw.length; i++) {
    for (let j = 0; j < bw.length; j++) {
      let k = 0;
      while (i + k < aw.length && j + k < bw.length && aw[i + k] === bw[j + k]) k++;
      if (k > best.length) best = aw.slice(i, i + k);
    }
  }
  return best.join(" ");
}

// Nine words in a row is past what two independent descriptions of one field share by chance.
const MAX_SHARED_WORDS = 8;

function markerOf(field: IdlField, name: string): string | undefined {
  const values = field.markers.get(name);
  return values ? values.join(",") : undefined;
}

function checkField(
  catalog: Catalog,
  type: ResolvedType,
  key: string,
  spec: FieldSpec,
  idl: IdlField,
  problems: string[],
): void {
  const where = `${type.id}.${key}`;
  if (spec.number !== idl.number) problems.push(`${where}: number ${spec.number}, IDL ${idl.number}`);
  checkText(where, spec.description, idl.comment, problems);
  const wire = wireType(catalog, parseRef(type.packageId, spec.type));
  // A type not loaded is reported once, by the reference check.
  if (wire.type.startsWith("<missing")) return;
  if (wire.type !== idl.type || wire.repeated !== idl.repeated || wire.map !== idl.mapValue) {
    const shape = (t: string, r: boolean, m: boolean) => `${m ? "map of " : r ? "repeated " : ""}${t}`;
    problems.push(
      `${where}: type ${shape(wire.type, wire.repeated, wire.map)}, IDL ${shape(idl.type, idl.repeated, idl.mapValue)}`,
    );
  }
  const expect: [string, string | undefined, string | undefined][] = [
    ["listType", spec.listType, markerOf(idl, "listType")],
    ["listMapKeys", spec.listMapKeys?.join(","), markerOf(idl, "listMapKey")],
    ["patchStrategy", spec.patchStrategy, markerOf(idl, "patchStrategy")],
    ["patchMergeKey", spec.patchMergeKey, markerOf(idl, "patchMergeKey")],
    ["mapType", spec.mapType, markerOf(idl, "mapType")],
    ["structType", spec.structType, markerOf(idl, "structType")],
  ];
  for (const [name, ours, theirs] of expect) {
    if (ours !== theirs) problems.push(`${where}: ${name} ${ours ?? "(none)"}, IDL ${theirs ?? "(none)"}`);
  }
  if (spec.required && idl.markers.has("optional"))
    problems.push(`${where}: required, but IDL says +optional`);
  checkGoFacts(type, where, spec, problems);
}

/**
 * The Go facts (`pointer`, `omitEmpty`), read from upstream's Go types, which the IDL does not
 * carry: written only in their non-default form, only where Go can have them, and consistent
 * with `required` (a required field's JSON tag has no omitempty).
 */
function checkGoFacts(type: ResolvedType, where: string, spec: FieldSpec, problems: string[]): void {
  const ref = parseRef(type.packageId, spec.type);
  if (spec.pointer !== undefined && spec.pointer !== true)
    problems.push(`${where}: pointer is written only as true`);
  if (spec.omitEmpty !== undefined && spec.omitEmpty !== false)
    problems.push(`${where}: omitEmpty is written only as false`);
  if (spec.pointer && ref.kind !== "scalar" && ref.kind !== "type")
    problems.push(`${where}: a Go ${ref.kind} is never a pointer`);
  if (spec.pointer && ref.kind === "scalar" && ref.scalar === "bytes")
    problems.push(`${where}: a []byte is nil-able by its type, not a pointer`);
  if (spec.inline && (spec.pointer || spec.omitEmpty === false))
    problems.push(`${where}: an inline struct has no pointer or omitempty fact`);
  if (type.spec.jsonAs !== undefined && spec.omitEmpty !== undefined)
    problems.push(`${where}: a type with its own JSON form has no omitempty facts`);
  if (spec.required && spec.omitEmpty !== false)
    problems.push(`${where}: required, but its JSON tag has omitempty (omitEmpty is not false)`);
}

/** A description is present and written in our own words. */
function checkText(where: string, ours: string, upstream: string, problems: string[]): void {
  if (!ours.trim()) problems.push(`${where}: no description`);
  const run = sharedRun(ours, upstream);
  if (run.split(" ").length > MAX_SHARED_WORDS)
    problems.push(`${where}: description repeats upstream: "${run}"`);
}

// CI (REQUIRE_SERVICES=1) fails without the reference data beside the checkout; elsewhere the
// suite says why it skips.
const skip = skipReason(
  existsSync(UPSTREAM),
  "the upstream reference data (../shared/upstream) is not present",
);

describe("built-in catalog against upstream's IDL", { skip }, async () => {
  if (skip) return;
  const idl = readIdl();
  const loaded = await loadPackages();
  const catalog = new Catalog(loaded.map((l) => l.pkg));
  const partial = process.env.CATALOG_FILES !== undefined;

  it("finds catalog packages", () => {
    assert.ok(loaded.length > 0);
  });

  for (const { file, pkg } of loaded) {
    it(`${file} (${pkg.id}) matches ${pkg.protoPackage}`, () => {
      const problems: string[] = [];
      for (const name of Object.keys(pkg.types)) {
        const type = catalog.mustType(`${pkg.id}.${name}`);
        const full = `${pkg.protoPackage}.${name}`;
        const message = idl.get(full);
        if (!message) {
          if (!LATER_MESSAGES.has(full)) problems.push(`${type.id}: no message ${full} in the IDL`);
          continue;
        }
        checkText(type.id, type.spec.description, message.comment, problems);
        const structType = /^\s*\+structType=(\w+)/m.exec(message.comment)?.[1];
        if (structType !== type.spec.structType) {
          problems.push(
            `${type.id}: structType ${type.spec.structType ?? "(none)"}, IDL ${structType ?? "(none)"}`,
          );
        }
        const byName = new Map(message.fields.map((fd) => [fd.name, fd]));
        const seen = new Set<string>();
        for (const [key, spec] of Object.entries(type.spec.fields)) {
          const protoName = spec.protoName ?? key;
          seen.add(protoName);
          const fd = byName.get(protoName);
          if (!fd) {
            problems.push(`${type.id}.${key}: not in the IDL`);
            continue;
          }
          checkField(catalog, type, key, spec, fd, problems);
        }
        for (const fd of message.fields) {
          if (!seen.has(fd.name)) problems.push(`${type.id}: IDL field ${fd.name} (${fd.number}) missing`);
        }
      }
      assert.deepEqual(problems, []);
    });
  }

  it("every reference resolves", () => {
    const missing = new Set<string>();
    const visit = (from: string, ref: ParsedRef) => {
      if (ref.kind === "list" || ref.kind === "map") visit(from, ref.of);
      else if (ref.kind === "type" && !catalog.type(ref.id)) missing.add(ref.id);
    };
    for (const type of catalog.types()) {
      for (const spec of Object.values(type.spec.fields))
        visit(type.packageId, parseRef(type.packageId, spec.type));
      if (type.spec.jsonAs) visit(type.packageId, parseRef(type.packageId, type.spec.jsonAs));
    }
    if (partial) {
      if (missing.size > 0)
        console.log(`# references to types not loaded: ${[...missing].sort().join(", ")}`);
      return;
    }
    assert.deepEqual([...missing].sort(), []);
  });
});
