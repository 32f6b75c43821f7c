// The four RBAC kinds of `rbac.authorization.<domain>/v1`: Role and ClusterRole (rules, and for a
// ClusterRole an aggregationRule the aggregation controller fills the rules from), RoleBinding and
// ClusterRoleBinding (subjects and an immutable roleRef). Names are path segments, as upstream
// keeps them minimal so user and group names can appear in them.

import { asArray, asObject, asString, childPath, indexPath, type JsonObject } from "../common/json.ts";
import type { Naming } from "../naming/naming.ts";
import type { ResourceIdentity } from "../registry/errors.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import type { KnownFields, Strategy } from "../registry/strategy.ts";
import type { ResourceVersion } from "../schema/resource-schema.ts";
import {
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
} from "../validation/names.ts";
import { OBJECT_META_FIELDS } from "../validation/object-meta.ts";
import { decodeError } from "./decode.ts";
import { ageColumn } from "./human-duration.ts";
import { ALL_VERBS, type BuiltinKind, column } from "./kind.ts";

const RBAC_V1: readonly ResourceVersion[] = [{ name: "v1", served: true, storage: true }];

const POLICY_RULE_FIELDS: KnownFields = {
  verbs: true,
  apiGroups: true,
  resources: true,
  resourceNames: true,
  nonResourceURLs: true,
};
const SUBJECT_FIELDS: KnownFields = { kind: true, apiGroup: true, name: true, namespace: true };
const ROLE_REF_FIELDS: KnownFields = { apiGroup: true, kind: true, name: true };
const LABEL_SELECTOR_FIELDS: KnownFields = {
  matchLabels: { "*": true },
  matchExpressions: { "[]": { key: true, operator: true, values: true } },
};

// --- reading the body as upstream's decoder does: a wrong JSON type is a 400 naming the field ---

function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return "array";
  if (typeof value === "boolean") return "bool";
  return typeof value;
}

class Reader {
  readonly #target: ResourceIdentity;
  readonly #object: JsonObject;
  constructor(target: ResourceIdentity, object: JsonObject) {
    this.#target = target;
    this.#object = object;
  }

  fail(struct: string, path: string, value: unknown, goType: string): never {
    throw decodeError(
      this.#target,
      this.#object,
      `json: cannot unmarshal ${jsonKind(value)} into Go struct field ${struct}.${path} of type ${goType}`,
    );
  }

  /** An optional string field; null counts as absent. */
  string(value: unknown, struct: string, path: string): void {
    if (value !== undefined && value !== null && typeof value !== "string")
      this.fail(struct, path, value, "string");
  }

  stringList(value: unknown, struct: string, path: string): void {
    if (value === undefined || value === null) return;
    if (!Array.isArray(value)) this.fail(struct, path, value, "[]string");
    for (const v of value) if (typeof v !== "string") this.fail(struct, path, v, "string");
  }

  /** An optional array of objects; returns its elements (null elements stay as they are). */
  objectList(value: unknown, struct: string, path: string, goType: string): JsonObject[] {
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) this.fail(struct, path, value, `[]${goType}`);
    const out: JsonObject[] = [];
    for (const v of value) {
      if (v === null) continue;
      if (typeof v !== "object" || Array.isArray(v)) this.fail(struct, path, v, goType);
      out.push(v as JsonObject);
    }
    return out;
  }

  object(value: unknown, struct: string, path: string, goType: string): JsonObject | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "object" || Array.isArray(value)) this.fail(struct, path, value, goType);
    return value as JsonObject;
  }
}

/** Drops empty optional lists (upstream omits them) and reads each rule's fields. */
function readRules(reader: Reader, object: JsonObject, kind: string): void {
  const rules = reader.objectList(object.rules, kind, "rules", "v1.PolicyRule");
  for (const rule of rules) {
    for (const key of ["verbs", "apiGroups", "resources", "resourceNames", "nonResourceURLs"]) {
      reader.stringList(rule[key], "PolicyRule", `rules.${key}`);
      if (key !== "verbs" && (rule[key] === null || asArray(rule[key]).length === 0)) delete rule[key];
    }
  }
  // `rules` is not omitted when empty: upstream writes null.
  if (object.rules === undefined) object.rules = null;
}

