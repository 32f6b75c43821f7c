// The Node authorizer: limits node agents (user `system:node:<name>` in group `system:nodes`) to
// the secrets, config maps, claims, volumes and service-account tokens of the pods bound to them,
// to their own lease, and to the status of their own pods. Node objects are not subdivided, as in
// 1.27 (reading only one's own Node came with 1.32's selector authorization): the system:node rules
// let a node read every Node and write Nodes, and NodeRestriction holds writes to its own. Like upstream, it never
// denies: an unrelated object gets no opinion with the reason, so RBAC may still grant it, and
// the reason reaches the 403 message when nothing does. Requests it does not subdivide go to the
// optional static node rules (upstream grants nodes the system:node rules here, not through a
// binding), or get no opinion.

import type { Naming } from "../../../backends/naming/index.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { InformerEvent, ObjectAccess } from "../../objects/index.ts";
import type { Attributes, AuthorizationResult, Authorizer, RulesResult } from "../authorizer.ts";
import { NodeGraph, type VertexType } from "./graph.ts";

export const NODE_USER_PREFIX = "system:node:";
export const NODES_GROUP = "system:nodes";

export interface NodeAuthorizerOptions {
  readonly naming: Naming;
  readonly objects: ObjectAccess;
  /**
   * Whether the static node rules (the system:node ClusterRole's) allow a request this
   * authorizer does not subdivide; absent: such requests get no opinion.
   */
  readonly staticRules?: (attributes: Attributes) => boolean;
}

export interface NodeAuthorizer extends Authorizer {
  /** Decisions are graph lookups, answered at once. */
  authorize(attributes: Attributes): AuthorizationResult;
  rulesFor(user: UserInfo, namespace: string): RulesResult;
  /** Resolves once the informers the graph follows have loaded their first lists. */
  readonly synced: Promise<void>;
  /** Stops following the informers. */
  stop(): void;
}

/** The node name of a node agent, or undefined for any other user. */
export function nodeIdentity(user: UserInfo): string | undefined {
  if (!user.username.startsWith(NODE_USER_PREFIX)) return undefined;
  if (!user.groups.includes(NODES_GROUP)) return undefined;
  return user.username.slice(NODE_USER_PREFIX.length);
}

const allow: AuthorizationResult = { decision: "allow", reason: "" };
const noOpinion = (reason = ""): AuthorizationResult => ({ decision: "noOpinion", reason });

