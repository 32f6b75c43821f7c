// Admission's cost per request, in-process: the default plugin set (upstream's, no webhooks
// registered) admitting and validating a Pod create, against a JSON round trip of the same Pod
// measured in the same run; then what 10 matching webhooks served over HTTPS on loopback add,
// validating (called in parallel) and mutating (called one after another), as p50 and p99.
// Run: node test/bench/admission.ts [--quick]
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { admissionAttributes } from "../../gateway/admission/attributes.ts";
import type { AdmissionChain } from "../../gateway/admission/chain.ts";
import { startAdmission } from "../../gateway/admission/setup.ts";
import { ADMIN, type AdmissionTest, startAdmissionTest } from "../../gateway/admission/testing.ts";
import { createAuthority, issueCertificate } from "../../gateway/pki/certificates.ts";
import { alwaysAllow } from "../../plugins/authorization/index.ts";
import { percentile, pod } from "./fixtures.ts";

type Obj = Record<string, unknown>;
const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 3 : 7;
const CALLS = quick ? 500 : 2_000;
const WEBHOOK_CALLS = quick ? 100 : 400;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

const podObject = (): Obj => {
  const p = pod(1) as Obj;
  return { ...p, metadata: { ...(p.metadata as Obj), namespace: "default", name: "bench" } };
};

function attributesFor(t: AdmissionTest, object: Obj, resource = "pods") {
  const served = t.resources.byResource("", resource);
  if (!served) throw new Error(`${resource} are not served`);
  return admissionAttributes({
    operation: "CREATE",
    served,
    version: "v1",
    name: "bench",
    namespace: "default",
    object,
    user: ADMIN,
  });
}

const configMapObject = (): Obj => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "bench", namespace: "default" },
  data: { a: "1" },
});

/** Microseconds per call of `run` over fresh Pods, median of rounds. */
async function perCall(run: (object: Obj) => Promise<void> | void): Promise<number> {
  const rounds: number[] = [];
  for (let r = -1; r < ROUNDS; r++) {
    const inputs = Array.from({ length: CALLS }, podObject);
    const start = process.hrtime.bigint();
    for (const o of inputs) await run(o);
    if (r >= 0) rounds.push(Number(process.hrtime.bigint() - start) / 1e3 / CALLS);
  }
  return median(rounds);
}

async function latencies(chain: AdmissionChain, t: AdmissionTest): Promise<{ p50: number; p99: number }> {
  const ms: number[] = [];
  for (let i = -20; i < WEBHOOK_CALLS; i++) {
    const a = attributesFor(t, podObject());
    const start = performance.now();
    await chain.admit(a);
    await chain.validate(a);
    if (i >= 0) ms.push(performance.now() - start);
  }
  return { p50: percentile(ms, 50), p99: percentile(ms, 99) };
}

async function peers(count: number): Promise<{ servers: Server[]; caPem: string; ports: number[] }> {
  const ca = await createAuthority("bench-webhook-ca");
  const leaf = await issueCertificate(ca, {
    commonName: "127.0.0.1",
    usage: "server",
    altNames: ["127.0.0.1"],
  });
  const servers: Server[] = [];
  const ports: number[] = [];
  for (let i = 0; i < count; i++) {
    const server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const review = JSON.parse(Buffer.concat(chunks).toString()) as {
          apiVersion: string;
          request: { uid: string };
        };
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            apiVersion: review.apiVersion,
            kind: "AdmissionReview",
            response: { uid: review.request.uid, allowed: true },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(server);
    ports.push((server.address() as AddressInfo).port);
  }
  return { servers, caPem: ca.certPem, ports };
}

function webhookConfiguration(
  kind: "Validating" | "Mutating",
  ports: number[],
  caPem: string,
  group: string,
): Obj {
  return {
    apiVersion: `${group}/v1`,
    kind: `${kind}WebhookConfiguration`,
    metadata: { name: `bench-${kind.toLowerCase()}` },
    webhooks: ports.map((port, i) => ({
      name: `hook-${i}.bench.example.com`,
      clientConfig: { url: `https://127.0.0.1:${port}/`, caBundle: Buffer.from(caPem).toString("base64") },
      rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods"] }],
      admissionReviewVersions: ["v1"],
      sideEffects: "None",
      timeoutSeconds: 10,
    })),
  };
}

const t = await startAdmissionTest();
const stop = new AbortController();
try {
  await t.create("serviceaccounts", "default", { metadata: { name: "default" } });
  const chain = await startAdmission({
    naming: t.naming,
    resources: t.resources,
    objects: t.objects,
    authorizer: alwaysAllow(),
    signal: stop.signal,
  });
  // Let the plugins' informers load before the clock starts.
  for (let i = 0; i < 50; i++) {
    const a = attributesFor(t, podObject());
    await chain.admit(a);
    await chain.validate(a);
  }
  const text = JSON.stringify(podObject());
  const roundTrip = await perCall(() => {
    JSON.parse(JSON.stringify(JSON.parse(text)));
  });
  const chainCost = await perCall(async (o) => {
    const a = attributesFor(t, o);
    await chain.admit(a);
    await chain.validate(a);
  });
  // A ConfigMap concerns none of the default plugins: what is left is the chain's own cost.
  const chainOnly = await perCall(async () => {
    const a = attributesFor(t, configMapObject(), "configmaps");
    await chain.admit(a);
    await chain.validate(a);
  });
  const bare = await latencies(chain, t);

  const group = t.naming.group("admissionregistration");
  const { servers, caPem, ports } = await peers(10);
  const hooks: Record<string, { p50: number; p99: number }> = {};
  try {
    for (const kind of ["Validating", "Mutating"] as const) {
      const plural = `${kind.toLowerCase()}webhookconfigurations`;
      await t.create(plural, undefined, webhookConfiguration(kind, ports, caPem, group), group);
      // Wait until the plugin's informer has the configuration (its calls show up as latency).
      const before = bare.p50;
      let sample = await latencies(chain, t);
      for (let i = 0; i < 50 && sample.p50 < before * 3; i++) {
        await new Promise((r) => setTimeout(r, 20));
        sample = await latencies(chain, t);
      }
      hooks[kind] = await latencies(chain, t);
      await t.resources.byResource(group, plural)?.registry.delete(undefined, `bench-${kind.toLowerCase()}`);
    }
  } finally {
    for (const s of servers) s.close();
  }
  await chain.close();

  console.log(
    `admission: the default plugins (${chain.names.length}): medians of ${ROUNDS} rounds of ${CALLS} calls`,
  );
  console.log("| figure | result | baseline | ratio | target |");
  console.log("|---|---|---|---|---|");
  console.log(
    `| chain without webhooks, Pod create (admit + validate) | ${chainCost.toFixed(1)} µs | ${roundTrip.toFixed(1)} µs (JSON round trip of the Pod) | ${(chainCost / roundTrip).toFixed(1)}x | ≤ 20 µs |`,
  );
  console.log(
    `| chain without webhooks, ConfigMap create (no plugin has work) | ${chainOnly.toFixed(1)} µs | | | ≤ 20 µs |`,
  );
  for (const [kind, figure] of Object.entries(hooks)) {
    console.log(
      `| 10 ${kind.toLowerCase()} webhooks on loopback, added latency p50 / p99 | ${(figure.p50 - bare.p50).toFixed(2)} / ${(figure.p99 - bare.p99).toFixed(2)} ms | ${bare.p50.toFixed(3)} / ${bare.p99.toFixed(3)} ms without | | report |`,
    );
  }
} finally {
  stop.abort();
  await t.stop();
}
