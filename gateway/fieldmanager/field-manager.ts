// Field ownership (server-side apply and managedFields on every write), after upstream's
// field manager: updaters own what they change, appliers own what they send, and an apply that
// changes another manager's field is a conflict unless forced. Objects come in and go out in
// their stored form; field sets are computed at the request's version, and at each other
// manager's version when theirs differs.

import { cloneJson } from "../../backends/common/json.ts";
import type { StructuralSchema } from "../../backends/schema/structural/types.ts";
import { ApplyConflictError, type Conflict, FieldManagerError } from "./errors.ts";
import { FieldSet, type Path } from "./field-set.ts";
import {
  decodeManagedFields,
  encodeManagedFields,
  entryTime,
  identity,
  isResetRequest,
  type ManagedFieldsError,
  type ManagerEntry,
  type Managers,
} from "./managed-fields.ts";
import {
  type Comparison,
  compareSteps,
  mergeSteps,
  type OwnersAtVersion,
  pruneUnownedSteps,
  runWalkSliced,
  type Steps,
  toFieldSetSteps,
} from "./typed-walk.ts";

type JsonObject = Record<string, unknown>;

/** What the field manager needs to know about the resource's versions. */
export interface VersionView {
  /** `apps/v1` for a version name. */
  apiVersion(version: string): string;
  /** The version name of a served `group/version`, or undefined. */
  versionOf(apiVersion: string): string | undefined;
  /** The kind's schema at a version (undefined: free-form). */
  schema(version: string): StructuralSchema | undefined;
  /** An object (stored form or any served version) at `version`. */
  convert(object: JsonObject, version: string): JsonObject;
  /** The same, for kinds whose conversion calls out (a CRD's conversion webhook). */
  convertAsync?(object: JsonObject, version: string): Promise<JsonObject>;
  readonly kind: string;
  /** Whether the kind has a `status` subresource (then the main resource does not own status). */
  readonly hasStatus: boolean;
}

export interface FieldManagerOptions {
  readonly view: VersionView;
  /** The request's version name. */
  readonly version: string;
  /** "" for the main resource. */
  readonly subresource: string;
  /** The client-side apply annotation's key (kubectl's last-applied-configuration). */
  readonly lastAppliedAnnotation: string;
  readonly now?: () => Date;
  readonly maxUpdateManagers?: number;
}

/** Manager names with special handling, as upstream spells them. */
const KUBECTL = "kubectl";
const BEFORE_FIRST_APPLY = "before-first-apply";
const ANCIENT_CHANGES = "ancient-changes";
const CURRENT = "\u0000current-operation";
/** Upstream's limit on the total size of an object's annotations. */
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

/** Fields no manager owns: identity and bookkeeping the server keeps. */
const STRIPPED = FieldSet.of(
  [{ field: "apiVersion" }],
  [{ field: "kind" }],
  [{ field: "metadata" }],
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation"].map(
    (f): Path => [{ field: "metadata" }, { field: f }],
  ),
  [{ field: "metadata" }, { field: "managedFields" }],
  [{ field: "metadata" }, { field: "resourceVersion" }],
);

function isObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function metaOf(o: JsonObject): JsonObject {
  if (!isObject(o.metadata)) o.metadata = {};
  return o.metadata as JsonObject;
}

/**
 * A view without managedFields, which are never part of what is compared: a shallow copy is
 * enough because the typed walks never change their inputs.
 */
function withoutManagedFields(o: JsonObject): JsonObject {
  if (!isObject(o.metadata) || !("managedFields" in o.metadata)) return o;
  const { managedFields: _, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/** Deep equality of JSON values, stopping at the first difference. */
function sameJson(a: unknown, b: unknown): boolean {
  const stack: [unknown, unknown][] = [[a, b]];
  while (stack.length > 0) {
    const [x, y] = stack.pop() as [unknown, unknown];
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) stack.push([x[i], y[i]]);
      continue;
    }
    if (Array.isArray(y)) return false;
    const xk = Object.keys(x);
    if (xk.length !== Object.keys(y).length) return false;
    for (const k of xk) {
      if (!Object.hasOwn(y, k)) return false;
      stack.push([(x as JsonObject)[k], (y as JsonObject)[k]]);
    }
  }
  return true;
}

