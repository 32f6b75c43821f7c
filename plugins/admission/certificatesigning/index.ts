// CertificateSigning: only a signer authorized for the CSR's signerName may set status.certificate.
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { forbidden } from "../index.ts";

function certificate(o: JsonObject | undefined): unknown {
  return (o?.status as JsonObject | undefined)?.certificate;
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("certificates");
  const allowed = async (a: Attributes, resourceName: string) => {
    const r = await env.authorizer.authorize({
      user: a.user,
      verb: "sign",
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
    name: "CertificateSigning",
    async validate(a) {
      if (a.operation !== "UPDATE" || a.resource.group !== group) return;
      if (a.resource.resource !== "certificatesigningrequests" || a.subresource !== "status") return;
      // Unchanged certificate bytes need no signing permission.
      if (certificate(a.object) === certificate(a.oldObject)) return;
      const spec = (a.oldObject?.spec ?? a.object?.spec) as JsonObject | undefined;
      const signerName = typeof spec?.signerName === "string" ? spec.signerName : "";
      const slash = signerName.indexOf("/");
      if (await allowed(a, signerName)) return;
      if (slash > 0 && (await allowed(a, `${signerName.slice(0, slash)}/*`))) return;
      throw forbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
    },
  };
}

export const registration: PluginRegistration = { name: "CertificateSigning", factory: plugin };
