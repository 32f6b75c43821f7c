// Server-side apply's own cost, in-process: a Deployment with 50 containers applied onto its
// live object (merge, field sets, conflict check, pruning), against a JSON round trip of the
// same object measured in the same run; and how big managedFields get under repeated updates.
// Run: node test/bench/apply.ts [--quick]
import { kindSchema } from "../../backends/builtin/typed.ts";
import { builtinCatalog } from "../../backends/catalog/index.ts";
import { FieldManager, type VersionView } from "../../gateway/fieldmanager/field-manager.ts";

type Obj = Record<string, unknown>;
const quick = process.argv.includes("--quick");
const ROUNDS = quick ? 3 : 7;
const CALLS = quick ? 50 : 200;

const schema = kindSchema(builtinCatalog(), "apps/v1.Deployment");
const view: VersionView = {
  kind: "Deployment",
  hasStatus: true,
  apiVersion: (v) => `apps/${v}`,
  versionOf: (av) => (av === "apps/v1" ? "v1" : undefined),
  schema: () => schema,
  convert: (o) => o,
};
const fm = new FieldManager({
  view,
  version: "v1",
  subresource: "",
  lastAppliedAnnotation: "x/last-applied",
});

const config = (image: string): Obj => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name: "big", namespace: "default", labels: { app: "big" } },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: "big" } },
    template: {
      metadata: { labels: { app: "big" } },
      spec: {
        containers: Array.from({ length: 50 }, (_, i) => ({
          name: `c${i}`,
          image: i === 0 ? image : `registry.example.com/c${i}:1`,
          ports: [{ containerPort: 8000 + i, protocol: "TCP" }],
          env: [
            { name: "INDEX", value: String(i) },
            { name: "MODE", value: "production" },
          ],
          resources: { requests: { cpu: "10m", memory: "16Mi" } },
        })),
      },
    },
  },
});

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] as number;
}

async function measure(run: () => unknown, prepare?: () => Promise<void> | void): Promise<number> {
  const rounds: number[] = [];
  for (let r = -1; r < ROUNDS; r++) {
    await prepare?.();
    const start = process.hrtime.bigint();
    for (let i = 0; i < CALLS; i++) await run();
    if (r >= 0) rounds.push(Number(process.hrtime.bigint() - start) / 1e6 / CALLS);
  }
  return median(rounds);
}

const live = await fm.apply(undefined, config("nginx:1"), "ci", false);
const text = JSON.stringify(live);
const roundTrip = await measure(() => JSON.parse(JSON.stringify(JSON.parse(text))));
// Inputs are decoded before the clock starts: the registry hands the field manager objects it has
// already decoded, so decoding is not apply's cost.
let flip = 0;
let inputs: [Obj, Obj][] = [];
const prepare = () => {
  inputs = Array.from({ length: CALLS }, () => [JSON.parse(text) as Obj, config(`nginx:${flip++ % 2}`)]);
};
const apply = await measure(() => {
  const [liveObject, applied] = inputs.pop() as [Obj, Obj];
  return fm.apply(liveObject, applied, "ci", false);
}, prepare);
// The same with every object's managedFields new to the process (a label unique to each call), so
// none of its sets has been decoded before: the cost after a restart or for a first-seen object.
let unique = 0;
const prepareCold = async () => {
  inputs = [];
  for (let i = 0; i < CALLS; i++) {
    const label = `u${unique++}`;
    const labelled = (image: string) => {
      const c = config(image);
      (c.metadata as Obj).labels = { app: "big", [label]: "1" };
      return c;
    };
    const seeded = await fm.apply(undefined, labelled("nginx:0"), "ci", false);
    inputs.push([JSON.parse(JSON.stringify(seeded)) as Obj, labelled("nginx:1")]);
  }
};
const applyCold = await measure(() => {
  const [liveObject, applied] = inputs.pop() as [Obj, Obj];
  return fm.apply(liveObject, applied, "ci", false);
}, prepareCold);

// Managers writing one key each, over and over: entries are capped and sets stay the size of
// what each owns.
const cmView: VersionView = {
  ...view,
  kind: "ConfigMap",
  hasStatus: false,
  apiVersion: (v) => v,
  versionOf: (av) => (av === "v1" ? "v1" : undefined),
  schema: () => kindSchema(builtinCatalog(), "core/v1.ConfigMap"),
};
const cm = new FieldManager({ view: cmView, version: "v1", subresource: "", lastAppliedAnnotation: "x" });
let obj: Obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "c" }, data: { seed: "0" } };
await cm.update(undefined, obj, undefined, "creator");
const sizes: number[] = [];
for (let i = 0; i < 1000; i++) {
  const next = structuredClone(obj);
  (next.data as Obj)[`k${i % 40}`] = String(i);
  await cm.update(obj, next, (next.metadata as Obj).managedFields, `writer-${i % 25}`);
  obj = next;
  if ((i + 1) % 250 === 0) sizes.push(JSON.stringify((obj.metadata as Obj).managedFields).length);
}
const entries = ((obj.metadata as Obj).managedFields as Obj[]).length;

console.log(`apply: medians of ${ROUNDS} rounds of ${CALLS} calls`);
console.log("| figure | result | baseline (JSON round trip of the object) | ratio | target |");
console.log("|---|---|---|---|---|");
console.log(
  `| server-side apply, Deployment with 50 containers | ${apply.toFixed(2)} ms | ${roundTrip.toFixed(2)} ms | ${(apply / roundTrip).toFixed(1)}x | ≤ 5 ms |`,
);
console.log(
  `| the same, managedFields never seen before (cold set cache) | ${applyCold.toFixed(2)} ms | ${roundTrip.toFixed(2)} ms | ${(applyCold / roundTrip).toFixed(1)}x | ≤ 5 ms |`,
);
console.log(
  `| managedFields after 250/500/750/1000 updates by 25 managers | ${sizes.join(" / ")} bytes, ${entries} entries | | | bounded |`,
);