function emptyManagersOnError(list: unknown): Managers {
  try {
    return decodeManagedFields(list);
  } catch (err) {
    if ((err as ManagedFieldsError).name === "ManagedFieldsError") return new Map();
    throw err;
  }
}

export class FieldManager {
  readonly #o: FieldManagerOptions;
  readonly #apiVersion: string;
  readonly #schema: StructuralSchema | undefined;

  constructor(options: FieldManagerOptions) {
    this.#o = options;
    this.#apiVersion = options.view.apiVersion(options.version);
    this.#schema = options.view.schema(options.version);
  }

  /**
   * Records a non-apply write: `next` (stored form, after the kind's preparation) replaces
   * `live` (undefined on create). `sent` is the managedFields the request carried, which may
   * replace or reset the recorded ones. Sets `next.metadata.managedFields`.
   */
  async update(
    live: JsonObject | undefined,
    next: JsonObject,
    sent: unknown,
    manager: string,
  ): Promise<void> {
    const liveFields = live ? metaOf(live).managedFields : undefined;
    let managers: Managers;
    let reset = false;
    if (this.#o.subresource !== "") managers = emptyManagersOnError(liveFields);
    else if (isResetRequest(sent)) {
      managers = new Map();
      reset = true;
    } else {
      managers = emptyManagersOnError(sent);
      if (managers.size === 0) managers = emptyManagersOnError(liveFields);
    }
    const nextMeta = metaOf(next);
    // An object that predates field tracking stays untracked until someone applies.
    if (managers.size === 0 && live && !reset) {
      delete nextMeta.managedFields;
      return;
    }
    const liveAt = live ? await this.#atAsync(withoutManagedFields(live), this.#o.version) : {};
    const nextAt = await this.#atAsync(withoutManagedFields(next), this.#o.version);
    try {
      await this.#recordUpdate(managers, liveAt, nextAt, manager || "unknown");
    } catch (err) {
      // An object the typed walk cannot read (duplicate list keys that validation allows) is
      // written without managedFields rather than refused, as upstream does.
      if (err instanceof FieldManagerError) {
        delete nextMeta.managedFields;
        return;
      }
      throw err;
    }
    this.#cap(managers);
    const encoded = encodeManagedFields(managers);
    if (encoded) nextMeta.managedFields = encoded;
    else delete nextMeta.managedFields;
  }

  /**
   * A server-side apply of `config` (at the request's version) onto `live` (stored form;
   * undefined when the apply creates). Returns the merged object at the request's version with
   * its managedFields; throws ApplyConflictError or FieldManagerError.
   */
  async apply(
    live: JsonObject | undefined,
    config: JsonObject,
    manager: string,
    force: boolean,
  ): Promise<JsonObject> {
    this.#checkConfig(config);
    const liveAt = live
      ? await this.#atAsync(withoutManagedFields(live), this.#o.version)
      : { apiVersion: this.#apiVersion, kind: this.#o.view.kind, metadata: {} };
    const liveManagers = async (): Promise<Managers> => {
      const found = emptyManagersOnError(live ? metaOf(live).managedFields : undefined);
      // Whatever is there already belongs to someone: a placeholder updater owns it.
      if (found.size === 0 && live) await this.#recordUpdate(found, {}, liveAt, BEFORE_FIRST_APPLY);
      return found;
    };
    let managers = await liveManagers();
    const id = identity({ manager, operation: "Apply", apiVersion: "", subresource: this.#o.subresource });
    let result: { object: JsonObject; managers: Managers };
    try {
      result = await this.#apply(liveAt, config, managers, id, manager, force);
    } catch (err) {
      if (!(err instanceof ApplyConflictError) || manager !== KUBECTL) throw err;
      // kubectl moving from client-side apply: fields whose live value is still what the
      // last client-side apply set may be taken over.
      const allowed = await this.#lastAppliedFields(liveAt);
      const remaining = err.conflicts.filter((c) => !allowed?.has(c.path));
      if (!allowed || remaining.length > 0)
        throw remaining.length > 0 ? new ApplyConflictError(remaining) : err;
      managers = await liveManagers();
      result = await this.#apply(liveAt, config, managers, id, manager, true);
    }
    const { object } = result;
    managers = result.managers;
    if (manager === KUBECTL) this.#syncLastApplied(object, config);
    this.#cap(managers);
    const encoded = encodeManagedFields(managers);
    const m = metaOf(object);
    if (encoded) m.managedFields = encoded;
    else delete m.managedFields;
    return object;
  }

  #checkConfig(config: JsonObject): void {
    const expected = this.#apiVersion;
    const kind = this.#o.view.kind;
    if (config.apiVersion !== expected || config.kind !== kind) {
      const av = typeof config.apiVersion === "string" ? config.apiVersion : "";
      const slash = av.indexOf("/");
      const gv = slash < 0 ? `/${av}` : av;
      throw new FieldManagerError(
        `invalid object type: ${gv}, Kind=${typeof config.kind === "string" ? config.kind : ""}`,
      );
    }
    if (isObject(config.metadata) && config.metadata.managedFields != null)
      throw new FieldManagerError("metadata.managedFields must be nil");
  }

  async #apply(
    liveAt: JsonObject,
    config: JsonObject,
    managers: Managers,
    id: string,
    manager: string,
    force: boolean,
  ): Promise<{ object: JsonObject; managers: Managers }> {
    const schema = this.#schema;
    const managersOut: Managers = new Map(managers);
    const merged = (await this.#walk(mergeSteps(liveAt, config, schema))) as JsonObject;
    const last = managers.get(id);
    const ignored = this.#ignored(liveAt, config);
    const configSet = (await this.#walk(toFieldSetSteps(config, schema))).recursiveDifference(ignored);
    const applied: ManagerEntry = {
      manager,
      operation: "Apply",
      apiVersion: this.#apiVersion,
      subresource: this.#o.subresource,
      set: configSet,
      time: last?.time,
    };
    managersOut.set(id, applied);
    let object = merged;
    // Pruning can only remove what the applier had and no longer sends: when its new set still
    // holds all of the last one (list items and map entries come with their members), the merge
    // stands as it is.
    const dropped = last && last.apiVersion === this.#apiVersion ? last.set.difference(configSet) : last?.set;
    if (last && dropped && !dropped.isEmpty()) {
      // Pruning happens at the version the applier's last set was written at (upstream's order);
      // every other set is laid over the object converted to its own version.
      const pruneVersion = this.#o.view.versionOf(last.apiVersion);
      if (pruneVersion !== undefined) {
        const byVersion = new Map<string, FieldSet>();
        for (const e of managersOut.values())
          byVersion.set(e.apiVersion, (byVersion.get(e.apiVersion) ?? FieldSet.empty()).union(e.set));
        const others: OwnersAtVersion[] = [];
        for (const [apiVersion, set] of byVersion) {
          const version = this.#o.view.versionOf(apiVersion);
          if (version === undefined || apiVersion === last.apiVersion) continue;
          others.push({
            owned: set,
            schema: this.#o.view.schema(version),
            to: (v) => this.#at(v as JsonObject, version),
            back: (v) => this.#at(v as JsonObject, pruneVersion),
          });
        }
        const there = await this.#atAsync(merged, pruneVersion);
        const owned = byVersion.get(last.apiVersion) ?? FieldSet.empty();
        const schemaThere = this.#o.view.schema(pruneVersion);
        const pruned = await this.#walk(pruneUnownedSteps(there, last.set, owned, schemaThere, others));
        object = await this.#atAsync(pruned as JsonObject, this.#o.version);
      }
    }
    const conflicts = await this.#takeOver(managersOut, id, liveAt, object);
    if (conflicts.length > 0 && !force) throw new ApplyConflictError(conflicts);
    const strippedSet = configSet.difference(STRIPPED);
    const changed = !sameJson(object, liveAt);
    if (strippedSet.isEmpty()) managersOut.delete(id);
    else
      managersOut.set(id, {
        ...applied,
        set: strippedSet,
        time: changed || !last ? entryTime(this.#now()) : last.time,
      });
    return { object, managers: managersOut };
  }

  /**
   * What the write changes is taken from every other manager, and what it removes is no longer
   * theirs. Returns what was taken: for an apply without force, those are conflicts.
   */
  async #takeOver(
    managers: Managers,
    self: string,
    before: JsonObject,
    after: JsonObject,
  ): Promise<Conflict[]> {
    const conflicts: Conflict[] = [];
    const byVersion = new Map<string, Comparison | undefined>();
    for (const [id, entry] of managers) {
      if (id === self) continue;
      let cmp = byVersion.get(entry.apiVersion);
      if (!byVersion.has(entry.apiVersion)) {
        cmp = await this.#compareAt(before, after, entry.apiVersion);
        byVersion.set(entry.apiVersion, cmp);
      }
      if (!cmp) {
        // A version no longer served: its set cannot be compared, so it is dropped.
        managers.delete(id);
        continue;
      }
      const taken = entry.set.intersection(cmp.modified.union(cmp.added));
      if (!taken.isEmpty()) for (const path of taken.paths()) conflicts.push({ manager: id, path });
      const rest = entry.set.difference(taken).difference(cmp.removed);
      if (rest.isEmpty()) managers.delete(id);
      else if (!rest.equals(entry.set)) managers.set(id, { ...entry, set: rest });
    }
    return conflicts;
  }

  async #recordUpdate(
    managers: Managers,
    before: JsonObject,
    after: JsonObject,
    manager: string,
  ): Promise<void> {
    const cmp = await this.#compareAt(before, after, this.#apiVersion);
    if (!cmp) return;
    await this.#takeOver(managers, CURRENT, before, after);
    const ignored = this.#ignored(before, after);
    const changed = cmp.modified.union(cmp.added).recursiveDifference(ignored).difference(STRIPPED);
    if (changed.isEmpty()) return;
    const id = identity({
      manager,
      operation: "Update",
      apiVersion: this.#apiVersion,
      subresource: this.#o.subresource,
    });
    const previous = managers.get(id);
    managers.set(id, {
      manager,
      operation: "Update",
      apiVersion: this.#apiVersion,
      subresource: this.#o.subresource,
      set: previous ? previous.set.union(changed) : changed,
      time: entryTime(this.#now()),
    });
  }

  /** The comparison of two objects at another manager's version, undefined if not served. */
  async #compareAt(
    before: JsonObject,
    after: JsonObject,
    apiVersion: string,
  ): Promise<Comparison | undefined> {
    const version = this.#o.view.versionOf(apiVersion);
    if (version === undefined) return undefined;
    const a = version === this.#o.version ? before : await this.#atAsync(before, version);
    const b = version === this.#o.version ? after : await this.#atAsync(after, version);
    const cmp = await this.#walk(compareSteps(a, b, this.#o.view.schema(version)));
    const ignored = this.#ignored(a, b);
    if (ignored.isEmpty()) return cmp;
    return {
      added: cmp.added.recursiveDifference(ignored),
      modified: cmp.modified.recursiveDifference(ignored),
      removed: cmp.removed.recursiveDifference(ignored),
    };
  }

  /**
   * Top-level fields this endpoint cannot change (the strategy resets them): status on the
   * main resource of a kind with a status subresource; everything but status and metadata on
   * the status subresource.
   */
  #ignored(...objects: JsonObject[]): FieldSet {
    const out = FieldSet.empty();
    if (this.#o.subresource === "" && this.#o.view.hasStatus) out.insert([{ field: "status" }]);
    if (this.#o.subresource === "status") {
      const keep = new Set(["status", "metadata", "apiVersion", "kind"]);
      for (const o of objects) for (const k of Object.keys(o)) if (!keep.has(k)) out.insert([{ field: k }]);
    }
    return out;
  }

  #at(object: JsonObject, version: string): JsonObject {
    if (object.apiVersion === this.#o.view.apiVersion(version)) return object;
    return this.#o.view.convert(object, version);
  }

  /** #at where the step may wait (the walks' own conversions cannot). */
  async #atAsync(object: JsonObject, version: string): Promise<JsonObject> {
    const { convertAsync } = this.#o.view;
    if (!convertAsync || object.apiVersion === this.#o.view.apiVersion(version))
      return this.#at(object, version);
    return convertAsync(object, version);
  }

  /** Fields of the last client-side apply whose live values are still the applied ones. */
  async #lastAppliedFields(liveAt: JsonObject): Promise<FieldSet | undefined> {
    const annotations = isObject(liveAt.metadata) ? liveAt.metadata.annotations : undefined;
    const text = isObject(annotations) ? annotations[this.#o.lastAppliedAnnotation] : undefined;
    if (typeof text !== "string" || text === "") return undefined;
    let last: unknown;
    try {
      last = JSON.parse(text);
    } catch {
      return undefined;
    }
    if (!isObject(last) || last.apiVersion !== this.#apiVersion) return undefined;
    try {
      const set = await runWalkSliced(toFieldSetSteps(last, this.#schema));
      const cmp = await runWalkSliced(compareSteps(last, liveAt, this.#schema));
      return set.difference(cmp.modified).difference(cmp.added).difference(cmp.removed);
    } catch {
      return undefined;
    }
  }

  /** kubectl's server-side apply keeps an existing client-side apply annotation current. */
  #syncLastApplied(object: JsonObject, config: JsonObject): void {
    const key = this.#o.lastAppliedAnnotation;
    const m = metaOf(object);
    const annotations = isObject(m.annotations) ? m.annotations : undefined;
    if (!annotations || typeof annotations[key] !== "string" || annotations[key] === "") return;
    const copy = cloneJson(config);
    if (isObject(copy.metadata) && isObject(copy.metadata.annotations)) {
      delete copy.metadata.annotations[key];
      if (Object.keys(copy.metadata.annotations).length === 0) delete copy.metadata.annotations;
    }
    annotations[key] = JSON.stringify(copy);
    let size = 0;
    for (const [k, v] of Object.entries(annotations)) size += k.length + String(v).length;
    if (size > MAX_ANNOTATIONS_BYTES) delete annotations[key];
  }

  /** At most `maxUpdateManagers` updaters: the oldest are folded into one entry per version. */
  #cap(managers: Managers): void {
    const max = this.#o.maxUpdateManagers ?? 10;
    const updaters = [...managers.entries()].filter(([, e]) => e.operation === "Update");
    if (updaters.length <= max) return;
    const secs = (e: ManagerEntry) => (e.time ? Math.floor(Date.parse(e.time) / 1000) || 0 : 0);
    updaters.sort(([ai, a], [bi, b]) => secs(a) - secs(b) || (ai < bi ? -1 : ai > bi ? 1 : 0));
    const firstByVersion = new Map<string, string>();
    let count = updaters.length;
    for (const [id, entry] of updaters) {
      if (count <= max) break;
      const bucket = identity({
        manager: ANCIENT_CHANGES,
        operation: "Update",
        apiVersion: entry.apiVersion,
        subresource: "",
      });
      const first = firstByVersion.get(entry.apiVersion);
      if (first === undefined) {
        firstByVersion.set(entry.apiVersion, id);
        continue;
      }
      let into = managers.get(bucket);
      if (!into) {
        const firstEntry = managers.get(first) as ManagerEntry;
        managers.delete(first);
        into = { ...firstEntry, manager: ANCIENT_CHANGES, subresource: "" };
      }
      managers.set(bucket, { ...into, set: into.set.union(entry.set), time: entry.time });
      managers.delete(id);
      count--;
    }
  }

  #now(): Date {
    return this.#o.now?.() ?? new Date();
  }

  /**
   * Typed-walk problems in what the client sent are its fault: 400. Walks run in slices, so a
   * large object does not hold other requests back for the whole walk.
   */
  async #walk<T>(steps: Steps<T>): Promise<T> {
    try {
      return await runWalkSliced(steps);
    } catch (err) {
      if (err instanceof Error && err.name === "TypedWalkError")
        throw new FieldManagerError(`failed to create typed patch object: ${err.message}`);
      throw err;
    }
  }
}