export function nodeAuthorizer(options: NodeAuthorizerOptions): NodeAuthorizer {
  const { naming, objects } = options;
  const graph = new NodeGraph();
  const coordination = naming.group("coordination");
  const unsubscribes: (() => void)[] = [];
  const synced: Promise<void>[] = [];

  const pods = objects.informer({ group: "", resource: "pods" });
  if (pods) {
    synced.push(pods.synced);
    unsubscribes.push(
      pods.subscribe((e: InformerEvent) => {
        if (e.type === "DELETED") graph.deletePod(e.object);
        else graph.setPod(e.object);
      }),
    );
  }
  // Claims tie volumes to pods; without them served, no volume is related to any node.
  const claims = objects.informer({ group: "", resource: "persistentvolumeclaims" });
  if (claims) {
    synced.push(claims.synced);
    unsubscribes.push(
      claims.subscribe((e: InformerEvent) => {
        if (e.type === "DELETED") graph.deleteClaim(e.object);
        else graph.setClaim(e.object);
      }),
    );
  }

  const noRelationship = (node: string) =>
    noOpinion(`no relationship found between node '${node}' and this object`);

  const related = (node: string, type: VertexType, a: Attributes): AuthorizationResult => {
    if (a.name === "") return noOpinion("No Object name found");
    return graph.related(node, type, a.namespace, a.name) ? allow : noRelationship(node);
  };

  // Secrets and config maps: single objects, read (a watch of one name included).
  const readNamespaced = (node: string, type: VertexType, a: Attributes): AuthorizationResult => {
    if (a.verb !== "get" && a.verb !== "list" && a.verb !== "watch") {
      return noOpinion("can only read resources of this type");
    }
    if (a.subresource !== "") return noOpinion("cannot read subresource");
    if (a.namespace === "") return noOpinion("can only read namespaced object of this type");
    return related(node, type, a);
  };

  const getOnly = (node: string, type: VertexType, a: Attributes): AuthorizationResult => {
    if (a.verb !== "get") return noOpinion("can only get individual resources of this type");
    if (a.subresource !== "") return noOpinion("cannot get subresource");
    return related(node, type, a);
  };

  const claimStatus = (node: string, a: Attributes): AuthorizationResult => {
    if (a.verb !== "update" && a.verb !== "patch") return noOpinion("can only get/update/patch this type");
    return related(node, "persistentvolumeclaim", a);
  };

  const serviceAccountToken = (node: string, a: Attributes): AuthorizationResult => {
    if (a.verb !== "create" || a.name === "") {
      return noOpinion("can only create tokens for individual service accounts");
    }
    if (a.subresource !== "token") return noOpinion("can only create token subresource of serviceaccount");
    return graph.related(node, "serviceaccount", a.namespace, a.name) ? allow : noRelationship(node);
  };

  const lease = (node: string, a: Attributes): AuthorizationResult => {
    if (!["get", "create", "update", "patch", "delete"].includes(a.verb)) {
      return noOpinion("can only get, create, update, patch, or delete a node lease");
    }
    if (a.namespace !== naming.nodeLeaseNamespace) {
      return noOpinion(`can only access leases in the "${naming.nodeLeaseNamespace}" system namespace`);
    }
    // The name of a lease being created is in the body, which authorization does not see.
    if (a.verb !== "create" && a.name !== node) {
      return noOpinion("can only access node lease with the same name as the requesting node");
    }
    return allow;
  };

  const podStatus = (node: string, a: Attributes): AuthorizationResult => {
    if (a.verb !== "update" && a.verb !== "patch") return noOpinion();
    return related(node, "pod", a);
  };

  const staticRules = (a: Attributes): AuthorizationResult => {
    try {
      return options.staticRules?.(a) ? allow : noOpinion();
    } catch {
      // A broken rule set grants nothing; it never fails the request on its own.
      return noOpinion();
    }
  };

  const decide = (node: string, a: Attributes): AuthorizationResult => {
    if (!a.isResourceRequest) return staticRules(a);
    if (a.apiGroup === "") {
      switch (a.resource) {
        case "secrets":
          return readNamespaced(node, "secret", a);
        case "configmaps":
          return readNamespaced(node, "configmap", a);
        case "persistentvolumeclaims":
          return a.subresource === "status"
            ? claimStatus(node, a)
            : getOnly(node, "persistentvolumeclaim", a);
        case "persistentvolumes":
          return getOnly(node, "persistentvolume", a);
        case "serviceaccounts":
          return serviceAccountToken(node, a);
        case "pods":
          if (a.subresource === "status") return podStatus(node, a);
          break;
      }
    } else if (a.apiGroup === coordination && a.resource === "leases") {
      return lease(node, a);
    }
    return staticRules(a);
  };

  return {
    name: "Node",
    synced: Promise.all(synced).then(() => undefined),
    stop() {
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
    },
    authorize(attributes: Attributes): AuthorizationResult {
      const node = nodeIdentity(attributes.user);
      if (node === undefined) return noOpinion();
      if (node === "") return noOpinion(`unknown node for user "${attributes.user.username}"`);
      return decide(node, attributes);
    },
    rulesFor(user: UserInfo): RulesResult {
      // A node's access depends on its pods, so its rules cannot be listed, as upstream says.
      if (nodeIdentity(user) === undefined)
        return { resourceRules: [], nonResourceRules: [], incomplete: false };
      return {
        resourceRules: [],
        nonResourceRules: [],
        incomplete: true,
        evaluationError: "node authorizer does not support user rule resolution",
      };
    },
  };
}
