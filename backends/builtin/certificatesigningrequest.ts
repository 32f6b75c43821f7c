// CertificateSigningRequest (certificates.<domain>/v1, cluster-scoped). The server records who
// asked on create and starts it without status; afterwards the main resource never changes spec or
// status, `approval` changes only the conditions, and `status` everything in status but the
// Approved and Denied conditions (upstream's strategy). Rules: validation/certificates.ts.
import { asArray, asObject, asString, cloneJson, type JsonObject } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { Requester, Strategy } from "../registry/strategy.ts";
import { certificatesColumns } from "./columns/certificates.ts";
import { ALL_VERBS, type BuiltinKind } from "./kind.ts";
import { validateCertificateSigningRequestUpdate } from "./validation/certificates.ts";

function now(): string {
  return `${new Date().toISOString().slice(0, 19)}Z`;
}

function conditions(csr: JsonObject): JsonObject[] {
  return asArray(asObject(csr.status)?.conditions).map((c) => asObject(c) ?? {});
}

function keep(object: JsonObject, old: JsonObject, key: string): void {
  if (old[key] === undefined) delete object[key];
  else object[key] = cloneJson(old[key]);
}

/** Conditions of `type` keep their stored values when the update neither adds nor removes one. */
function preserveConditions(object: JsonObject, old: JsonObject, type: string): void {
  const mine = conditions(object);
  const theirs = conditions(old).filter((c) => c.type === type);
  const at = mine.flatMap((c, i) => (c.type === type ? [i] : []));
  if (at.length !== theirs.length) return;
  const status = asObject(object.status);
  if (!status) return;
  status.conditions = mine.map((c, i) => (at.includes(i) ? cloneJson(theirs[at.indexOf(i)] ?? c) : c));
}

/** lastUpdateTime when missing; lastTransitionTime kept from a stored condition of the same type and status. */
function stampConditions(object: JsonObject, old: JsonObject): void {
  const t = now();
  for (const c of conditions(object)) {
    if (!c.lastUpdateTime) c.lastUpdateTime = t;
    if (!c.lastTransitionTime) {
      const same = conditions(old).find(
        (o) => o.type === c.type && o.status === c.status && typeof o.lastTransitionTime === "string",
      );
      c.lastTransitionTime = same?.lastTransitionTime ?? t;
    }
  }
}

function fillRequester(object: JsonObject, requester: Requester | undefined): void {
  const spec = asObject(object.spec);
  if (!spec) return;
  // Whatever the client sent there is replaced by who it is.
  delete spec.username;
  delete spec.uid;
  delete spec.groups;
  delete spec.extra;
  if (requester) {
    if (requester.username) spec.username = requester.username;
    if (requester.uid) spec.uid = requester.uid;
    if (requester.groups.length > 0) spec.groups = [...requester.groups];
    const extra = Object.entries(requester.extra);
    if (extra.length > 0) spec.extra = Object.fromEntries(extra.map(([k, v]) => [k, [...v]]));
  }
}

export function certificateSigningRequestKind(naming: Naming): BuiltinKind {
  const strategy: Strategy = {
    prepareForCreate(object, requester) {
      fillRequester(object, requester);
      // No pre-approved (or pre-signed) requests.
      object.status = {};
    },
    prepareForUpdate(object, old) {
      keep(object, old, "spec");
      keep(object, old, "status");
    },
    nameRule: "path-segment",
  };
  const status: Strategy = {
    prepareForUpdate(object, old) {
      keep(object, old, "spec");
      preserveConditions(object, old, "Approved");
      preserveConditions(object, old, "Denied");
      stampConditions(object, old);
    },
    validateUpdate: (object, old) =>
      validateCertificateSigningRequestUpdate(object, old, naming, { status: true }),
    nameRule: "path-segment",
  };
  const approval: Strategy = {
    prepareForUpdate(object, old) {
      stampConditions(object, old);
      const mine = asObject(object.status)?.conditions;
      keep(object, old, "spec");
      keep(object, old, "status");
      if (mine === undefined) {
        const s = asObject(object.status);
        if (s) delete s.conditions;
      } else {
        const s = asObject(object.status) ?? {};
        s.conditions = mine;
        object.status = s;
      }
    },
    validateUpdate: (object, old) =>
      validateCertificateSigningRequestUpdate(object, old, naming, { approval: true }),
    nameRule: "path-segment",
  };
  return {
    schema: {
      group: naming.group("certificates"),
      versions: [{ name: "v1", served: true, storage: true }],
      plural: "certificatesigningrequests",
      singular: "certificatesigningrequest",
      kind: "CertificateSigningRequest",
      listKind: "CertificateSigningRequestList",
      shortNames: ["csr"],
      categories: [],
      namespaced: false,
      verbs: ALL_VERBS,
      subresources: ["status", "approval"],
      allowCreateOnUpdate: false,
      selectableFields: (object) => ({ "spec.signerName": asString(asObject(object.spec)?.signerName) }),
      tableColumns: certificatesColumns().get("certificatesigningrequests") ?? [],
    },
    strategy,
    subresourceStrategies: { status, approval },
  };
}
