// What a kind adds to the generic object lifecycle: preparation, validation and a few switches.
// Objects are plain JSON values; strategies mutate the object they are given.
import type { Storage } from "../contract/index.ts";
import type { FieldTypes } from "../validation/json-types.ts";
import type { FieldError } from "./field-error.ts";

export type JsonObject = Record<string, unknown>;

/**
 * What a kind's typed schema (the built-in catalog or a CRD) does to a request body, in this
 * order: the JSON type check (a 400), pruning of unknown fields (for `fieldValidation`),
 * defaulting, then schema validation alongside the strategy's own rules.
 */
export interface TypedSchema {
  /** Upstream's decoder message for the first value of the wrong JSON type, or undefined. */
  decodeError(object: JsonObject): string | undefined;
  /** Removes unknown fields and nulls that mean "unset"; returns the unknown fields' paths. */
  prune(object: JsonObject): string[];
  default(object: JsonObject): void;
  validate(object: JsonObject): FieldError[];
  validateUpdate(object: JsonObject, old: JsonObject): FieldError[];
}

/** Who makes a write, as authenticated (and impersonated): a CSR records its requester. */
export interface Requester {
  readonly username: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

export interface Strategy {
  /** The kind's schema; absent for kinds described only by their hooks. */
  readonly typed?: TypedSchema;
  /** Fill server-owned fields on create (e.g. a Namespace's phase; a CSR's requester). */
  prepareForCreate?(object: JsonObject, requester?: Requester): void;
  /** Carry over or reset fields on update (e.g. keep status on the main resource). */
  prepareForUpdate?(object: JsonObject, old: JsonObject): void;
  /** Rules on create (and on updates when there is no `validateUpdate`). */
  validate?(object: JsonObject): FieldError[];
  /** Every rule of an update, those shared with create included. */
  validateUpdate?(object: JsonObject, old: JsonObject): FieldError[];
  /**
   * Work that takes shared state in the store, after validation (a Service's cluster IP and node
   * ports); problems are field errors. `settle` is called once the write is over: with the
   * revision it was stored at, or without one when nothing was stored (a dry run, a failure).
   */
  allocate?(object: JsonObject, old: JsonObject | undefined, storage: Storage): Promise<Allocation>;
  /** The object is gone from the store: give back what `allocate` took for it. */
  afterDelete?(object: JsonObject, storage: Storage): Promise<void>;
  /** `metadata.generation` starts at 1 and grows when anything but metadata and status changes. */
  readonly tracksGeneration?: boolean;
  /** DELETE answers with the object rather than a Success Status. */
  readonly returnDeletedObject?: boolean;
  /** How names are checked: DNS subdomain (most kinds), DNS label, or any path segment. */
  readonly nameRule?: "dns-subdomain" | "dns-label" | "dns-1035-label" | "path-segment";
  /**
   * The garbage collection policy a delete that names none gets (upstream's
   * DefaultGarbageCollectionPolicy): Orphan for kinds kept for compatibility, Unsupported for
   * kinds the collector never handles (Events); absent means Background.
   */
  readonly garbageCollectionPolicy?: "OrphanDependents" | "Unsupported";
  /** Finalizers the server adds on create. */
  readonly defaultFinalizers?: readonly string[];
  /**
   * What still holds a deleted object (default: `metadata.finalizers`); a Namespace adds its
   * `spec.finalizers`. The object is removed once this is empty.
   */
  pendingFinalizers?(object: JsonObject): readonly string[];
  /** Changes made when deletion starts (a Namespace turns Terminating). */
  prepareForDelete?(object: JsonObject): void;
  /**
   * Kinds deleted gracefully (Pods): the grace period for a first delete of `object`, given the
   * one the request asks for. A positive period leaves the object in place, marked with
   * deletionTimestamp and deletionGracePeriodSeconds, until a delete with a shorter period (0:
   * remove) comes; 0 removes it at once (or once its finalizers are done).
   */
  checkGracefulDelete?(object: JsonObject, requestedSeconds: number | undefined): number;
  /**
   * The fields a body may carry, as a tree (`true` = any value below). Unknown fields are dropped,
   * warned about or refused per `fieldValidation`. Absent: every field is known.
   */
  readonly knownFields?: KnownFields;
  /** JSON types of the kind's own scalar fields (metadata's are checked for every kind). */
  readonly fieldTypes?: FieldTypes;
}

/**
 * A tree of known fields. `true` accepts anything below; the key `"[]"` describes the elements of
 * an array and `"*"` the values of a map with free-form keys.
 */
export interface KnownFields {
  readonly [field: string]: KnownFields | true;
}

/** What an allocation found wrong, and how to tell it the outcome of the write. */
export interface Allocation {
  readonly causes: readonly FieldError[];
  settle(revision: number | undefined): Promise<void>;
}
