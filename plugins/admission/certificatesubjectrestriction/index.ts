// CertificateSubjectRestriction: no CSR for the API server client signer may ask for system:masters.
import "reflect-metadata"; // @peculiar/x509's dependency injection needs the Reflect polyfill
import { Pkcs10CertificateRequest } from "@peculiar/x509";
import { signerNames } from "../../authorization/rbac/index.ts";
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { forbidden } from "../index.ts";

/** The subject's organizations, or an error text for a request that does not parse. */
function organizations(request: unknown): string[] | string {
  if (typeof request !== "string") return "PEM block type must be CERTIFICATE REQUEST";
  try {
    const pem = Buffer.from(request, "base64").toString("utf8");
    if (!pem.includes("-----BEGIN CERTIFICATE REQUEST-----"))
      return "PEM block type must be CERTIFICATE REQUEST";
    const csr = new Pkcs10CertificateRequest(pem);
    return csr.subjectName.getField("O");
  } catch (err) {
    return String((err as Error).message ?? err);
  }
}

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("certificates");
  const restricted = signerNames(env.naming).apiserverClient;
  return {
    name: "CertificateSubjectRestriction",
    validate(a) {
      if (a.operation !== "CREATE" || a.resource.group !== group) return;
      if (a.resource.resource !== "certificatesigningrequests" || a.subresource !== "") return;
      const spec = a.object?.spec as JsonObject | undefined;
      if (spec?.signerName !== restricted) return;
      const orgs = organizations(spec.request);
      if (typeof orgs === "string") throw forbidden(a, `failed to parse CSR: ${orgs}`);
      if (orgs.includes("system:masters")) {
        throw forbidden(a, `use of ${restricted} signer with system:masters group is not allowed`);
      }
    },
  };
}

export const registration: PluginRegistration = { name: "CertificateSubjectRestriction", factory: plugin };
