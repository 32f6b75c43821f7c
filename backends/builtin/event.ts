// Event (core/v1). Requests through core/v1 get upstream's lenient legacy checks only: the
// event's namespace must agree with the involved object's, and events that carry an eventTime
// (new-style events) also need their reporting fields. Names are any path segment.

import { asObject, asString, type JsonObject, metadataOf } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import type { Strategy } from "../registry/strategy.ts";
import { byteLength, isDNS1123Subdomain, isQualifiedName } from "../validation/names.ts";
import { OBJECT_META_FIELDS } from "../validation/object-meta.ts";
import { timestampAge } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind, CORE_V1, column } from "./kind.ts";
import { OBJECT_REFERENCE_FIELDS } from "./serviceaccount.ts";

const REPORTING_INSTANCE_LENGTH_LIMIT = 128;
const ACTION_LENGTH_LIMIT = 128;
const REASON_LENGTH_LIMIT = 128;
const NOTE_LENGTH_LIMIT = 1024;
const DEFAULT_NAMESPACE = "default";

function isZeroTime(value: unknown): boolean {
  return value === undefined || value === null || value === "";
}

/** Upstream's legacy event checks (errors name internal fields, e.g. `reportingController`). */
export function validateLegacyEvent(event: JsonObject, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const namespace = asString(metadataOf(event).namespace);
  const involvedNamespace = asString(asObject(event.involvedObject)?.namespace);
  const mismatch = () =>
    field.invalid("involvedObject.namespace", involvedNamespace, "does not match event.namespace");
  if (isZeroTime(event.eventTime)) {
    if (involvedNamespace === "") {
      // Events about cluster-scoped objects live in no namespace or, for old clients, "default".
      if (namespace !== "" && namespace !== DEFAULT_NAMESPACE) errs.push(mismatch());
    } else if (namespace !== involvedNamespace) {
      errs.push(mismatch());
    }
  } else {
    if (involvedNamespace === "" && namespace !== DEFAULT_NAMESPACE && namespace !== naming.systemNamespace) {
      errs.push(mismatch());
    }
    const controller = asString(event.reportingComponent);
    if (controller === "") errs.push(field.required("reportingController"));
    for (const msg of isQualifiedName(controller))
      errs.push(field.invalid("reportingController", controller, msg));
    const limited = (path: string, value: string, limit: number) => {
      if (value === "") errs.push(field.required(path));
      if (byteLength(value) > limit)
        errs.push(field.invalid(path, "", `can have at most ${limit} characters`));
    };
    limited("reportingInstance", asString(event.reportingInstance), REPORTING_INSTANCE_LENGTH_LIMIT);
    limited("action", asString(event.action), ACTION_LENGTH_LIMIT);
    limited("reason", asString(event.reason), REASON_LENGTH_LIMIT);
    if (byteLength(asString(event.message)) > NOTE_LENGTH_LIMIT) {
      errs.push(field.invalid("message", "", `can have at most ${NOTE_LENGTH_LIMIT} characters`));
    }
  }
  for (const msg of isDNS1123Subdomain(namespace)) errs.push(field.invalid("namespace", namespace, msg));
  return errs;
}

/** The field-selector values of an event. */
function selectableFields(event: JsonObject): Record<string, string> {
  const involved = asObject(event.involvedObject) ?? {};
  const reportingComponent = asString(event.reportingComponent);
  return {
    "involvedObject.kind": asString(involved.kind),
    "involvedObject.namespace": asString(involved.namespace),
    "involvedObject.name": asString(involved.name),
    "involvedObject.uid": asString(involved.uid),
    "involvedObject.apiVersion": asString(involved.apiVersion),
    "involvedObject.resourceVersion": asString(involved.resourceVersion),
    "involvedObject.fieldPath": asString(involved.fieldPath),
    reason: asString(event.reason),
    reportingComponent,
    // New-style events name their source only as the reporting component.
    source: asString(asObject(event.source)?.component) || reportingComponent,
    type: asString(event.type),
  };
}

function firstSeen(event: JsonObject): string {
  return isZeroTime(event.firstTimestamp)
    ? timestampAge(event.eventTime)
    : timestampAge(event.firstTimestamp);
}

function lastSeen(event: JsonObject): string {
  const series = asObject(event.series);
  if (series) return timestampAge(series.lastObservedTime);
  return isZeroTime(event.lastTimestamp) ? firstSeen(event) : timestampAge(event.lastTimestamp);
}

function count(event: JsonObject): number {
  const series = asObject(event.series);
  if (series) return typeof series.count === "number" ? series.count : 0;
  // Events written through the newer API have no count: they happened once.
  return typeof event.count === "number" && event.count !== 0 ? event.count : 1;
}

function target(event: JsonObject): string {
  const involved = asObject(event.involvedObject) ?? {};
  const kind = asString(involved.kind).toLowerCase();
  const name = asString(involved.name);
  return name === "" ? kind : `${kind}/${name}`;
}

function source(event: JsonObject): string {
  const src = asObject(event.source) ?? {};
  const component = asString(src.component) || asString(event.reportingComponent);
  const instance = asString(src.host) || asString(event.reportingInstance);
  return instance === "" ? component : `${component}, ${instance}`;
}

export function eventKind(naming: Naming): BuiltinKind {
  const strategy: Strategy = {
    // Events are never garbage collected: a delete adds no collector finalizers.
    garbageCollectionPolicy: "Unsupported",
    validate: (object) => validateLegacyEvent(object, naming),
    validateUpdate: (object) => validateLegacyEvent(object, naming),
    fieldTypes: {
      involvedObject: "object",
      reason: "string",
      message: "string",
      type: "string",
      count: "int32",
      source: "object",
      firstTimestamp: "string",
      lastTimestamp: "string",
      eventTime: "string",
      series: "object",
      action: "string",
      related: "object",
      reportingComponent: "string",
      reportingInstance: "string",
    },
    nameRule: "path-segment",
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: OBJECT_META_FIELDS,
      involvedObject: OBJECT_REFERENCE_FIELDS,
      reason: true,
      message: true,
      source: { component: true, host: true },
      firstTimestamp: true,
      lastTimestamp: true,
      count: true,
      type: true,
      eventTime: true,
      series: { count: true, lastObservedTime: true },
      action: true,
      related: OBJECT_REFERENCE_FIELDS,
      reportingComponent: true,
      reportingInstance: true,
    },
  };
  return {
    schema: {
      group: "",
      versions: CORE_V1,
      plural: "events",
      singular: "event",
      kind: "Event",
      listKind: "EventList",
      shortNames: ["ev"],
      categories: [],
      namespaced: true,
      verbs: ALL_VERBS,
      subresources: [],
      // Recorders may PUT an event that does not exist yet.
      allowCreateOnUpdate: true,
      selectableFields,
      tableColumns: [
        column("Last Seen", "Time since the event was last observed.", lastSeen),
        column("Type", "Normal or Warning.", (e) => asString(e.type)),
        column("Reason", "Short machine-readable cause of the event.", (e) => asString(e.reason)),
        column("Object", "The object the event is about, as kind/name.", target),
        column(
          "Subobject",
          "The part of the object the event is about.",
          (e) => asString(asObject(e.involvedObject)?.fieldPath),
          1,
        ),
        column("Source", "The component (and host) that reported the event.", source, 1),
        column("Message", "Human-readable description.", (e) => asString(e.message).trim()),
        column("First Seen", "Time since the event was first observed.", firstSeen, 1),
        column("Count", "How many times the event was observed.", count, 1),
      ],
    },
    strategy,
  };
}
