import assert from "node:assert/strict";
import { generateKeyPairSync } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { decodeJwt } from "jose";
import { formatFieldError, RegistryError } from "../../../backends/registry/index.ts";
import { ServiceAccountTokenSigner } from "./signer.ts";
import { startTestPlane, type TestPlane } from "./testing.ts";
import { createTokenRequest, type TokenRequestSettings } from "./token-request.ts";

const { privateKey } = generateKeyPairSync("ec", {
  namedCurve: "P-256",
  publicKeyEncoding: { type: "spki", format: "pem" },
  privateKeyEncoding: { type: "pkcs8", format: "pem" },
});
const signer = ServiceAccountTokenSigner.fromPem(privateKey);
const ISSUER = "https://issuer.example";

let plane: TestPlane;
let saUid = "";

function settings(overrides: Partial<TokenRequestSettings> = {}): TokenRequestSettings {
  return {
    naming: plane.naming,
    issuer: ISSUER,
    apiAudiences: ["https://api.example", "second"],
    maxExpirationMs: 0,
    ...overrides,
  };
}

function request(
  body: Record<string, unknown>,
  overrides: Partial<TokenRequestSettings> = {},
  name = "builder",
) {
  return createTokenRequest(plane.access, signer, settings(overrides), "ci", name, body);
}

/** Runs `fn`, which must fail with a RegistryError; returns it. */
async function failure(fn: () => Promise<unknown>): Promise<RegistryError> {
  try {
    await fn();
  } catch (err) {
    assert.ok(err instanceof RegistryError, String(err));
    return err;
  }
  assert.fail("expected a failure");
}

before(async () => {
  plane = await startTestPlane("cluster");
  const sa = await plane.create("serviceaccounts", "ci", { metadata: { name: "builder" } });
  saUid = sa.metadata.uid ?? "";
});
after(async () => {
  await plane.stop();
});

