import assert from "node:assert/strict";
import { test } from "node:test";
import { startAdmissionTest } from "../../../gateway/admission/testing.ts";
import type { Authorizer, Attributes as AuthzAttributes } from "../../authorization/index.ts";
import { AdmissionError } from "../index.ts";
import { registration } from "./index.ts";

// A fixed-rule authorizer: user -> allowed `sign` resourceNames on signers (our own contract).
function signers(grants: Record<string, string[]>, group: string): Authorizer & { asked: AuthzAttributes[] } {
  const asked: AuthzAttributes[] = [];
  return {
    name: "fixed",
    asked,
    authorize(a) {
      asked.push(a);
      const ok =
        a.verb === "sign" &&
        a.apiGroup === group &&
        a.resource === "signers" &&
        (grants[a.user.username] ?? []).includes(a.name);
      return { decision: ok ? "allow" : "noOpinion", reason: "" };
    },
  };
}

const csr = (certificate?: string) => ({
  apiVersion: "v1",
  kind: "CertificateSigningRequest",
  metadata: { name: "c" },
  spec: { signerName: "example.com/signer", request: "", usages: ["client auth"] },
  status: certificate === undefined ? {} : { certificate },
});
const user = (username: string) => ({ username, uid: "", groups: [], extra: {} });

test("CertificateSigning: signing needs sign on the signerName or its domain wildcard", async () => {
  const t = await startAdmissionTest();
  try {
    const group = t.naming.group("certificates");
    const authz = signers(
      { exact: ["example.com/signer"], wild: ["example.com/*"], other: ["other.com/*"] },
      group,
    );
    const plugin = await registration.factory(t.env({ authorizer: authz }));
    assert.equal(plugin.name, "CertificateSigning");
    const cases: { name: string; user: string; sub: string; old?: string; now?: string; deny: boolean }[] = [
      { name: "exact grant", user: "exact", sub: "status", now: "Y2VydA==", deny: false },
      { name: "wildcard grant", user: "wild", sub: "status", now: "Y2VydA==", deny: false },
      { name: "other domain", user: "other", sub: "status", now: "Y2VydA==", deny: true },
      { name: "nobody", user: "nobody", sub: "status", now: "Y2VydA==", deny: true },
      { name: "changed certificate", user: "nobody", sub: "status", old: "YQ==", now: "Yg==", deny: true },
      { name: "unchanged certificate", user: "nobody", sub: "status", old: "YQ==", now: "YQ==", deny: false },
      { name: "not the status subresource", user: "nobody", sub: "approval", now: "Y2VydA==", deny: false },
    ];
    for (const c of cases) {
      const attrs = t.attributes({
        resource: "certificatesigningrequests",
        name: "c",
        operation: "UPDATE",
        group,
        subresource: c.sub,
        object: csr(c.now),
        oldObject: csr(c.old),
        user: user(c.user),
      });
      if (!c.deny) {
        await plugin.validate?.(attrs);
        continue;
      }
      await assert.rejects(
        async () => plugin.validate?.(attrs),
        (err: unknown) => {
          assert.ok(err instanceof AdmissionError, c.name);
          assert.equal(err.code, 403, c.name);
          assert.equal(
            err.message,
            `certificatesigningrequests.${group} "c" is forbidden: user not permitted to sign requests with signerName "example.com/signer"`,
          );
          return true;
        },
        c.name,
      );
    }
    assert.ok(authz.asked.some((a) => a.name === "example.com/*" && a.user.username === "nobody"));
  } finally {
    await t.stop();
  }
});