function readAggregationRule(reader: Reader, object: JsonObject): void {
  const rule = reader.object(object.aggregationRule, "ClusterRole", "aggregationRule", "v1.AggregationRule");
  if (!rule) return;
  const base = "aggregationRule.clusterRoleSelectors";
  const selectors = reader.objectList(rule.clusterRoleSelectors, "AggregationRule", base, "v1.LabelSelector");
  for (const selector of selectors) {
    const labels = reader.object(
      selector.matchLabels,
      "LabelSelector",
      `${base}.matchLabels`,
      "map[string]string",
    );
    for (const v of Object.values(labels ?? {})) {
      if (v !== null && typeof v !== "string")
        reader.fail("LabelSelector", `${base}.matchLabels`, v, "string");
    }
    const expressions = reader.objectList(
      selector.matchExpressions,
      "LabelSelector",
      `${base}.matchExpressions`,
      "v1.LabelSelectorRequirement",
    );
    for (const e of expressions) {
      const path = `${base}.matchExpressions`;
      reader.string(e.key, "LabelSelectorRequirement", `${path}.key`);
      reader.string(e.operator, "LabelSelectorRequirement", `${path}.operator`);
      reader.stringList(e.values, "LabelSelectorRequirement", `${path}.values`);
    }
  }
}

function readBinding(reader: Reader, object: JsonObject, kind: string, rbacGroup: string): void {
  const subjects = reader.objectList(object.subjects, kind, "subjects", "v1.Subject");
  for (const s of subjects) {
    for (const key of ["kind", "apiGroup", "name", "namespace"])
      reader.string(s[key], "Subject", `subjects.${key}`);
    // Defaults as upstream: User and Group subjects are in the RBAC group, ServiceAccounts in core.
    if (asString(s.apiGroup) === "") {
      if (s.kind === "User" || s.kind === "Group") s.apiGroup = rbacGroup;
      else delete s.apiGroup;
    }
    if (asString(s.namespace) === "") delete s.namespace;
  }
  if (Array.isArray(object.subjects) && subjects.length === 0) delete object.subjects;
  const ref = reader.object(object.roleRef, kind, "roleRef", "v1.RoleRef") ?? {};
  for (const key of ["apiGroup", "kind", "name"]) reader.string(ref[key], "RoleRef", `roleRef.${key}`);
  object.roleRef = {
    apiGroup: asString(ref.apiGroup) || rbacGroup,
    kind: asString(ref.kind),
    name: asString(ref.name),
  };
}

// --- validation, as pkg/apis/rbac/validation ---

function validatePolicyRule(rule: JsonObject, namespaced: boolean, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const list = (key: string) => asArray(rule[key]);
  if (list("verbs").length === 0)
    errs.push(field.required(childPath(path, "verbs"), "verbs must contain at least one value"));
  const urls = list("nonResourceURLs");
  if (urls.length > 0) {
    if (namespaced) {
      errs.push(
        field.invalid(
          childPath(path, "nonResourceURLs"),
          urls,
          "namespaced rules cannot apply to non-resource URLs",
        ),
      );
    }
    if (list("apiGroups").length > 0 || list("resources").length > 0 || list("resourceNames").length > 0) {
      errs.push(
        field.invalid(
          childPath(path, "nonResourceURLs"),
          urls,
          "rules cannot apply to both regular resources and non-resource URLs",
        ),
      );
    }
    return errs;
  }
  if (list("apiGroups").length === 0)
    errs.push(
      field.required(childPath(path, "apiGroups"), "resource rules must supply at least one api group"),
    );
  if (list("resources").length === 0)
    errs.push(
      field.required(childPath(path, "resources"), "resource rules must supply at least one resource"),
    );
  if (list("resourceNames").length > 0 && list("resources").length > 1) {
    errs.push(
      field.required(childPath(path, "resourceNames"), "resource names cannot apply to multiple resources"),
    );
  }
  return errs;
}

function validateRules(object: JsonObject, namespaced: boolean): FieldError[] {
  return asArray(object.rules).flatMap((rule, i) =>
    validatePolicyRule(asObject(rule) ?? {}, namespaced, indexPath("rules", i)),
  );
}

