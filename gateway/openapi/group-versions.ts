// From resource schemas to the group versions the documents describe: each served version of
// each resource contributes its paths, its kind and list definitions, and the meta types its
// operations refer to.
import type { Naming } from "../../backends/naming/index.ts";
import type { ResourceSchema } from "../../backends/schema/index.ts";
import { catalogKindDefinitions } from "./catalog-definitions.ts";
import {
  kindDefinition,
  listDefinition,
  META_TYPES,
  metaTypeDefinition,
  schemaKindDefinition,
  schemaReferences,
} from "./definitions.ts";
import type { Definition, GroupVersionApi, PathItem } from "./model.ts";
import { definitionPrefixes, metaDefinition } from "./names.ts";
import { type OperationDefinitions, resourcePaths } from "./operations.ts";

export interface BuildOptions {
  readonly naming: Naming;
  /** The patch media types to advertise; the server's accepted ones by default. */
  readonly patchMediaTypes?: readonly string[];
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The group versions of a schema set, sorted by group then version, with their paths. */
export function buildGroupVersions(
  schemas: readonly ResourceSchema[],
  options: BuildOptions,
): GroupVersionApi[] {
  const { naming } = options;
  const served: { schema: ResourceSchema; version: string }[] = [];
  for (const schema of schemas) {
    for (const v of schema.versions) if (v.served) served.push({ schema, version: v.name });
  }
  const prefixes = definitionPrefixes(
    naming,
    served.map((s) => ({ group: s.schema.group, version: s.version })),
  );

  const groups = new Map<
    string,
    { group: string; version: string; paths: PathItem[]; defs: Map<string, Definition> }
  >();
  for (const { schema, version } of served) {
    const key = `${schema.group}/${version}`;
    let gv = groups.get(key);
    if (!gv) {
      gv = { group: schema.group, version, paths: [], defs: new Map() };
      groups.set(key, gv);
    }
    const prefix = prefixes.get(key)!;
    const kindName = `${prefix}.${schema.kind}`;
    const listName = `${prefix}.${schema.listKind}`;
    if (!gv.defs.has(kindName)) {
      const gvk = { group: schema.group, version, kind: schema.kind };
      const served = schema.versions.find((v) => v.name === version);
      if (served?.catalogType) {
        for (const d of catalogKindDefinitions(naming, served.catalogType, kindName, gvk)) {
          if (!gv.defs.has(d.name)) gv.defs.set(d.name, d);
        }
      } else if (served?.schema) {
        gv.defs.set(kindName, schemaKindDefinition(naming, kindName, gvk, served.schema));
      } else {
        gv.defs.set(kindName, kindDefinition(naming, kindName, gvk));
      }
    }
    if (schema.verbs.includes("list") && !gv.defs.has(listName)) {
      gv.defs.set(
        listName,
        listDefinition(naming, listName, kindName, { group: schema.group, version, kind: schema.listKind }),
      );
    }
    const definitions: OperationDefinitions = {
      kind: kindName,
      list: listName,
      status: metaDefinition(naming, "Status"),
      deleteOptions: metaDefinition(naming, "DeleteOptions"),
      watchEvent: metaDefinition(naming, "WatchEvent"),
      patch: metaDefinition(naming, "Patch"),
    };
    gv.paths.push(
      ...resourcePaths(schema, version, {
        naming,
        definitions,
        ...(options.patchMediaTypes ? { patchMediaTypes: options.patchMediaTypes } : {}),
      }),
    );
  }

  const result: GroupVersionApi[] = [];
  for (const gv of groups.values()) {
    const definitions = [...gv.defs.values()];
    // Meta types only when something refers to them, as upstream's per-group documents do.
    const referenced = new Set<string>();
    for (const d of definitions) for (const ref of schemaReferences(d.schema)) referenced.add(ref);
    for (const item of gv.paths) {
      for (const op of item.operations) {
        if (op.requestBody) referenced.add(op.requestBody.definition);
        for (const r of op.responses) if (r.definition) referenced.add(r.definition);
      }
    }
    for (const type of META_TYPES) {
      const meta = metaTypeDefinition(naming, type);
      if (referenced.has(meta.name) && !gv.defs.has(meta.name)) definitions.push(meta);
    }
    result.push({
      group: gv.group,
      version: gv.version,
      paths: [...gv.paths].sort((a, b) => compare(a.path, b.path)),
      definitions: definitions.sort((a, b) => compare(a.name, b.name)),
    });
  }
  return result.sort((a, b) =>
    a.group === b.group ? compare(a.version, b.version) : compare(a.group, b.group),
  );
}
