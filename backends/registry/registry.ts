// The generic store of one resource (DESIGN.md, "One request", step 4): the object lifecycle on
// top of Storage for writes and the watch cache for reads. Writes read the current object from
// storage, apply the caller's transform and the kind's strategy, and compare-and-swap on its
// revision, retrying on a revision conflict.
import { randomInt, randomUUID } from "node:crypto";
import type {
  CachedItem,
  CacheListRequest,
  CacheListResult,
  Cacher,
  CacheWatcher,
  CacheWatchRequest,
} from "../cacher/index.ts";
import { LARGE_OBJECT_CHARS, turnIf } from "../common/turn.ts";
import { ConflictError, isStorageError, type Storage, type StoredValue } from "../contract/index.ts";
import { namespacePrefix, objectKey, type ResourceSchema, storageVersion } from "../schema/index.ts";
import { OBJECT_META_TYPES, typeMismatch } from "../validation/json-types.ts";
import {
  carryOverMetadata,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "../validation/object-meta.ts";
import { nestingErrors } from "./depth.ts";
import { RegistryError, type ResourceIdentity } from "./errors.ts";
import type { FieldError } from "./field-error.ts";
import { metaTimeError } from "./meta-time.ts";
import type { JsonObject, Requester, Strategy } from "./strategy.ts";

export interface WriteOptions {
  readonly dryRun?: boolean;
  /**
   * Runs on the object about to be written, after the kind's preparation and defaults and
   * before validation, with the stored object it replaces (undefined on create): the field
   * manager records ownership here, so that what it records is what is stored.
   */
  readonly track?: (object: JsonObject, old: JsonObject | undefined) => Promise<void> | void;
  /**
   * The validating admission phase: runs after the kind's own validation, against the object
   * about to be written and the stored one it replaces (on delete: no object, the stored one),
   * inside the retry loop so it always sees the current object; throws to refuse.
   */
  readonly admission?: (object: JsonObject | undefined, old: JsonObject | undefined) => Promise<void>;
  /** Who writes: given to the kind's preparation on create. */
  readonly requester?: Requester;
  /** The request body was large (LARGE_OBJECT_CHARS): other requests get turns between steps. */
  readonly large?: boolean;
}

export interface UpdateOptions extends WriteOptions {
  /** Create the object when it is missing (PUT on kinds that allow it); default per kind. */
  readonly createIfMissing?: boolean;
  /** Write through a subresource's strategy (`status`, `finalize`). */
  readonly subresource?: string;
}

export interface DeleteOptions extends WriteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /** The grace period the request asks for (kinds with graceful deletion). */
  readonly gracePeriodSeconds?: number;
  /** How the garbage collector treats dependents: Orphan, Background or Foreground. */
  readonly propagationPolicy?: string;
  /** The deprecated form of the policy: true is Orphan, false Background. */
  readonly orphanDependents?: boolean;
}

export interface WriteResult {
  /** The object as stored (or as it would be, for a dry run), resourceVersion filled in. */
  readonly object: JsonObject;
  readonly created: boolean;
}

export interface DeleteResult {
  readonly object: JsonObject;
  /** False when the object only got a deletionTimestamp and waits for its finalizers. */
  readonly removed: boolean;
}

/** Turns the current object (undefined when absent) into the desired one. */
/**
 * Makes the object to write from the current one; `large` says the object is large enough that
 * its steps should give the event loop turns (see backends/common/turn.ts).
 */
export type Transform = (
  current: JsonObject | undefined,
  context: { readonly large: boolean },
) => JsonObject | Promise<JsonObject>;

interface Metadata {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  finalizers?: string[];
  [field: string]: unknown;
}

// Revision conflicts from other writers are retried; each retry means another write won.
const MAX_CONFLICT_RETRIES = 500;
const GENERATE_NAME_ATTEMPTS = 8;
// Upstream's alphabet for generated name suffixes: no vowels, no look-alike characters.
const SUFFIX_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

function meta(object: JsonObject): Metadata {
  let m = object.metadata as Metadata | undefined;
  if (typeof m !== "object" || m === null || Array.isArray(m)) {
    m = {};
    object.metadata = m;
  }
  return m;
}

