// The client-certificate authenticator under the conformance suite: certificates of the client
// CA authenticate; those of another CA, or made for serving, do not.
import assert from "node:assert/strict";
import { createAuthority, issueCertificate } from "../gateway/pki/certificates.ts";
import { x509Authenticator } from "../plugins/authentication/index.ts";
import { authenticatorConformance } from "./authenticator-conformance.ts";

authenticatorConformance("x509", async () => {
  const clientCa = await createAuthority("client-ca");
  const otherCa = await createAuthority("other-ca");
  const alice = await issueCertificate(clientCa, {
    commonName: "alice",
    organizations: ["dev", "ops"],
    usage: "client",
  });
  const stranger = await issueCertificate(otherCa, { commonName: "mallory", usage: "client" });
  const serving = await issueCertificate(clientCa, { commonName: "server", usage: "server" });
  return {
    authenticator: x509Authenticator(),
    tlsClientCaPem: clientCa.certPem,
    valid: { certPem: alice.certPem, keyPem: alice.keyPem },
    invalid: [
      {
        name: "certificate of another CA",
        credential: { certPem: stranger.certPem, keyPem: stranger.keyPem },
      },
      { name: "serving certificate", credential: { certPem: serving.certPem, keyPem: serving.keyPem } },
    ],
    secrets: [alice.keyPem, stranger.keyPem, serving.keyPem],
    checkUser(user) {
      assert.equal(user.username, "alice");
      assert.deepEqual(user.groups, ["dev", "ops"]);
    },
  };
});
