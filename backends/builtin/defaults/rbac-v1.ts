// rbac/v1 defaults as upstream 1.27 applies them: a binding's role reference and its User and Group
// subjects are in the RBAC API group (spelled with the naming preset's domain).
import type { Naming } from "../../naming/naming.ts";
import { defaultString, isEmptyString, structAt } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

/** The rbac/v1 defaulters by type id. */
export function rbacV1Defaulters(naming: Naming): Record<string, TypeDefaulter> {
  const group = naming.group("rbac.authorization");
  const binding: TypeDefaulter = (object) => {
    const roleRef = structAt(object, "roleRef");
    if (roleRef !== undefined) defaultString(roleRef, "apiGroup", group);
  };
  const subject: TypeDefaulter = (s) => {
    // A ServiceAccount subject keeps the core group, the empty string.
    if (isEmptyString(s.apiGroup) && (s.kind === "User" || s.kind === "Group")) s.apiGroup = group;
  };
  return {
    "rbac/v1.RoleBinding": binding,
    "rbac/v1.ClusterRoleBinding": binding,
    "rbac/v1.Subject": subject,
  };
}
