// The status upstream's CRD controllers give a definition, computed in one step:
// - naming: each requested name (plural, singular, short names, kind, list kind) is accepted
//   unless another definition of the same group already holds it; NamesAccepted says which
//   conflicted (`PluralConflict`, ...) or `NoConflicts`; acceptedNames keeps the old accepted name
//   where the new one conflicts;
// - establishing: once the names are accepted, Established turns True (`InitialNamesAccepted`)
//   and stays so;
// - API approval: definitions in the product's own groups carry
//   KubernetesAPIApprovalPolicyConformant, from their approval annotation.
// - schema: a schema this server cannot serve (one stored past the nesting limit by an older
//   version) gets NonStructuralSchema with reason Violations, as upstream reports schemas it
//   cannot use; the condition goes once the schema is fixed.
// Other conditions (Terminating) and storedVersions are kept as they are.
import { asArray, asObject, asString, cloneJson, type JsonObject, jsonEqual } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import { apiApprovalState, isProtectedGroup } from "./crd-validation.ts";

export interface CrdStatusOptions {
  /** Time of the change, RFC 3339 (default: now, whole seconds). */
  readonly now?: string;
  /** For the API approval condition; without it the condition is left alone. */
  readonly naming?: Naming;
  /** Why the schema cannot be served (a field error's text); none when it can. */
  readonly schemaProblem?: string;
}

