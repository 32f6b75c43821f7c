// CertificateApproval: only a caller allowed to `approve` for a CSR's signerName (or its
// `<domain>/*`) may write the approval subresource.
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { forbidden } from "../index.ts";

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("certificates");
  const allowed = async (a: Attributes, resourceName: string) => {
    const r = await env.authorizer.authorize({
      user: a.user,
      verb: "approve",
      isResourceRequest: true,
      path: "",
      namespace: "",
      apiGroup: group,
      apiVersion: "*",
      resource: "signers",
      subresource: "",
      name: resourceName,
    });
    return r.decision === "allow";
  };
  return {
    name: "CertificateApproval",
    async validate(a) {
      if (a.operation !== "UPDATE" || a.resource.group !== group) return;
      if (a.resource.resource !== "certificatesigningrequests" || a.subresource !== "approval") return;
      const spec = (a.oldObject?.spec ?? a.object?.spec) as JsonObject | undefined;
      const signerName = typeof spec?.signerName === "string" ? spec.signerName : "";
      if (await allowed(a, signerName)) return;
      const slash = signerName.indexOf("/");
      if (slash > 0 && (await allowed(a, `${signerName.slice(0, slash)}/*`))) return;
      throw forbidden(
        a,
        `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`,
      );
    },
  };
}

export const registration: PluginRegistration = { name: "CertificateApproval", factory: plugin };
