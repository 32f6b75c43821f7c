export { NodeGraph, type VertexType } from "./graph.ts";
export {
  NODE_USER_PREFIX,
  NODES_GROUP,
  type NodeAuthorizer,
  type NodeAuthorizerOptions,
  nodeAuthorizer,
  nodeIdentity,
} from "./node-authorizer.ts";
export { type PodReferences, podReferences } from "./pod-references.ts";