function validateLabelSelector(selector: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  asArray(selector.matchExpressions).forEach((item, i) => {
    const e = asObject(item) ?? {};
    const p = indexPath(childPath(path, "matchExpressions"), i);
    const operator = asString(e.operator);
    const values = asArray(e.values);
    if (operator === "In" || operator === "NotIn") {
      if (values.length === 0) {
        errs.push(
          field.required(childPath(p, "values"), "must be specified when `operator` is 'In' or 'NotIn'"),
        );
      }
    } else if (operator === "Exists" || operator === "DoesNotExist") {
      if (values.length > 0) {
        errs.push(
          field.forbidden(
            childPath(p, "values"),
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      }
    } else {
      errs.push(field.invalid(childPath(p, "operator"), operator, "not a valid selector operator"));
    }
    const key = asString(e.key);
    for (const msg of isQualifiedName(key)) errs.push(field.invalid(childPath(p, "key"), key, msg));
  });
  for (const [k, v] of Object.entries(asObject(selector.matchLabels) ?? {})) {
    const p = childPath(path, "matchLabels");
    for (const msg of isQualifiedName(k)) errs.push(field.invalid(p, k, msg));
    const value = asString(v);
    for (const msg of isValidLabelValue(value)) errs.push(field.invalid(p, value, msg));
  }
  return errs;
}

function validateAggregationRule(object: JsonObject): FieldError[] {
  const rule = asObject(object.aggregationRule);
  if (!rule) return [];
  const path = "aggregationRule.clusterRoleSelectors";
  const selectors = asArray(rule.clusterRoleSelectors);
  if (selectors.length === 0) {
    return [field.required(path, "at least one clusterRoleSelector required if aggregationRule is non-nil")];
  }
  return selectors.flatMap((s, i) => validateLabelSelector(asObject(s) ?? {}, indexPath(path, i)));
}

function validateSubject(
  subject: JsonObject,
  namespaced: boolean,
  path: string,
  rbacGroup: string,
): FieldError[] {
  const errs: FieldError[] = [];
  const name = asString(subject.name);
  const apiGroup = asString(subject.apiGroup);
  if (name === "") errs.push(field.required(childPath(path, "name")));
  const kind = asString(subject.kind);
  switch (kind) {
    case "ServiceAccount":
      if (name !== "") {
        for (const msg of isDNS1123Subdomain(name))
          errs.push(field.invalid(childPath(path, "name"), name, msg));
      }
      if (apiGroup !== "") errs.push(field.notSupported(childPath(path, "apiGroup"), apiGroup, [""]));
      if (!namespaced && asString(subject.namespace) === "")
        errs.push(field.required(childPath(path, "namespace")));
      break;
    case "User":
    case "Group":
      if (name === "") {
        errs.push(
          field.invalid(
            childPath(path, "name"),
            name,
            `${kind === "User" ? "user" : "group"} name cannot be empty`,
          ),
        );
      }
      if (apiGroup !== rbacGroup)
        errs.push(field.notSupported(childPath(path, "apiGroup"), apiGroup, [rbacGroup]));
      break;
    default:
      errs.push(field.notSupported(childPath(path, "kind"), kind, ["ServiceAccount", "User", "Group"]));
  }
  return errs;
}

function validateBinding(object: JsonObject, namespaced: boolean, rbacGroup: string): FieldError[] {
  const errs: FieldError[] = [];
  const ref = asObject(object.roleRef) ?? {};
  const apiGroup = asString(ref.apiGroup);
  if (apiGroup !== rbacGroup) errs.push(field.notSupported("roleRef.apiGroup", apiGroup, [rbacGroup]));
  const kind = asString(ref.kind);
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(kind)) errs.push(field.notSupported("roleRef.kind", kind, kinds));
  const name = asString(ref.name);
  if (name === "") errs.push(field.required("roleRef.name", ""));
  else for (const msg of isValidPathSegmentName(name)) errs.push(field.invalid("roleRef.name", name, msg));
  asArray(object.subjects).forEach((s, i) => {
    errs.push(...validateSubject(asObject(s) ?? {}, namespaced, indexPath("subjects", i), rbacGroup));
  });
  return errs;
}

function sameRoleRef(a: unknown, b: unknown): boolean {
  const x = asObject(a) ?? {};
  const y = asObject(b) ?? {};
  return (
    asString(x.apiGroup) === asString(y.apiGroup) &&
    asString(x.kind) === asString(y.kind) &&
    asString(x.name) === asString(y.name)
  );
}

// --- table cells, as kubectl prints bindings ---

/** Users, groups and service accounts (`namespace/name`) of a binding's subjects. */
export function bindingSubjects(object: JsonObject): {
  users: string[];
  groups: string[];
  serviceAccounts: string[];
} {
  const users: string[] = [];
  const groups: string[] = [];
  const serviceAccounts: string[] = [];
  for (const s of asArray(object.subjects)) {
    const subject = asObject(s) ?? {};
    const name = asString(subject.name);
    if (subject.kind === "User") users.push(name);
    else if (subject.kind === "Group") groups.push(name);
    else if (subject.kind === "ServiceAccount")
      serviceAccounts.push(`${asString(subject.namespace)}/${name}`);
  }
  return { users, groups, serviceAccounts };
}

function bindingColumns() {
  return [
    column("Role", "RoleRef can reference a Role in the current namespace or a ClusterRole.", (o) => {
      const ref = asObject(o.roleRef) ?? {};
      return `${asString(ref.kind)}/${asString(ref.name)}`;
    }),
    ageColumn(),
    column("Users", "Users in the roleBinding", (o) => bindingSubjects(o).users.join(", "), 1),
    column("Groups", "Groups in the roleBinding", (o) => bindingSubjects(o).groups.join(", "), 1),
    column(
      "ServiceAccounts",
      "ServiceAccounts in the roleBinding",
      (o) => bindingSubjects(o).serviceAccounts.join(", "),
      1,
    ),
  ];
}

// --- the kinds ---

function roleStrategy(kind: "Role" | "ClusterRole", group: string): Strategy {
  const namespaced = kind === "Role";
  const identity: ResourceIdentity = { group, resource: namespaced ? "roles" : "clusterroles", kind };
  const read = (object: JsonObject) => {
    const reader = new Reader(identity, object);
    readRules(reader, object, kind);
    if (!namespaced) readAggregationRule(reader, object);
  };
  const validate = (object: JsonObject) => [
    ...validateRules(object, namespaced),
    ...(namespaced ? [] : validateAggregationRule(object)),
  ];
  return {
    prepareForCreate: read,
    prepareForUpdate: read,
    validate,
    validateUpdate: validate,
    nameRule: "path-segment",
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: OBJECT_META_FIELDS,
      rules: { "[]": POLICY_RULE_FIELDS },
      ...(namespaced ? {} : { aggregationRule: { clusterRoleSelectors: { "[]": LABEL_SELECTOR_FIELDS } } }),
    },
  };
}