function now(offsetSeconds = 0): string {
  return new Date(Date.now() + offsetSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Everything but metadata and status: what a change of generation is about. */
function specOf(object: JsonObject): string {
  const { metadata: _m, status: _s, ...rest } = object;
  return JSON.stringify(rest);
}

export class Registry {
  readonly schema: ResourceSchema;
  readonly strategy: Strategy;
  readonly identity: ResourceIdentity;
  readonly subresources: Readonly<Record<string, Strategy>>;
  readonly #storage: Storage;
  readonly #cacher: Cacher;

  constructor(options: {
    schema: ResourceSchema;
    strategy: Strategy;
    subresources?: Readonly<Record<string, Strategy>>;
    storage: Storage;
    cacher: Cacher;
  }) {
    this.schema = options.schema;
    this.strategy = options.strategy;
    this.subresources = options.subresources ?? {};
    this.#storage = options.storage;
    this.#cacher = options.cacher;
    this.identity = {
      group: options.schema.group,
      resource: options.schema.plural,
      kind: options.schema.kind,
    };
  }

  get cacher(): Cacher {
    return this.#cacher;
  }

  key(namespace: string | undefined, name: string): string {
    return objectKey(this.schema, this.schema.namespaced ? namespace : undefined, name);
  }

  /** The key range of a namespace's objects (all objects when namespace is empty). */
  prefix(namespace: string | undefined): string {
    return namespacePrefix(this.schema, this.schema.namespaced ? namespace : undefined);
  }

  #error(
    reason: RegistryError["reason"],
    name: string,
    message: string,
    causes?: readonly FieldError[],
  ): RegistryError {
    return new RegistryError(reason, this.identity, name, message, causes);
  }

  notFound(name: string): RegistryError {
    return this.#error("NotFound", name, `${this.schema.plural} "${name}" not found`);
  }

  #invalid(name: string, causes: readonly FieldError[]): RegistryError {
    return this.#error("Invalid", name, `${this.schema.kind} "${name}" is invalid`, causes);
  }

  #decode(kv: StoredValue): JsonObject {
    const object = JSON.parse(kv.value) as JsonObject;
    meta(object).resourceVersion = String(kv.modRevision);
    return object;
  }

  #encode(object: JsonObject): string {
    const m = meta(object);
    const rv = m.resourceVersion;
    delete m.resourceVersion;
    const text = JSON.stringify(object);
    if (rv !== undefined) m.resourceVersion = rv;
    return text;
  }

  // ---- reads (through the watch cache) ---------------------------------------------------

  async get(namespace: string | undefined, name: string, resourceVersion?: string): Promise<CachedItem> {
    const item = await this.#cacher.get(this.key(namespace, name), resourceVersion);
    if (!item) throw this.notFound(name);
    return item;
  }

  list(namespace: string | undefined, req: Omit<CacheListRequest, "keyPrefix">): Promise<CacheListResult> {
    return this.#cacher.list({ ...req, keyPrefix: this.prefix(namespace) });
  }

  watch(namespace: string | undefined, req: Omit<CacheWatchRequest, "keyPrefix">): Promise<CacheWatcher> {
    return this.#cacher.watch({ ...req, keyPrefix: this.prefix(namespace) });
  }

  // ---- writes ----------------------------------------------------------------------------

  /** Server-owned fields of a new object; the kind's preparation runs once the name is known. */
  #prepareCreate(object: JsonObject, namespace: string | undefined): Metadata {
    const m = meta(object);
    this.matchNamespace(object, namespace);
    if (m.resourceVersion) {
      throw this.#error(
        "BadRequest",
        m.name ?? "",
        "resourceVersion should not be set on objects to be created",
      );
    }
    delete m.deletionTimestamp;
    delete m.deletionGracePeriodSeconds;
    for (const f of this.strategy.defaultFinalizers ?? []) {
      m.finalizers ??= [];
      if (!m.finalizers.includes(f)) m.finalizers.push(f);
    }
    if (this.strategy.tracksGeneration) m.generation = 1;
    m.uid = randomUUID();
    m.creationTimestamp = now();
    return m;
  }

  /**
   * A body's namespace against the request's, as upstream checks it on every write: an empty one
   * takes the request's, a cluster-scoped object has none, another one is a 400. A value of
   * another type is left to the type check.
   */
  matchNamespace(object: JsonObject, namespace: string | undefined): void {
    const m = object.metadata as Metadata | undefined;
    if (typeof m !== "object" || m === null || Array.isArray(m)) return;
    if (!this.schema.namespaced) delete m.namespace;
    else if (m.namespace === undefined || m.namespace === null || m.namespace === "") {
      if (namespace) m.namespace = namespace;
    } else if (typeof m.namespace === "string" && namespace && m.namespace !== namespace) {
      throw this.#error(
        "BadRequest",
        m.name ?? "",
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
  }

  #validateCreate(object: JsonObject, m: Metadata): void {
    const tooDeep = nestingErrors(object);
    if (tooDeep.length > 0) throw this.#invalid(m.name || m.generateName || "", tooDeep);
    const causes: FieldError[] = [
      ...validateObjectMeta(m, {
        namespaced: this.schema.namespaced,
        nameRule: this.strategy.nameRule ?? "dns-subdomain",
      }),
      ...(this.strategy.typed?.validate(object) ?? []),
      ...(this.strategy.validate?.(object) ?? []),
    ];
    if (causes.length > 0) throw this.#invalid(m.name || m.generateName || "", causes);
  }

  async create(
    namespace: string | undefined,
    body: JsonObject,
    options: WriteOptions = {},
  ): Promise<WriteResult> {
    this.#checkTypes(body);
    this.#normalize(body);
    const m = this.#prepareCreate(body, namespace);
    const generated = !m.name && typeof m.generateName === "string" && m.generateName !== "";
    for (let attempt = 0; ; attempt++) {
      if (generated) {
        let suffix = "";
        for (let i = 0; i < 5; i++) suffix += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
        m.name = `${(m.generateName as string).slice(0, 63 - 5)}${suffix}`;
      }
      const large = options.large === true;
      // Kind preparation is idempotent, so a retry with a new generated name may run it again.
      this.strategy.prepareForCreate?.(body, options.requester);
      // Defaults again over what preparation reset, as upstream's read back from storage does.
      this.strategy.typed?.default(body);
      await options.track?.(body, undefined);
      await turnIf(large);
      this.#validateCreate(body, m);
      await turnIf(large);
      await options.admission?.(body, undefined);
      const name = m.name as string;
      const settle = await this.#allocate(this.strategy, body, undefined, name);
      let stored: number | undefined;
      try {
        if (options.dryRun) {
          if (await this.#storage.get(this.key(m.namespace, name))) {
            if (generated && attempt < GENERATE_NAME_ATTEMPTS) continue;
            throw this.#error("AlreadyExists", name, `${this.schema.plural} "${name}" already exists`);
          }
          return { object: body, created: true };
        }
        await turnIf(large);
        try {
          const kv = await this.#storage.create(this.key(m.namespace, name), this.#encode(body));
          stored = kv.modRevision;
          m.resourceVersion = String(kv.modRevision);
          return { object: body, created: true };
        } catch (err) {
          if (!isStorageError(err, "AlreadyExists")) throw err;
          if (generated && attempt < GENERATE_NAME_ATTEMPTS) continue;
          throw this.#error("AlreadyExists", name, `${this.schema.plural} "${name}" already exists`);
        }
      } finally {
        await settle(stored);
      }
    }
  }

  /**
   * Replace an object with what `transform` makes of the current one, retrying when another
   * write lands in between. A resourceVersion in the result is a precondition. When the object
   * is missing and the kind allows it (or `createIfMissing`), the result is created instead.
   */
  async update(
    namespace: string | undefined,
    name: string,
    transform: Transform,
    options: UpdateOptions = {},
  ): Promise<WriteResult> {
    const key = this.key(namespace, name);
    const strategy = options.subresource ? this.subresources[options.subresource] : this.strategy;
    if (!strategy)
      throw this.#error("MethodNotSupported", name, `update of ${this.schema.plural}/${options.subresource}`);
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const current = await this.#storage.get(key);
      if (!current) {
        if (options.subresource || !(options.createIfMissing ?? this.schema.allowCreateOnUpdate))
          throw this.notFound(name);
        const object = await transform(undefined, { large: options.large === true });
        this.matchNamespace(object, namespace);
        this.#checkUrlName(object, name);
        const m = meta(object);
        delete m.resourceVersion;
        try {
          return await this.create(namespace, object, options);
        } catch (err) {
          // Someone created it meanwhile: update that one instead.
          if (err instanceof RegistryError && err.reason === "AlreadyExists") continue;
          throw err;
        }
      }
      const large = options.large === true || current.value.length >= LARGE_OBJECT_CHARS;
      await turnIf(large);
      const old = this.#decode(current);
      await turnIf(large);
      // A second decode, not structuredClone: that recurses, and objects stored before the depth
      // limit may be too deep for it.
      const mine = this.#decode(current);
      await turnIf(large);
      const object = await transform(mine, { large });
      await turnIf(large);
      this.#checkTypes(object);
      this.#normalize(object);
      const m = meta(object);
      const om = meta(old);
      this.matchNamespace(object, namespace);
      this.#checkUrlName(object, name);
      if (m.resourceVersion && m.resourceVersion !== om.resourceVersion) {
        throw this.#error(
          "Conflict",
          name,
          "the object has been modified; please apply your changes to the latest version and try again",
        );
      }
      if (m.uid && m.uid !== om.uid) {
        throw this.#error(
          "Conflict",
          name,
          `Precondition failed: UID in precondition: ${m.uid}, UID in object meta: ${om.uid}`,
        );
      }
      this.#carryOver(object, old);
      strategy.prepareForUpdate?.(object, old);
      this.strategy.typed?.default(object);
      if (strategy.tracksGeneration) {
        m.generation = (om.generation ?? 1) + (specOf(object) !== specOf(old) ? 1 : 0);
      }
      await options.track?.(object, old);
      await turnIf(large);
      const tooDeep = nestingErrors(object, old);
      if (tooDeep.length > 0) throw this.#invalid(name, tooDeep);
      const causes = [
        ...validateObjectMetaUpdate(m, om, { requireResourceVersion: false }),
        ...(this.strategy.typed?.validateUpdate(object, old) ?? []),
        // validateUpdate holds every rule of an update; validate is for creates.
        ...(strategy.validateUpdate
          ? strategy.validateUpdate(object, old)
          : options.subresource
            ? []
            : (strategy.validate?.(object) ?? [])),
      ];
      if (causes.length > 0) throw this.#invalid(name, causes);
      await turnIf(large);
      await options.admission?.(object, old);
      const settle = await this.#allocate(strategy, object, old, name);
      let stored: number | undefined;
      try {
        // The last finalizer of an object being deleted is gone: remove it for good, unless it
        // waits out a grace period (a kubelet's delete removes it then).
        if (
          om.deletionTimestamp &&
          this.#pending(object).length === 0 &&
          this.#pending(old).length > 0 &&
          !((om.deletionGracePeriodSeconds ?? 0) > 0)
        ) {
          if (options.dryRun) return { object, created: false };
          try {
            const removed = await this.#storage.delete(key, current.modRevision);
            await this.strategy.afterDelete?.(object, this.#storage);
            stored = removed.revision;
            m.resourceVersion = String(removed.revision);
            return { object, created: false };
          } catch (err) {
            if (err instanceof ConflictError) continue;
            throw err;
          }
        }
        m.resourceVersion = om.resourceVersion;
        await turnIf(large);
        const encoded = this.#encode(object);
        if (options.dryRun) return { object, created: false };
        // A value read through an older key is rewritten even when unchanged (key rotation).
        if (encoded === current.value && !current.stale) {
          stored = current.modRevision;
          return { object, created: false };
        }
        try {
          const kv = await this.#storage.update(key, encoded, current.modRevision);
          stored = kv.modRevision;
          m.resourceVersion = String(kv.modRevision);
          return { object, created: false };
        } catch (err) {
          // Another write won: read again. A client's stale resourceVersion fails the check above.
          if (!(err instanceof ConflictError)) throw err;
        }
      } finally {
        await settle(stored);
      }
    }
    throw this.#error(
      "Conflict",
      name,
      "the object has been modified; please apply your changes to the latest version and try again",
    );
  }

  #checkUrlName(object: JsonObject, name: string): void {
    const m = meta(object);
    if (m.name === undefined || m.name === "") m.name = name;
    if (m.name !== name) {
      throw this.#error(
        "BadRequest",
        name,
        `the name of the object (${m.name}) does not match the name on the URL (${name})`,
      );
    }
  }

  /** Fields the server owns are kept from the stored object whatever the body says. */
  #carryOver(object: JsonObject, old: JsonObject): void {
    const m = meta(object);
    const om = meta(old);
    carryOverMetadata(m, om);
    m.namespace = om.namespace;
    if (!this.schema.namespaced) delete m.namespace;
    if (!om.deletionTimestamp) {
      delete m.deletionTimestamp;
      delete m.deletionGracePeriodSeconds;
    }
  }

  /** Runs the kind's allocation; the function returned is told how the write ended. */
  async #allocate(
    strategy: Strategy,
    object: JsonObject,
    old: JsonObject | undefined,
    name: string,
  ): Promise<(revision: number | undefined) => Promise<void>> {
    if (!strategy.allocate) return async () => {};
    const { causes, settle } = await strategy.allocate(object, old, this.#storage);
    if (causes.length > 0) {
      await settle(undefined);
      throw this.#invalid(name, causes);
    }
    return settle;
  }

  /**
   * A body as decoding leaves it (types checked, unknown fields dropped, defaults filled in), for
   * mutating admission to see what the registry will store; the registry does it again itself.
   */
  decoded(object: JsonObject): JsonObject {
    this.#checkTypes(object);
    this.#normalize(object);
    return object;
  }

  /**
   * What decoding does to a typed kind's body besides the type check: unknown fields go (the
   * handlers have already reported them per fieldValidation; this covers patched and transformed
   * objects) and defaults are filled in.
   */
  #normalize(object: JsonObject): void {
    const typed = this.strategy.typed;
    if (!typed) return;
    typed.prune(object);
    typed.default(object);
  }

  /** A value of the wrong JSON type is a 400 before anything else looks at the object. */
  #checkTypes(object: JsonObject): void {
    const typed = this.strategy.typed;
    const problem =
      (typed
        ? typed.decodeError(object)
        : (typeMismatch(object, this.schema.kind, OBJECT_META_TYPES) ??
          (this.strategy.fieldTypes
            ? typeMismatch(object, this.schema.kind, this.strategy.fieldTypes)
            : undefined))) ?? metaTimeError(object);
    if (problem) {
      const name =
        typeof object.metadata === "object" && object.metadata
          ? String((object.metadata as Metadata).name ?? "")
          : "";
      throw this.#error(
        "BadRequest",
        name,
        `${this.schema.kind} in version "${storageVersion(this.schema).name}" cannot be handled as a ${this.schema.kind}: ${problem}`,
      );
    }
  }

  /**
   * Graceful deletion, as upstream's BeforeDelete: a first delete of a kind that has it marks the
   * object with the strategy's grace period; a later one may only shorten the period (moving
   * deletionTimestamp back by the difference) and is otherwise pending. Kinds without it, and
   * objects already marked with no grace period left, are neither.
   */
  #beforeDelete(object: JsonObject, requested: number | undefined): { graceful: boolean; pending: boolean } {
    const check = this.strategy.checkGracefulDelete;
    if (!check) return { graceful: false, pending: false };
    const m = meta(object);
    if (requested !== undefined && requested < 0) requested = 1;
    if (m.deletionTimestamp) {
      let current = m.deletionGracePeriodSeconds;
      if (current !== undefined && current < 0) current = 1;
      if (current === undefined || current === 0) return { graceful: false, pending: false };
      if (requested === undefined || requested >= current) return { graceful: false, pending: true };
      const at = Date.parse(m.deletionTimestamp);
      const shifted = new Date((Number.isNaN(at) ? Date.now() : at) + (requested - current) * 1000);
      m.deletionTimestamp = shifted.toISOString().replace(/\.\d{3}Z$/, "Z");
      m.deletionGracePeriodSeconds = requested;
      return { graceful: true, pending: false };
    }
    const period = check(object, requested);
    m.deletionTimestamp = now(period);
    m.deletionGracePeriodSeconds = period;
    // Controllers of an object being deleted should stop acting on it: a new generation says so.
    if (typeof m.generation === "number" && m.generation > 0) m.generation += 1;
    return { graceful: true, pending: false };
  }

  #pending(object: JsonObject): readonly string[] {
    return this.strategy.pendingFinalizers?.(object) ?? meta(object).finalizers ?? [];
  }

  async delete(
    namespace: string | undefined,
    name: string,
    options: DeleteOptions = {},
  ): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    for (let attempt = 0; attempt < MAX_CONFLICT_RETRIES; attempt++) {
      const current = await this.#storage.get(key);
      if (!current) throw this.notFound(name);
      const object = this.#decode(current);
      const m = meta(object);
      const pre = options.preconditions;
      if (pre?.uid && pre.uid !== m.uid) {
        throw this.#error(
          "Conflict",
          name,
          `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${m.uid}`,
        );
      }
      if (pre?.resourceVersion && pre.resourceVersion !== m.resourceVersion) {
        throw this.#error(
          "Conflict",
          name,
          `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${m.resourceVersion}`,
        );
      }
      await options.admission?.(undefined, object);
      const { graceful, pending } = this.#beforeDelete(object, options.gracePeriodSeconds);
      // Already waiting out a grace period no shorter than the one asked for: the policy
      // cannot change either.
      if (pending) return { object, removed: false };
      const gcFinalizers = deletionFinalizers(this.strategy.garbageCollectionPolicy, m.finalizers, options);
      if (gcFinalizers) {
        if (gcFinalizers.length > 0) m.finalizers = gcFinalizers;
        else delete m.finalizers;
      }
      if (this.#pending(object).length > 0 || (graceful && (m.deletionGracePeriodSeconds ?? 0) > 0)) {
        // Finalizers or a grace period hold the object: mark it as being deleted.
        if (!graceful) {
          // A second delete only writes when it changes the collector's finalizers.
          if (m.deletionTimestamp && !gcFinalizers) return { object, removed: false };
          if (!m.deletionTimestamp && typeof m.generation === "number" && m.generation > 0) m.generation += 1;
          const at = now();
          if (!m.deletionTimestamp || Date.parse(m.deletionTimestamp) > Date.parse(at))
            m.deletionTimestamp = at;
          m.deletionGracePeriodSeconds = 0;
        }
        this.strategy.prepareForDelete?.(object);
        if (options.dryRun) return { object, removed: false };
        try {
          const kv = await this.#storage.update(key, this.#encode(object), current.modRevision);
          m.resourceVersion = String(kv.modRevision);
          return { object, removed: false };
        } catch (err) {
          if (err instanceof ConflictError) continue;
          throw err;
        }
      }
      if (options.dryRun) return { object, removed: true };
      try {
        await this.#storage.delete(key, current.modRevision);
        await this.strategy.afterDelete?.(object, this.#storage);
        return { object, removed: true };
      } catch (err) {
        if (err instanceof ConflictError) continue;
        if (isStorageError(err, "NotFound")) throw this.notFound(name);
        throw err;
      }
    }
    throw this.#error(
      "Conflict",
      name,
      "the object has been modified; please apply your changes to the latest version and try again",
    );
  }
}

