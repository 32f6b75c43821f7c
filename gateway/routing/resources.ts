// The table the router consults: which (group, version, resource) is served by which registry.
import type { Registry } from "../../backends/registry/index.ts";
import type { ResourceSchema } from "../../backends/schema/index.ts";

export interface ServedResource {
  readonly schema: ResourceSchema;
  readonly registry: Registry;
}

export type EnabledPredicate = (group: string, version: string, resource: string) => boolean;

export class ResourceTable {
  readonly #byPath = new Map<string, ServedResource>();
  readonly #all: ServedResource[] = [];
  #generation = 0;
  #enabled: EnabledPredicate = () => true;

  /** Which versions are served (`--runtime-config`). */
  setEnabled(enabled: EnabledPredicate): void {
    this.#enabled = enabled;
    this.#generation++;
  }

  add(served: ServedResource): void {
    for (const v of served.schema.versions) {
      if (!v.served) continue;
      this.#byPath.set(`${served.schema.group}/${v.name}/${served.schema.plural}`, served);
    }
    this.#all.push(served);
    this.#generation++;
  }

  lookup(group: string, version: string, resource: string): ServedResource | undefined {
    if (!this.#enabled(group, version, resource)) return undefined;
    return this.#byPath.get(`${group}/${version}/${resource}`);
  }

  /** The resource of a kind in a group (e.g. the Namespace registry). */
  byResource(group: string, resource: string): ServedResource | undefined {
    return this.#all.find((r) => r.schema.group === group && r.schema.plural === resource);
  }

  /** Every resource with the versions `--runtime-config` turned off marked as not served. */
  get schemas(): ResourceSchema[] {
    const out: ResourceSchema[] = [];
    for (const { schema } of this.#all) {
      const versions = schema.versions.map((v) =>
        v.served && !this.#enabled(schema.group, v.name, schema.plural) ? { ...v, served: false } : v,
      );
      if (versions.some((v) => v.served)) out.push({ ...schema, versions });
    }
    return out;
  }

  get all(): readonly ServedResource[] {
    return this.#all;
  }

  /** Changes whenever the set of resources changes (discovery rebuilds on it). */
  get generation(): number {
    return this.#generation;
  }
}