function bindingStrategy(kind: "RoleBinding" | "ClusterRoleBinding", group: string): Strategy {
  const namespaced = kind === "RoleBinding";
  const identity: ResourceIdentity = {
    group,
    resource: namespaced ? "rolebindings" : "clusterrolebindings",
    kind,
  };
  const read = (object: JsonObject) => readBinding(new Reader(identity, object), object, kind, group);
  return {
    prepareForCreate: read,
    prepareForUpdate: read,
    validate: (object) => validateBinding(object, namespaced, group),
    validateUpdate(object, old) {
      const errs = validateBinding(object, namespaced, group);
      if (!sameRoleRef(object.roleRef, old.roleRef))
        errs.push(field.invalid("roleRef", object.roleRef, "cannot change roleRef"));
      return errs;
    },
    nameRule: "path-segment",
    knownFields: {
      apiVersion: true,
      kind: true,
      metadata: OBJECT_META_FIELDS,
      subjects: { "[]": SUBJECT_FIELDS },
      roleRef: ROLE_REF_FIELDS,
    },
  };
}

/** Role, ClusterRole, RoleBinding and ClusterRoleBinding in `rbac.authorization.<domain>/v1`. */
export function rbacKinds(naming: Naming): BuiltinKind[] {
  const group = naming.group("rbac.authorization");
  const common = {
    group,
    versions: RBAC_V1,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    subresources: [],
    // `kubectl auth reconcile` and bootstrap reconciliation create through PUT, as upstream allows.
    allowCreateOnUpdate: true,
  } as const;
  return [
    {
      schema: {
        ...common,
        plural: "roles",
        singular: "role",
        kind: "Role",
        listKind: "RoleList",
        namespaced: true,
      },
      strategy: roleStrategy("Role", group),
    },
    {
      schema: {
        ...common,
        plural: "clusterroles",
        singular: "clusterrole",
        kind: "ClusterRole",
        listKind: "ClusterRoleList",
        namespaced: false,
      },
      strategy: roleStrategy("ClusterRole", group),
    },
    {
      schema: {
        ...common,
        plural: "rolebindings",
        singular: "rolebinding",
        kind: "RoleBinding",
        listKind: "RoleBindingList",
        namespaced: true,
        tableColumns: bindingColumns(),
      },
      strategy: bindingStrategy("RoleBinding", group),
    },
    {
      schema: {
        ...common,
        plural: "clusterrolebindings",
        singular: "clusterrolebinding",
        kind: "ClusterRoleBinding",
        listKind: "ClusterRoleBindingList",
        namespaced: false,
        tableColumns: bindingColumns(),
      },
      strategy: bindingStrategy("ClusterRoleBinding", group),
    },
  ];
}
