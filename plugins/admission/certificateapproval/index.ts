// CertificateApproval: only a caller allowed to `approve` for a CSR's signerName (or its
// `<domain>/*`) may write the approval subresource.
import type { AdmissionPlugin, PluginEnv, PluginRegistration } from "../index.ts";
import { authorizedForSigner, forbidden, signerNameOf } from "../index.ts";

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("certificates");
  return {
    name: "CertificateApproval",
    async validate(a) {
      if (a.operation !== "UPDATE" || a.resource.group !== group) return;
      if (a.resource.resource !== "certificatesigningrequests" || a.subresource !== "approval") return;
      const signerName = signerNameOf(a);
      if (await authorizedForSigner(env, a, "approve", signerName)) return;
      throw forbidden(
        a,
        `user not permitted to approve requests with signerName ${JSON.stringify(signerName)}`,
      );
    },
  };
}

export const registration: PluginRegistration = { name: "CertificateApproval", factory: plugin };
