// Whether a caller may act for a CertificateSigningRequest's signer: the verb (`approve`, `sign`)
// on `signers` named by the signerName, or on its domain's wildcard `<domain>/*`, as upstream's
// certificates admission plugins ask.
import type { Attributes, JsonObject, PluginEnv } from "./contract.ts";

/** The signerName of the request the attributes are about (its stored spec when there is one). */
export function signerNameOf(a: Attributes): string {
  const spec = (a.oldObject?.spec ?? a.object?.spec) as JsonObject | undefined;
  return typeof spec?.signerName === "string" ? spec.signerName : "";
}

export async function authorizedForSigner(
  env: PluginEnv,
  a: Attributes,
  verb: string,
  signerName: string,
): Promise<boolean> {
  const allowed = async (name: string) =>
    (
      await env.authorizer.authorize({
        user: a.user,
        verb,
        isResourceRequest: true,
        path: "",
        namespace: "",
        apiGroup: env.naming.group("certificates"),
        apiVersion: "*",
        resource: "signers",
        subresource: "",
        name,
      })
    ).decision === "allow";
  if (await allowed(signerName)) return true;
  const slash = signerName.indexOf("/");
  return slash > 0 && (await allowed(`${signerName.slice(0, slash)}/*`));
}