describe("TokenRequest", () => {
  it("defaults to the server's audiences and an hour, and answers with the token and its expiry", async () => {
    const before = Math.floor(Date.now() / 1000);
    const { tokenRequest, warnings } = await request({
      apiVersion: "authentication.cluster.io/v1",
      kind: "TokenRequest",
      spec: { audiences: null, expirationSeconds: null, boundObjectRef: null },
    });
    assert.deepEqual(warnings, []);
    assert.equal(tokenRequest.apiVersion, "authentication.cluster.io/v1");
    assert.equal(tokenRequest.kind, "TokenRequest");
    const meta = tokenRequest.metadata as Record<string, string>;
    assert.equal(meta.name, "builder");
    assert.equal(meta.namespace, "ci");
    assert.match(meta.creationTimestamp ?? "", /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    assert.deepEqual(tokenRequest.spec, {
      audiences: ["https://api.example", "second"],
      expirationSeconds: 3600,
    });
    const status = tokenRequest.status as { token: string; expirationTimestamp: string };
    assert.match(status.expirationTimestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const claims = decodeJwt(status.token);
    assert.equal(claims.iss, ISSUER);
    assert.deepEqual(claims.aud, ["https://api.example", "second"]);
    assert.equal(claims.sub, "system:serviceaccount:ci:builder");
    assert.ok((claims.iat ?? 0) >= before);
    assert.equal(claims.exp, (claims.iat ?? 0) + 3600);
    assert.equal(claims.nbf, claims.iat);
    assert.equal(Date.parse(status.expirationTimestamp) / 1000, claims.exp);
    assert.deepEqual(claims["cluster.io"], {
      namespace: "ci",
      serviceaccount: { name: "builder", uid: saUid },
    });
  });

  it("uses the requested audiences and lifetime, capped by the server's maximum with a warning", async () => {
    const { tokenRequest } = await request({ spec: { audiences: ["vault"], expirationSeconds: 7200 } });
    assert.deepEqual(tokenRequest.spec, { audiences: ["vault"], expirationSeconds: 7200 });
    const capped = await request({ spec: { expirationSeconds: 7200 } }, { maxExpirationMs: 3_600_000 });
    assert.deepEqual(capped.warnings, ["requested expiration of 7200 seconds shortened to 3600 seconds"]);
    assert.equal((capped.tokenRequest.spec as { expirationSeconds: number }).expirationSeconds, 3600);
    const claims = decodeJwt((capped.tokenRequest.status as { token: string }).token);
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 3600);
  });

  it("refuses lifetimes under ten minutes or over 2^32 seconds as invalid fields", async () => {
    const err = await failure(() => request({ spec: { expirationSeconds: 300 } }));
    assert.equal(err.reason, "Invalid");
    assert.deepEqual(err.target, {
      group: "authentication.cluster.io",
      resource: "tokenrequests",
      kind: "TokenRequest",
    });
    assert.equal(err.objectName, "");
    assert.deepEqual(err.causes.map(formatFieldError), [
      "spec.expirationSeconds: Invalid value: 300: may not specify a duration less than 10 minutes",
    ]);
    const big = await failure(() => request({ spec: { expirationSeconds: 2 ** 32 + 1 } }));
    assert.deepEqual(big.causes.map(formatFieldError), [
      "spec.expirationSeconds: Invalid value: 4294967297: may not specify a duration larger than 2^32 seconds",
    ]);
    const negative = await failure(() => request({ spec: { expirationSeconds: -1 } }));
    assert.equal(negative.reason, "Invalid");
  });

  it("refuses malformed bodies as bad requests, never as exceptions of another kind", async () => {
    for (const spec of [
      "nope",
      { audiences: "vault" },
      { audiences: [1] },
      { expirationSeconds: "600" },
      { expirationSeconds: 600.5 },
      { boundObjectRef: "x" },
    ]) {
      const err = await failure(() => request({ spec }));
      assert.equal(err.reason, "BadRequest", JSON.stringify(spec));
    }
  });

  it("requires the body's name and namespace, when given, to match the URL", async () => {
    const err = await failure(() => request({ metadata: { name: "other" } }));
    assert.equal(err.reason, "Invalid");
    assert.deepEqual(err.causes.map(formatFieldError), [
      'metadata.name: Invalid value: "other": must match the service account name if specified',
    ]);
    const ns = await failure(() => request({ metadata: { namespace: "elsewhere" } }));
    assert.deepEqual(
      ns.causes.map((c) => c.field),
      ["metadata.namespace"],
    );
    await request({ metadata: { name: "builder", namespace: "ci" } });
  });

  it("needs the service account to exist", async () => {
    const err = await failure(() => request({}, {}, "ghost"));
    assert.equal(err.reason, "NotFound");
    assert.deepEqual(err.target, { group: "", resource: "serviceaccounts", kind: "ServiceAccount" });
    assert.equal(err.objectName, "ghost");
    assert.equal(err.message, 'serviceaccounts "ghost" not found');
  });

  it("binds to a Secret of the namespace, checking its uid, and to no other kind", async () => {
    const secret = await plane.create("secrets", "ci", { metadata: { name: "anchor" }, data: {} });
    const ref = { kind: "Secret", apiVersion: "v1", name: "anchor" };
    const { tokenRequest } = await request({
      spec: { boundObjectRef: { ...ref, uid: secret.metadata.uid } },
    });
    assert.deepEqual((tokenRequest.spec as { boundObjectRef: unknown }).boundObjectRef, {
      ...ref,
      uid: secret.metadata.uid,
    });
    const claims = decodeJwt((tokenRequest.status as { token: string }).token) as Record<
      string,
      { secret?: unknown }
    >;
    assert.deepEqual(claims["cluster.io"]?.secret, { name: "anchor", uid: secret.metadata.uid });
    await request({ spec: { boundObjectRef: ref } });

    const conflict = await failure(() => request({ spec: { boundObjectRef: { ...ref, uid: "stale" } } }));
    assert.equal(conflict.reason, "Conflict");
    assert.deepEqual(conflict.target, { group: "", resource: "Secret", kind: "Secret" });
    assert.match(
      conflict.message,
      /the UID in the bound object reference \(stale\) does not match the UID in record/,
    );

    const missing = await failure(() => request({ spec: { boundObjectRef: { ...ref, name: "nothing" } } }));
    assert.equal(missing.reason, "NotFound");
    assert.equal(missing.message, 'secrets "nothing" not found');

    // A Secret of the same name in another namespace does not count.
    await plane.create("secrets", "other", { metadata: { name: "elsewhere" }, data: {} });
    const foreign = await failure(() => request({ spec: { boundObjectRef: { ...ref, name: "elsewhere" } } }));
    assert.equal(foreign.reason, "NotFound");

    const deployment = await failure(() =>
      request({ spec: { boundObjectRef: { kind: "Deployment", apiVersion: "apps/v1", name: "x" } } }),
    );
    assert.equal(deployment.reason, "BadRequest");
    assert.equal(deployment.message, "cannot bind token to object of type apps/v1, Kind=Deployment");
    const appsPod = await failure(() =>
      request({ spec: { boundObjectRef: { kind: "Pod", apiVersion: "apps/v1", name: "x" } } }),
    );
    assert.equal(appsPod.message, "cannot bind token to object of type apps/v1, Kind=Pod");
    const configMap = await failure(() =>
      request({ spec: { boundObjectRef: { kind: "ConfigMap", apiVersion: "v1", name: "x" } } }),
    );
    assert.equal(configMap.message, "cannot bind token to object of type /v1, Kind=ConfigMap");
  });

  it("binds to a Pod only when the pod runs as the account", async () => {
    const pod = await plane.create("pods", "ci", {
      metadata: { name: "job" },
      spec: { serviceAccountName: "builder", containers: [{ name: "c", image: "busybox" }] },
    });
    await plane.create("pods", "ci", {
      metadata: { name: "other-job" },
      spec: { serviceAccountName: "default", containers: [{ name: "c", image: "busybox" }] },
    });
    const { tokenRequest } = await request({
      spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "job", uid: pod.metadata.uid } },
    });
    const claims = decodeJwt((tokenRequest.status as { token: string }).token) as Record<
      string,
      { pod?: unknown }
    >;
    assert.deepEqual(claims["cluster.io"]?.pod, { name: "job", uid: pod.metadata.uid });
    const wrong = await failure(() =>
      request({ spec: { boundObjectRef: { kind: "Pod", apiVersion: "v1", name: "other-job" } } }),
    );
    assert.equal(wrong.reason, "BadRequest");
    assert.equal(
      wrong.message,
      'cannot bind token for serviceaccount "builder" to pod running with different serviceaccount name.',
    );
  });
});
