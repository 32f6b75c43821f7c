// The RBAC authorizer: allows a request when a rule of a role bound to the user (by name, group,
// or service-account identity) matches it; otherwise no opinion, since RBAC never denies.
// Roles and bindings come from the in-process informers of the four RBAC kinds. Bindings are
// indexed by the user names and groups they name, kept current from informer events, so a
// decision looks only at the bindings of the asking user, whatever the number of bindings.

import { asString as str } from "../../../backends/common/json.ts";
import type { Naming } from "../../../backends/naming/index.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { ApiObject, InformerEvent, ObjectAccess } from "../../objects/index.ts";
import type {
  Attributes,
  AuthorizationResult,
  Authorizer,
  NonResourceRule,
  ResourceRule,
  RulesResult,
} from "../authorizer.ts";
import { type PolicyRule, ruleAllows, rulesOf } from "./policy-rule.ts";

export interface RoleRef {
  readonly apiGroup: string;
  readonly kind: string;
  readonly name: string;
}

interface Subject {
  readonly kind: string;
  readonly name: string;
  readonly namespace: string;
}

interface Binding {
  readonly kind: "ClusterRoleBinding" | "RoleBinding";
  readonly name: string;
  /** "" for a ClusterRoleBinding. */
  readonly namespace: string;
  readonly roleRef: RoleRef;
  readonly subjects: readonly Subject[];
  /** User names (service accounts included) and groups this binding is indexed under. */
  readonly users: readonly string[];
  readonly groups: readonly string[];
}

const SA_PREFIX = "system:serviceaccount:";

function toBinding(kind: Binding["kind"], object: ApiObject): Binding {
  const namespace = kind === "RoleBinding" ? (object.metadata.namespace ?? "") : "";
  const ref = (typeof object.roleRef === "object" && object.roleRef !== null ? object.roleRef : {}) as Record<
    string,
    unknown
  >;
  const subjects: Subject[] = [];
  const users = new Set<string>();
  const groups = new Set<string>();
  for (const raw of Array.isArray(object.subjects) ? object.subjects : []) {
    if (typeof raw !== "object" || raw === null) continue;
    const s = raw as Record<string, unknown>;
    const subject = { kind: str(s.kind), name: str(s.name), namespace: str(s.namespace) };
    subjects.push(subject);
    if (subject.kind === "User") users.add(subject.name);
    else if (subject.kind === "Group") groups.add(subject.name);
    else if (subject.kind === "ServiceAccount") {
      // In a RoleBinding an account without a namespace is one of the binding's namespace.
      const ns = subject.namespace || namespace;
      if (ns !== "") users.add(`${SA_PREFIX}${ns}:${subject.name}`);
    }
  }
  return {
    kind,
    name: object.metadata.name,
    namespace,
    roleRef: { apiGroup: str(ref.apiGroup), kind: str(ref.kind), name: str(ref.name) },
    subjects,
    users: [...users],
    groups: [...groups],
  };
}

function appliesTo(user: UserInfo, subject: Subject, namespace: string): boolean {
  switch (subject.kind) {
    case "User":
      return user.username === subject.name;
    case "Group":
      return user.groups.includes(subject.name);
    case "ServiceAccount": {
      const ns = subject.namespace || namespace;
      return ns !== "" && user.username === `${SA_PREFIX}${ns}:${subject.name}`;
    }
    default:
      return false;
  }
}

function describeSubject(subject: Subject, bindingNamespace: string): string {
  if (subject.kind === "ServiceAccount") {
    return `ServiceAccount ${JSON.stringify(`${subject.name}/${subject.namespace || bindingNamespace}`)}`;
  }
  return `${subject.kind} ${JSON.stringify(subject.name)}`;
}

/** Upstream's text for the binding that allowed a request, naming the first subject that applies. */
function describeBinding(binding: Binding, user: UserInfo): string {
  const subject = binding.subjects.find((s) => appliesTo(user, s, binding.namespace)) ?? binding.subjects[0];
  const name = binding.kind === "RoleBinding" ? `${binding.name}/${binding.namespace}` : binding.name;
  const to = subject ? describeSubject(subject, binding.namespace) : "";
  return `${binding.kind} ${JSON.stringify(name)} of ${binding.roleRef.kind} ${JSON.stringify(binding.roleRef.name)} to ${to}`;
}

