// Namespaces end to end: the default ServiceAccount appears, deletion empties the namespace,
// a terminating namespace refuses new content, and the namespace goes once nothing holds it.
import assert from "node:assert/strict";
import { it } from "node:test";
import { fileGateway } from "./support/file-gateways.ts";
import { eventually } from "./support/watch.ts";

const file = fileGateway();

const status = async (path: string) => (await file.api.call("GET", path)).status;

it("keeps a default ServiceAccount in every active namespace", async () => {
  assert.equal(
    (await file.api.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "team-a" } } })).status,
    201,
  );
  await eventually(
    async () => (await status("/api/v1/namespaces/team-a/serviceaccounts/default")) === 200,
    10_000,
    "default SA",
  );
  // The server's CA is published in the namespace, and put back when removed or changed.
  const caPath = "/api/v1/namespaces/team-a/configmaps/cluster-root-ca.crt";
  await eventually(async () => (await status(caPath)) === 200, 10_000, "root CA config map");
  const published = (await file.api.call("GET", caPath)).body as { data: Record<string, string> };
  assert.match(published.data["ca.crt"] ?? "", /BEGIN CERTIFICATE/);
  assert.equal((await file.api.call("DELETE", caPath)).status, 200);
  await eventually(async () => (await status(caPath)) === 200, 10_000, "root CA config map again");
  assert.equal(
    (
      await file.api.call("PUT", caPath, {
        body: { metadata: { name: "cluster-root-ca.crt" }, data: { "ca.crt": "x" } },
      })
    ).status,
    200,
  );
  await eventually(
    async () =>
      ((await file.api.call("GET", caPath)).body as { data: Record<string, string> }).data["ca.crt"] ===
      published.data["ca.crt"],
    10_000,
    "root CA config map restored",
  );
  assert.equal(
    (await file.api.call("DELETE", "/api/v1/namespaces/team-a/serviceaccounts/default")).status,
    200,
  );
  await eventually(
    async () => (await status("/api/v1/namespaces/team-a/serviceaccounts/default")) === 200,
    10_000,
    "default SA again",
  );
});

it("empties a deleted namespace, refuses new content while it terminates, then removes it", async () => {
  await file.api.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "team-b" } } });
  const cms = "/api/v1/namespaces/team-b/configmaps";
  assert.equal(
    (await file.api.call("POST", cms, { body: { metadata: { name: "plain" }, data: { a: "1" } } })).status,
    201,
  );
  assert.equal(
    (
      await file.api.call("POST", cms, {
        body: { metadata: { name: "held", finalizers: ["example.com/hold"] }, data: {} },
      })
    ).status,
    201,
  );
  const del = await file.api.call("DELETE", "/api/v1/namespaces/team-b");
  assert.equal(del.status, 200, "deletion waits for finalization (200 with the object, as upstream)");
  assert.equal(del.body.status.phase, "Terminating");
  await eventually(async () => (await status(`${cms}/plain`)) === 404, 10_000, "content deleted");
  const refused = await file.api.call("POST", cms, { body: { metadata: { name: "late" }, data: {} } });
  assert.equal(refused.status, 403);
  assert.match(
    refused.body.message,
    /unable to create new content in namespace team-b because it is being terminated/,
  );
  const held = await file.api.call("GET", `${cms}/held`);
  assert.ok(held.body.metadata.deletionTimestamp, "the held object is being deleted");
  assert.equal(await status("/api/v1/namespaces/team-b"), 200, "the namespace waits for the held object");
  const release = await file.api.call("PATCH", `${cms}/held`, {
    body: { metadata: { finalizers: null } },
    contentType: "application/merge-patch+json",
  });
  assert.equal(release.status, 200);
  await eventually(
    async () => (await status("/api/v1/namespaces/team-b")) === 404,
    10_000,
    "namespace removed",
  );
  assert.equal(
    (await file.api.call("POST", "/api/v1/namespaces", { body: { metadata: { name: "team-b" } } })).status,
    201,
    "name reusable",
  );
});
