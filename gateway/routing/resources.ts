// The table the router consults: which (group, version, resource) is served by which registry.
import type { JsonObject, KnownFields, Registry } from "../../backends/registry/index.ts";
import type { ResourceSchema } from "../../backends/schema/index.ts";
import type { RequestContext } from "../pipeline/index.ts";

export interface ServedResource {
  readonly schema: ResourceSchema;
  readonly registry: Registry;
}

/**
 * A resource that is computed, never stored (the access and token reviews): it only answers
 * `create`, from the request's body and caller.
 */
export interface VirtualResource {
  readonly schema: ResourceSchema;
  /** The fields a body may carry, for `fieldValidation`; absent: any. */
  readonly knownFields?: KnownFields;
  /**
   * The response object (sent with 201), given the decoded body at the request's version;
   * `name` is the parent object's name for a subresource action.
   */
  create(
    ctx: RequestContext,
    body: JsonObject,
    version: string,
    namespace: string | undefined,
    name: string | undefined,
  ): Promise<JsonObject>;
}

/** What the codec needs of either kind of resource. */
export type Resource = ServedResource | VirtualResource;

export function knownFieldsOf(resource: Resource): KnownFields | undefined {
  return "registry" in resource ? resource.registry.strategy.knownFields : resource.knownFields;
}

export type EnabledPredicate = (group: string, version: string, resource: string) => boolean;

export class ResourceTable {
  readonly #byPath = new Map<string, ServedResource>();
  #all: ServedResource[] = [];
  /** Custom resources: `--runtime-config` does not apply to them. */
  readonly #custom = new WeakSet<ServedResource>();
  readonly #virtualByPath = new Map<string, VirtualResource>();
  readonly #virtual: VirtualResource[] = [];
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

  /** Serves `served` in place of any resource of the same group and plural. */
  replace(served: ServedResource, options: { custom?: boolean } = {}): void {
    this.remove(served.schema.group, served.schema.plural);
    if (options.custom) this.#custom.add(served);
    this.add(served);
  }

  remove(group: string, plural: string): void {
    const gone = this.#all.filter((r) => r.schema.group === group && r.schema.plural === plural);
    if (gone.length === 0) return;
    this.#all = this.#all.filter((r) => !gone.includes(r));
    for (const [path, r] of this.#byPath) if (gone.includes(r)) this.#byPath.delete(path);
    this.#generation++;
  }

  addVirtual(resource: VirtualResource): void {
    for (const v of resource.schema.versions) {
      if (v.served)
        this.#virtualByPath.set(`${resource.schema.group}/${v.name}/${resource.schema.plural}`, resource);
    }
    this.#virtual.push(resource);
    this.#generation++;
  }

  lookupVirtual(group: string, version: string, resource: string): VirtualResource | undefined {
    if (!this.#enabled(group, version, resource)) return undefined;
    return this.#virtualByPath.get(`${group}/${version}/${resource}`);
  }

  lookup(group: string, version: string, resource: string): ServedResource | undefined {
    const served = this.#byPath.get(`${group}/${version}/${resource}`);
    if (!served || this.#custom.has(served)) return served;
    return this.#enabled(group, version, resource) ? served : undefined;
  }

  /** The resource of a kind in a group (e.g. the Namespace registry). */
  byResource(group: string, resource: string): ServedResource | undefined {
    return this.#all.find((r) => r.schema.group === group && r.schema.plural === resource);
  }

  /** Every resource with the versions `--runtime-config` turned off marked as not served. */
  get schemas(): ResourceSchema[] {
    const out: ResourceSchema[] = [];
    for (const r of [...this.#all, ...this.#virtual]) {
      const { schema } = r;
      const custom = "registry" in r && this.#custom.has(r);
      const versions = schema.versions.map((v) =>
        v.served && !custom && !this.#enabled(schema.group, v.name, schema.plural)
          ? { ...v, served: false }
          : v,
      );
      if (versions.some((v) => v.served)) out.push({ ...schema, versions });
    }
    return out;
  }

  get all(): readonly ServedResource[] {
    return this.#all;
  }

  /** Stored and virtual schemas alike, whatever `--runtime-config` says. */
  get allSchemas(): readonly ResourceSchema[] {
    return [...this.#all.map((r) => r.schema), ...this.#virtual.map((r) => r.schema)];
  }

  /** Changes whenever the set of resources changes (discovery rebuilds on it). */
  get generation(): number {
    return this.#generation;
  }
}