/** Errors joined as upstream's aggregate error prints them (one alone, else `[a, b]`, no repeats). */
export function aggregateErrors(errors: readonly string[]): string {
  const unique = [...new Set(errors)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(", ")}]`;
}

/** Bindings by the user names and groups they name. */
class SubjectIndex {
  readonly users = new Map<string, Set<Binding>>();
  readonly groups = new Map<string, Set<Binding>>();

  add(binding: Binding): void {
    for (const u of binding.users) put(this.users, u, binding);
    for (const g of binding.groups) put(this.groups, g, binding);
  }

  remove(binding: Binding): void {
    for (const u of binding.users) drop(this.users, u, binding);
    for (const g of binding.groups) drop(this.groups, g, binding);
  }

  get empty(): boolean {
    return this.users.size === 0 && this.groups.size === 0;
  }
}

function put(map: Map<string, Set<Binding>>, key: string, binding: Binding): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(binding);
}

function drop(map: Map<string, Set<Binding>>, key: string, binding: Binding): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(binding);
  if (set.size === 0) map.delete(key);
}

export class RbacAuthorizer implements Authorizer {
  readonly name = "RBAC";
  /** Resolves once all four kinds have been listed. */
  readonly synced: Promise<void>;
  readonly #group: string;
  readonly #clusterRoles = new Map<string, readonly PolicyRule[]>();
  /** namespace → name → rules */
  readonly #roles = new Map<string, Map<string, readonly PolicyRule[]>>();
  readonly #clusterBindings = new Map<string, Binding>();
  /** namespace → name → binding */
  readonly #bindings = new Map<string, Map<string, Binding>>();
  readonly #clusterIndex = new SubjectIndex();
  readonly #namespaceIndex = new Map<string, SubjectIndex>();
  readonly #unsubscribe: (() => void)[] = [];

  constructor(access: ObjectAccess, naming: Naming) {
    this.#group = naming.group("rbac.authorization");
    const follow = (resource: string, handler: (event: InformerEvent) => void): Promise<void> => {
      const informer = access.informer({ group: this.#group, resource });
      if (!informer) throw new Error(`RBAC needs ${resource}.${this.#group} to be served`);
      this.#unsubscribe.push(informer.subscribe(handler));
      return informer.synced;
    };
    this.synced = Promise.all([
      follow("clusterroles", (e) => this.#onClusterRole(e)),
      follow("roles", (e) => this.#onRole(e)),
      follow("clusterrolebindings", (e) => this.#onClusterBinding(e)),
      follow("rolebindings", (e) => this.#onBinding(e)),
    ]).then(() => {});
  }

  /** Stops following the informers. */
  close(): void {
    for (const u of this.#unsubscribe.splice(0)) u();
  }

  // --- informer events ---

  #onClusterRole(event: InformerEvent): void {
    if (event.type === "DELETED") this.#clusterRoles.delete(event.object.metadata.name);
    else this.#clusterRoles.set(event.object.metadata.name, rulesOf(event.object));
  }

  #onRole(event: InformerEvent): void {
    const ns = event.object.metadata.namespace ?? "";
    if (event.type === "DELETED") {
      const roles = this.#roles.get(ns);
      roles?.delete(event.object.metadata.name);
      if (roles?.size === 0) this.#roles.delete(ns);
      return;
    }
    let roles = this.#roles.get(ns);
    if (!roles) {
      roles = new Map();
      this.#roles.set(ns, roles);
    }
    roles.set(event.object.metadata.name, rulesOf(event.object));
  }

  #onClusterBinding(event: InformerEvent): void {
    const name = event.object.metadata.name;
    const old = this.#clusterBindings.get(name);
    if (old) this.#clusterIndex.remove(old);
    if (event.type === "DELETED") {
      this.#clusterBindings.delete(name);
      return;
    }
    const binding = toBinding("ClusterRoleBinding", event.object);
    this.#clusterBindings.set(name, binding);
    this.#clusterIndex.add(binding);
  }

  #onBinding(event: InformerEvent): void {
    const ns = event.object.metadata.namespace ?? "";
    const name = event.object.metadata.name;
    let bindings = this.#bindings.get(ns);
    let index = this.#namespaceIndex.get(ns);
    const old = bindings?.get(name);
    if (old) index?.remove(old);
    if (event.type === "DELETED") {
      bindings?.delete(name);
      if (bindings?.size === 0) this.#bindings.delete(ns);
      if (index?.empty) this.#namespaceIndex.delete(ns);
      return;
    }
    if (!bindings) {
      bindings = new Map();
      this.#bindings.set(ns, bindings);
    }
    if (!index) {
      index = new SubjectIndex();
      this.#namespaceIndex.set(ns, index);
    }
    const binding = toBinding("RoleBinding", event.object);
    bindings.set(name, binding);
    index.add(binding);
  }

  // --- resolution ---

  /** The rules a role reference grants, or the text of why it cannot be resolved. */
  #resolve(ref: RoleRef, bindingNamespace: string): readonly PolicyRule[] | string {
    if (ref.kind === "ClusterRole") {
      return (
        this.#clusterRoles.get(ref.name) ?? `clusterrole.${this.#group} ${JSON.stringify(ref.name)} not found`
      );
    }
    if (ref.kind === "Role") {
      return (
        this.#roles.get(bindingNamespace)?.get(ref.name) ??
        `role.${this.#group} ${JSON.stringify(ref.name)} not found`
      );
    }
    return `unsupported role reference kind: ${JSON.stringify(ref.kind)}`;
  }

  /** The rules of a role reference as bindings see it; undefined when the role does not exist. */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): readonly PolicyRule[] | undefined {
    const rules = this.#resolve(ref, bindingNamespace);
    return typeof rules === "string" ? undefined : rules;
  }

  /** The first binding among `set` whose role allows the request; unresolvable roles go to `errors`. */
  #allowingBinding(
    set: ReadonlySet<Binding> | undefined,
    attributes: Attributes,
    errors: string[],
  ): Binding | undefined {
    if (!set) return undefined;
    for (const binding of set) {
      const rules = this.#resolve(binding.roleRef, binding.namespace);
      if (typeof rules === "string") {
        errors.push(rules);
        continue;
      }
      for (const rule of rules) if (ruleAllows(attributes, rule)) return binding;
    }
    return undefined;
  }

  #search(index: SubjectIndex | undefined, attributes: Attributes, errors: string[]): Binding | undefined {
    if (!index) return undefined;
    const user = attributes.user;
    const byUser = this.#allowingBinding(index.users.get(user.username), attributes, errors);
    if (byUser) return byUser;
    for (const group of user.groups) {
      const byGroup = this.#allowingBinding(index.groups.get(group), attributes, errors);
      if (byGroup) return byGroup;
    }
    return undefined;
  }

  authorize(attributes: Attributes): AuthorizationResult {
    const errors: string[] = [];
    const binding =
      this.#search(this.#clusterIndex, attributes, errors) ??
      (attributes.namespace === ""
        ? undefined
        : this.#search(this.#namespaceIndex.get(attributes.namespace), attributes, errors));
    if (binding)
      return { decision: "allow", reason: `RBAC: allowed by ${describeBinding(binding, attributes.user)}` };
    return { decision: "noOpinion", reason: errors.length === 0 ? "" : `RBAC: ${aggregateErrors(errors)}` };
  }

  /** Bindings that apply to the user: cluster-wide ones, then the namespace's; each once, by name. */
  #bindingsFor(user: UserInfo, namespace: string): Binding[] {
    const collect = (index: SubjectIndex | undefined): Binding[] => {
      if (!index) return [];
      const found = new Set<Binding>(index.users.get(user.username));
      for (const g of user.groups) for (const b of index.groups.get(g) ?? []) found.add(b);
      return [...found].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    };
    return [
      ...collect(this.#clusterIndex),
      ...(namespace === "" ? [] : collect(this.#namespaceIndex.get(namespace))),
    ];
  }

  /**
   * Every rule RBAC grants the user in a namespace ("" for cluster-wide only), and the texts of
   * role references that could not be resolved (the rules may then be incomplete).
   */
  policyRulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (const binding of this.#bindingsFor(user, namespace)) {
      const resolved = this.#resolve(binding.roleRef, binding.namespace);
      if (typeof resolved === "string") errors.push(resolved);
      else rules.push(...resolved);
    }
    return { rules, errors };
  }

  rulesFor(user: UserInfo, namespace: string): RulesResult {
    const { rules, errors } = this.policyRulesFor(user, namespace);
    const resourceRules: ResourceRule[] = [];
    const nonResourceRules: NonResourceRule[] = [];
    for (const r of rules) {
      if (r.resources.length > 0) {
        resourceRules.push({
          verbs: r.verbs,
          apiGroups: r.apiGroups,
          resources: r.resources,
          ...(r.resourceNames.length > 0 ? { resourceNames: r.resourceNames } : {}),
        });
      }
      if (r.nonResourceURLs.length > 0)
        nonResourceRules.push({ verbs: r.verbs, nonResourceURLs: r.nonResourceURLs });
    }
    return {
      resourceRules,
      nonResourceRules,
      incomplete: false,
      ...(errors.length > 0 ? { evaluationError: aggregateErrors(errors) } : {}),
    };
  }

  /** How many bindings are indexed (cluster-wide plus namespaced). */
  get bindingCount(): number {
    let n = this.#clusterBindings.size;
    for (const b of this.#bindings.values()) n += b.size;
    return n;
  }
}

/** The RBAC authorizer over the gateway's informers of the four RBAC kinds. */
export function rbacAuthorizer(access: ObjectAccess, naming: Naming): RbacAuthorizer {
  return new RbacAuthorizer(access, naming);
}