export const FINALIZER_ORPHAN = "orphan";
export const FINALIZER_FOREGROUND = "foregroundDeletion";

/**
 * The garbage collector's finalizers a delete leaves on the object, as upstream's registry picks
 * them: the request's policy (orphanDependents, then propagationPolicy) wins, then a finalizer the
 * object already has, then the kind's default (Orphan for a few kinds, else Background, which
 * needs no finalizer). Undefined when the finalizers stay as they are.
 */
export function deletionFinalizers(
  kindPolicy: Strategy["garbageCollectionPolicy"],
  finalizers: readonly string[] | undefined,
  options: { readonly propagationPolicy?: string; readonly orphanDependents?: boolean },
): string[] | undefined {
  if (kindPolicy === "Unsupported") return undefined;
  const current = finalizers ?? [];
  const firstGc = current.find((f) => f === FINALIZER_ORPHAN || f === FINALIZER_FOREGROUND);
  let policy: "Orphan" | "Foreground" | "Background";
  if (options.orphanDependents !== undefined) policy = options.orphanDependents ? "Orphan" : "Background";
  else if (
    options.propagationPolicy === "Orphan" ||
    options.propagationPolicy === "Foreground" ||
    options.propagationPolicy === "Background"
  )
    policy = options.propagationPolicy;
  else if (firstGc === FINALIZER_ORPHAN) policy = "Orphan";
  else if (firstGc === FINALIZER_FOREGROUND) policy = "Foreground";
  else policy = kindPolicy === "OrphanDependents" ? "Orphan" : "Background";
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (policy === "Orphan") next.push(FINALIZER_ORPHAN);
  if (policy === "Foreground") next.push(FINALIZER_FOREGROUND);
  const same = new Set(next).size === new Set(current).size && next.every((f) => current.includes(f));
  return same ? undefined : next;
}
