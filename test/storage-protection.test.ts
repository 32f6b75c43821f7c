// Protected claims and volumes end to end: a claim being deleted stays while a pod uses it and
// goes when the pod does; a volume being deleted stays while bound.
import assert from "node:assert/strict";
import { it } from "node:test";
import { fileGateway } from "./support/file-gateways.ts";
import { eventually } from "./support/watch.ts";

const file = fileGateway();

const status = async (path: string) => (await file.api.call("GET", path)).status;
const CLAIMS = "/api/v1/namespaces/default/persistentvolumeclaims";

it("a claim in use outlives its deletion until the pod goes", async () => {
  await eventually(
    async () => (await status("/api/v1/namespaces/default/serviceaccounts/default")) === 200,
    10_000,
    "default SA",
  );
  const claim = {
    metadata: { name: "data", finalizers: ["cluster.io/pvc-protection"] },
    spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "1Gi" } } },
  };
  assert.equal((await file.api.call("POST", CLAIMS, { body: claim })).status, 201);
  const pod = {
    metadata: { name: "user" },
    spec: {
      containers: [{ name: "c", image: "busybox:1", volumeMounts: [{ name: "d", mountPath: "/d" }] }],
      volumes: [{ name: "d", persistentVolumeClaim: { claimName: "data" } }],
    },
  };
  assert.equal((await file.api.call("POST", "/api/v1/namespaces/default/pods", { body: pod })).status, 201);
  assert.equal((await file.api.call("DELETE", `${CLAIMS}/data`)).status, 200);
  // An unused claim deleted after it goes at once; the controller takes claims in order, so once
  // that one is gone it has decided about "data" too.
  assert.equal(
    (
      await file.api.call("POST", CLAIMS, {
        body: { ...claim, metadata: { ...claim.metadata, name: "idle" } },
      })
    ).status,
    201,
  );
  assert.equal((await file.api.call("DELETE", `${CLAIMS}/idle`)).status, 200);
  await eventually(async () => (await status(`${CLAIMS}/idle`)) === 404, 10_000, "idle claim released");
  // Still there, being deleted, while the pod uses it.
  const held = await file.api.call("GET", `${CLAIMS}/data`);
  assert.equal(held.status, 200);
  assert.ok((held.body as { metadata: { deletionTimestamp?: string } }).metadata.deletionTimestamp);
  assert.equal(
    (await file.api.call("DELETE", "/api/v1/namespaces/default/pods/user?gracePeriodSeconds=0")).status,
    200,
  );
  await eventually(async () => (await status(`${CLAIMS}/data`)) === 404, 10_000, "claim released");
});

it("a bound volume outlives its deletion until it is no longer bound", async () => {
  const volume = {
    metadata: { name: "pv1", finalizers: ["cluster.io/pv-protection"] },
    spec: { capacity: { storage: "1Gi" }, accessModes: ["ReadWriteOnce"], hostPath: { path: "/tmp/pv1" } },
  };
  assert.equal((await file.api.call("POST", "/api/v1/persistentvolumes", { body: volume })).status, 201);
  const bound = await file.api.call("PATCH", "/api/v1/persistentvolumes/pv1/status", {
    body: { status: { phase: "Bound" } },
    contentType: "application/merge-patch+json",
  });
  assert.equal(bound.status, 200);
  assert.equal((await file.api.call("DELETE", "/api/v1/persistentvolumes/pv1")).status, 200);
  // An unbound volume deleted after it goes at once; volumes are taken in order, so once that one
  // is gone the controller has decided about pv1 too.
  const idle = { ...volume, metadata: { ...volume.metadata, name: "pv-idle" } };
  assert.equal((await file.api.call("POST", "/api/v1/persistentvolumes", { body: idle })).status, 201);
  assert.equal((await file.api.call("DELETE", "/api/v1/persistentvolumes/pv-idle")).status, 200);
  await eventually(
    async () => (await status("/api/v1/persistentvolumes/pv-idle")) === 404,
    10_000,
    "idle volume released",
  );
  assert.equal(await status("/api/v1/persistentvolumes/pv1"), 200);
  const released = await file.api.call("PATCH", "/api/v1/persistentvolumes/pv1/status", {
    body: { status: { phase: "Released" } },
    contentType: "application/merge-patch+json",
  });
  assert.equal(released.status, 200);
  await eventually(
    async () => (await status("/api/v1/persistentvolumes/pv1")) === 404,
    10_000,
    "volume released",
  );
});
