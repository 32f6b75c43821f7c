// OwnerReferencesPermissionEnforcement: setting an owner reference needs `delete` on the object,
// and blocking an owner's deletion needs `update` on the owner's `finalizers` subresource.

import { objectOrEmpty as obj } from "../../../backends/common/json.ts";
import type { Attributes as AuthzAttributes } from "../../authorization/index.ts";
import type { AdmissionPlugin, Attributes, PluginEnv, PluginRegistration } from "../contract.ts";
import { forbidden } from "../errors.ts";
import { type KindResolver, kindResolver } from "./kinds.ts";

type Obj = Record<string, unknown>;
const refs = (o: unknown): Obj[] => {
  const r = obj(obj(o).metadata).ownerReferences;
  return Array.isArray(r) ? r.map(obj) : [];
};

export function ownerReferencesPermissionEnforcement(
  env: PluginEnv,
  resolve?: KindResolver,
): AdmissionPlugin {
  const toResource = resolve ?? kindResolver(env.naming, env.objects);

  function ask(
    a: Attributes,
    verb: string,
    over: Partial<AuthzAttributes>,
  ): Promise<{ decision: string; reason: string }> {
    return Promise.resolve(
      env.authorizer.authorize({
        user: a.user,
        verb,
        isResourceRequest: true,
        path: "",
        namespace: a.namespace,
        apiGroup: a.resource.group,
        apiVersion: a.resource.version,
        resource: a.resource.resource,
        subresource: "",
        name: a.name,
        ...over,
      }),
    );
  }

  return {
    name: "OwnerReferencesPermissionEnforcement",
    async validate(a) {
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      // Pod status writers (kubelets) never change owners; upstream exempts them.
      if (a.resource.group === "" && a.resource.resource === "pods" && a.subresource === "status") return;
      const now = refs(a.object);
      const was = a.operation === "UPDATE" ? refs(a.oldObject) : [];
      if (JSON.stringify(now) === JSON.stringify(was)) return;
      const del = await ask(a, "delete", {});
      if (del.decision !== "allow")
        throw forbidden(a, `cannot set an ownerRef on a resource you can't delete: ${del.reason}, <nil>`);
      const blockedBefore = new Set(was.filter((r) => r.blockOwnerDeletion === true).map((r) => r.uid));
      for (const ref of now) {
        if (ref.blockOwnerDeletion !== true || blockedBefore.has(ref.uid)) continue;
        const apiVersion = String(ref.apiVersion ?? "");
        const kind = String(ref.kind ?? "");
        const slash = apiVersion.indexOf("/");
        const group = slash < 0 ? "" : apiVersion.slice(0, slash);
        const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
        const resource = await toResource(group, kind);
        if (!resource)
          throw forbidden(
            a,
            `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${apiVersion} Kind ${kind}: no matches for kind "${kind}" in version "${apiVersion}"`,
          );
        const fin = await ask(a, "update", {
          apiGroup: group,
          apiVersion: version,
          resource,
          subresource: "finalizers",
          name: String(ref.name ?? ""),
        });
        if (fin.decision !== "allow")
          throw forbidden(
            a,
            `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${fin.reason}, <nil>`,
          );
      }
    },
  };
}

export const registration: PluginRegistration = {
  name: "OwnerReferencesPermissionEnforcement",
  factory: (env) => ownerReferencesPermissionEnforcement(env),
};