function nowText(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

function conditionsOf(status: JsonObject): JsonObject[] {
  return asArray(status.conditions).map((c) => asObject(c) ?? {});
}

/** Upstream's SetCRDCondition: replaces the condition of the same type; the time moves on a change. */
export function setCrdCondition(conditions: JsonObject[], next: JsonObject, now: string): void {
  const existing = conditions.find((c) => c.type === next.type);
  if (!existing) {
    const { type, status, reason, message } = next;
    conditions.push({ type, status, lastTransitionTime: now, reason, message });
    return;
  }
  if (existing.status !== next.status || asString(existing.lastTransitionTime) === "")
    existing.lastTransitionTime = now;
  existing.status = next.status;
  existing.reason = next.reason;
  existing.message = next.message;
}

function namesOf(value: unknown): JsonObject {
  return asObject(value) ?? {};
}

function strings(value: unknown): string[] {
  return asArray(value).map(asString);
}

/** The names upstream stores in acceptedNames (plural and kind always; the others when set). */
function acceptedNamesObject(n: {
  plural: string;
  singular: string;
  shortNames: string[];
  kind: string;
  listKind: string;
  categories: string[];
}): JsonObject {
  return {
    plural: n.plural,
    ...(n.singular !== "" ? { singular: n.singular } : {}),
    ...(n.shortNames.length > 0 ? { shortNames: n.shortNames } : {}),
    kind: n.kind,
    ...(n.listKind !== "" ? { listKind: n.listKind } : {}),
    ...(n.categories.length > 0 ? { categories: n.categories } : {}),
  };
}

function conflict(requested: string, accepted: string, used: ReadonlySet<string>): string | undefined {
  if (requested === accepted || !used.has(requested)) return undefined;
  return `${JSON.stringify(requested)} is already in use`;
}

/**
 * The status of `crd` once upstream's naming, establishing and API approval controllers have
 * looked at it. `existing` are the definitions already stored (any group; the CRD itself may be
 * among them, as in upstream's cache); their accepted names are the ones taken.
 */
export function crdStatus(
  crd: JsonObject,
  existing: readonly JsonObject[],
  options: CrdStatusOptions = {},
): JsonObject {
  const now = options.now ?? nowText();
  const spec = asObject(crd.spec) ?? {};
  const status = cloneJson(asObject(crd.status) ?? {});
  const conditions = conditionsOf(status);
  const group = asString(spec.group);
  const requested = namesOf(spec.names);
  const accepted = namesOf(status.acceptedNames);

  const namesEqual = jsonEqual(
    acceptedNamesObject({
      plural: asString(requested.plural),
      singular: asString(requested.singular),
      shortNames: strings(requested.shortNames),
      kind: asString(requested.kind),
      listKind: asString(requested.listKind),
      categories: strings(requested.categories),
    }),
    acceptedNamesObject({
      plural: asString(accepted.plural),
      singular: asString(accepted.singular),
      shortNames: strings(accepted.shortNames),
      kind: asString(accepted.kind),
      listKind: asString(accepted.listKind),
      categories: strings(accepted.categories),
    }),
  );

  if (!namesEqual) {
    const resources = new Set<string>();
    const kinds = new Set<string>();
    for (const other of existing) {
      if (asString(asObject(other.spec)?.group) !== group) continue;
      const names = namesOf(asObject(other.status)?.acceptedNames);
      resources.add(asString(names.plural));
      resources.add(asString(names.singular));
      for (const s of strings(names.shortNames)) resources.add(s);
      kinds.add(asString(names.kind));
      kinds.add(asString(names.listKind));
    }
    const next = {
      plural: asString(accepted.plural),
      singular: asString(accepted.singular),
      shortNames: strings(accepted.shortNames),
      kind: asString(accepted.kind),
      listKind: asString(accepted.listKind),
      categories: strings(requested.categories),
    };
    let reason = "";
    let message = "";
    const check = (name: keyof typeof next & string, why: string, used: ReadonlySet<string>): void => {
      const want = asString(requested[name]);
      const e = conflict(want, asString(accepted[name]), used);
      if (e) {
        reason = why;
        message = e;
      } else (next as Record<string, unknown>)[name] = want;
    };
    check("plural", "PluralConflict", resources);
    check("singular", "SingularConflict", resources);
    const wantShort = strings(requested.shortNames);
    if (!jsonEqual(wantShort, next.shortNames)) {
      const had = new Set(strings(accepted.shortNames));
      const errs: string[] = [];
      for (const s of wantShort) {
        if (had.has(s)) continue;
        const e = conflict(s, "", resources);
        if (e) errs.push(e);
      }
      if (errs.length > 0) {
        reason = "ShortNamesConflict";
        message = errs.length === 1 ? (errs[0] as string) : `[${errs.join(", ")}]`;
      } else next.shortNames = wantShort;
    }
    check("kind", "KindConflict", kinds);
    check("listKind", "ListKindConflict", kinds);
    status.acceptedNames = acceptedNamesObject(next);
    setCrdCondition(
      conditions,
      reason === ""
        ? { type: "NamesAccepted", status: "True", reason: "NoConflicts", message: "no conflicts found" }
        : { type: "NamesAccepted", status: "False", reason, message },
      now,
    );
    if (!conditions.some((c) => c.type === "Established"))
      setCrdCondition(
        conditions,
        {
          type: "Established",
          status: "False",
          reason: "NotAccepted",
          message: "not all names are accepted",
        },
        now,
      );
  }

  const namesAccepted = conditions.some((c) => c.type === "NamesAccepted" && c.status === "True");
  const established = conditions.some((c) => c.type === "Established" && c.status === "True");
  if (namesAccepted && !established)
    setCrdCondition(
      conditions,
      {
        type: "Established",
        status: "True",
        reason: "InitialNamesAccepted",
        message: "the initial names have been accepted",
      },
      now,
    );

  if (options.naming && isProtectedGroup(group, options.naming)) {
    const [state, reason] = apiApprovalState(asObject(asObject(crd.metadata)?.annotations), options.naming);
    const byState = {
      Invalid: ["False", "InvalidAnnotation"],
      Missing: ["False", "MissingAnnotation"],
      Approved: ["True", "ApprovedAnnotation"],
      Bypassed: ["False", "UnapprovedAnnotation"],
    } as const;
    const [s, r] = byState[state];
    setCrdCondition(
      conditions,
      { type: "KubernetesAPIApprovalPolicyConformant", status: s, reason: r, message: reason },
      now,
    );
  }

  const unservable = conditions.findIndex((c) => c.type === "NonStructuralSchema");
  if (options.schemaProblem !== undefined)
    setCrdCondition(
      conditions,
      { type: "NonStructuralSchema", status: "True", reason: "Violations", message: options.schemaProblem },
      now,
    );
  else if (unservable !== -1) conditions.splice(unservable, 1);

  // Upstream's field order: conditions, acceptedNames, storedVersions.
  const { conditions: _c, acceptedNames, storedVersions, ...rest } = status;
  return {
    conditions,
    ...(acceptedNames !== undefined ? { acceptedNames } : {}),
    ...(storedVersions !== undefined ? { storedVersions } : {}),
    ...rest,
  };
}
