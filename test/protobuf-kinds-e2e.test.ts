// kubectl's typed create commands against the gateway with upstream's group names: kubectl 1.32
// and later send these objects as Protobuf (`application/vnd.kubernetes.protobuf`), which the
// gateway decodes for every kind of the built-in catalog. Each object is read back as JSON with
// the fields the command set (a Deployment's `replicas: 0` kept).
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  type GatewayProcess,
  kubectlRun,
  kubectlVersions,
  NO_KUBECTL,
  startGateway,
} from "./support/gateway-process.ts";

const newest = kubectlVersions().at(-1);
const skip = newest === undefined ? NO_KUBECTL : false;
const PROTOBUF = "application/vnd.kubernetes.protobuf";
// kubectl sends built-in kinds as Protobuf from 1.32 on.
const sendsProtobuf = Number(/kubectl\.1\.(\d+)$/.exec(newest ?? "")?.[1] ?? 0) >= 32;

type Json = Record<string, unknown>;

describe("kubectl typed create commands send Protobuf, for every kind", { skip }, () => {
  let gw: GatewayProcess;
  const bin = newest as string;

  before(async () => {
    gw = await startGateway(["--api-naming=kubernetes"]);
  });
  after(async () => {
    await gw?.stop();
  });

  /** Creates with kubectl (logging request headers), then reads the object back as JSON. */
  async function createAndGet(create: string[], get: string[]): Promise<Json> {
    const created = await kubectlRun(bin, gw.kubeconfig, ["create", ...create, "-v=8"]);
    assert.equal(
      created.code,
      0,
      `kubectl create ${create.join(" ")}:\n${created.stdout}\n${created.stderr}`,
    );
    // The body went out as Protobuf, so the gateway decoded it.
    if (sendsProtobuf)
      assert.ok(created.stderr.includes(PROTOBUF), `not sent as Protobuf:\n${created.stderr}`);
    const read = await kubectlRun(bin, gw.kubeconfig, ["get", ...get, "-o", "json"]);
    assert.equal(read.code, 0, read.stderr);
    return JSON.parse(read.stdout) as Json;
  }

  const podSpec = (o: Json, ...path: string[]): Json => {
    let at: unknown = o;
    for (const key of path) at = (at as Json)[key];
    return at as Json;
  };
  const firstContainer = (spec: Json) => (spec.containers as Json[])[0] as Json;

  it("create deployment --replicas=0", async () => {
    const d = await createAndGet(
      ["deployment", "web", "--image=nginx", "--replicas=0"],
      ["deployment", "web"],
    );
    const spec = d.spec as Json;
    assert.equal(spec.replicas, 0);
    assert.deepEqual(spec.selector, { matchLabels: { app: "web" } });
    const template = podSpec(d, "spec", "template", "spec");
    assert.equal(firstContainer(template).name, "nginx");
    assert.equal(firstContainer(template).image, "nginx");
  });

  it("create service clusterip --tcp=80:8080", async () => {
    const s = await createAndGet(["service", "clusterip", "web", "--tcp=80:8080"], ["service", "web"]);
    const spec = s.spec as Json;
    assert.equal(spec.type, "ClusterIP");
    assert.deepEqual(spec.ports, [{ name: "80-8080", port: 80, protocol: "TCP", targetPort: 8080 }]);
    assert.deepEqual(spec.selector, { app: "web" });
  });

  it("create pdb --min-available=1", async () => {
    const p = await createAndGet(["pdb", "keep", "--selector=app=web", "--min-available=1"], ["pdb", "keep"]);
    assert.equal(p.apiVersion, "policy/v1");
    const spec = p.spec as Json;
    assert.equal(spec.minAvailable, 1);
    assert.deepEqual(spec.selector, { matchLabels: { app: "web" } });
  });

  it("create job", async () => {
    const j = await createAndGet(["job", "once", "--image=busybox"], ["job", "once"]);
    const template = podSpec(j, "spec", "template", "spec");
    assert.equal(firstContainer(template).image, "busybox");
    assert.equal(template.restartPolicy, "Never");
  });

  it("create cronjob --schedule", async () => {
    const c = await createAndGet(
      ["cronjob", "nightly", "--image=busybox", "--schedule=0 3 * * *"],
      ["cronjob", "nightly"],
    );
    assert.equal((c.spec as Json).schedule, "0 3 * * *");
    const template = podSpec(c, "spec", "jobTemplate", "spec", "template", "spec");
    assert.equal(firstContainer(template).image, "busybox");
    assert.equal(template.restartPolicy, "OnFailure");
  });

  it("create priorityclass --value=1000", async () => {
    const p = await createAndGet(["priorityclass", "high", "--value=1000"], ["priorityclass", "high"]);
    assert.equal(p.apiVersion, "scheduling.k8s.io/v1");
    assert.equal(p.value, 1000);
    assert.equal(p.preemptionPolicy, "PreemptLowerPriority");
  });

  it("create ingress --rule", async () => {
    const i = await createAndGet(["ingress", "web", "--rule=example.com/=web:80"], ["ingress", "web"]);
    assert.equal(i.apiVersion, "networking.k8s.io/v1");
    const rules = (i.spec as Json).rules as Json[];
    assert.equal(rules.length, 1);
    assert.equal(rules[0]!.host, "example.com");
    const paths = (rules[0]!.http as Json).paths as Json[];
    assert.deepEqual(paths, [
      { path: "/", pathType: "Exact", backend: { service: { name: "web", port: { number: 80 } } } },
    ]);
  });
});
