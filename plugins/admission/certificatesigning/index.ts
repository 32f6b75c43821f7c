// CertificateSigning: only a signer authorized for the CSR's signerName may set status.certificate.
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { authorizedForSigner, forbidden, signerNameOf } from "../index.ts";

function certificate(o: JsonObject | undefined): unknown {
  return (o?.status as JsonObject | undefined)?.certificate;
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("certificates");
  return {
    name: "CertificateSigning",
    async validate(a) {
      if (a.operation !== "UPDATE" || a.resource.group !== group) return;
      if (a.resource.resource !== "certificatesigningrequests" || a.subresource !== "status") return;
      // Unchanged certificate bytes need no signing permission.
      if (certificate(a.object) === certificate(a.oldObject)) return;
      const signerName = signerNameOf(a);
      if (await authorizedForSigner(env, a, "sign", signerName)) return;
      throw forbidden(a, `user not permitted to sign requests with signerName ${JSON.stringify(signerName)}`);
    },
  };
}

export const registration: PluginRegistration = { name: "CertificateSigning", factory: plugin };
