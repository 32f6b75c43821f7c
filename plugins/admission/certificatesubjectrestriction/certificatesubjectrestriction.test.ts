import "reflect-metadata";
import assert from "node:assert/strict";
import { webcrypto } from "node:crypto";
import { test } from "node:test";
import * as x509 from "@peculiar/x509";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import { signerNames } from "../../authorization/rbac/index.ts";
import { AdmissionError } from "../index.ts";
import { registration } from "./index.ts";

x509.cryptoProvider.set(webcrypto);

async function request(subject: string): Promise<string> {
  const alg = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" };
  const keys = await webcrypto.subtle.generateKey(alg, true, ["sign", "verify"]);
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subject,
    keys,
    signingAlgorithm: alg,
  });
  return Buffer.from(csr.toString("pem")).toString("base64");
}

test("CertificateSubjectRestriction: no system:masters for the API server client signer", async () => {
  const t = await startAdmissionTest();
  try {
    const group = t.naming.group("certificates");
    const client = signerNames(t.naming).apiserverClient;
    const plugin = await registration.factory(t.env());
    const masters = await request("CN=admin, O=system:masters");
    const plain = await request("CN=alice, O=devs");
    const cases: { name: string; signer: string; request: unknown; error?: RegExp | string }[] = [
      {
        name: "masters for client signer",
        signer: client,
        request: masters,
        error: `certificatesigningrequests.${group} "c" is forbidden: use of ${client} signer with system:masters group is not allowed`,
      },
      { name: "other org", signer: client, request: plain },
      { name: "masters for other signer", signer: "example.com/x", request: masters },
      {
        name: "garbage request",
        signer: client,
        request: "bm90IGEgY3Ny",
        error: /is forbidden: failed to parse CSR: /,
      },
      { name: "wrong type request", signer: client, request: 42, error: /failed to parse CSR/ },
    ];
    for (const c of cases) {
      const attrs = t.attributes({
        resource: "certificatesigningrequests",
        name: "c",
        operation: "CREATE",
        group,
        object: {
          apiVersion: "v1",
          kind: "CertificateSigningRequest",
          metadata: { name: "c" },
          spec: { signerName: c.signer, request: c.request, usages: ["client auth"] },
        },
      });
      if (c.error === undefined) {
        await plugin.validate?.(attrs);
        continue;
      }
      await assert.rejects(
        async () => plugin.validate?.(attrs),
        (err: unknown) => {
          assert.ok(err instanceof AdmissionError && err.code === 403, c.name);
          if (typeof c.error === "string") assert.equal(err.message, c.error);
          else assert.match(err.message, c.error as RegExp);
          return true;
        },
        c.name,
      );
    }
  } finally {
    await t.stop();
  }
});
