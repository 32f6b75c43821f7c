// The built-in kinds the gateway serves itself, spelled with the naming preset's domain.
import type { Naming } from "../naming/naming.ts";
import { configMapKind } from "./configmap.ts";
import { eventKind } from "./event.ts";
import type { BuiltinKind } from "./kind.ts";
import { namespaceKind } from "./namespace.ts";
import { nodeKind } from "./node.ts";
import { podKind } from "./pod.ts";
import { secretKind } from "./secret.ts";
import { serviceAccountKind } from "./serviceaccount.ts";

export { humanDuration, timestampAge } from "./human-duration.ts";
export type { BuiltinKind } from "./kind.ts";
export { NAMESPACE_ACTIVE, NAMESPACE_TERMINATING } from "./namespace.ts";
export { SECRET_TYPE_OPAQUE, secretTypes } from "./secret.ts";

export function builtinKinds(naming: Naming): BuiltinKind[] {
  return [
    namespaceKind(naming),
    configMapKind(naming),
    secretKind(naming),
    serviceAccountKind(naming),
    eventKind(naming),
    podKind(naming),
    nodeKind(naming),
  ];
}
