// The type system as kubectl (oldest and newest supported) sees it: real manifests accepted,
// defaulted and validated under kubectl's default strict validation, explain, conversion between
// served versions, deprecation warnings and --runtime-config.
import assert from "node:assert/strict";
import { rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import {
  type GatewayProcess,
  kubectlRun,
  NO_KUBECTL,
  oldestAndNewestKubectl,
  startGateway,
} from "./support/gateway-process.ts";

const versions = oldestAndNewestKubectl();
let gw: GatewayProcess;

const manifest = (ns: string) => `
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: ${ns}
  labels: {app: web}
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      securityContext: {runAsNonRoot: true, runAsUser: 1000, fsGroup: 2000}
      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector: {matchLabels: {app: web}}
              topologyKey: topology.example.com/zone
      tolerations:
      - {key: dedicated, operator: Equal, value: web, effect: NoSchedule}
      containers:
      - name: web
        image: nginx:1.25
        ports:
        - {containerPort: 8080, name: http}
        resources:
          requests: {cpu: 100m, memory: 128Mi}
          limits: {cpu: "1", memory: 256Mi}
        readinessProbe:
          httpGet: {path: /healthz, port: http}
          initialDelaySeconds: 5
        livenessProbe:
          tcpSocket: {port: 8080}
        securityContext:
          allowPrivilegeEscalation: false
          readOnlyRootFilesystem: true
          capabilities: {drop: [ALL]}
        volumeMounts:
        - {name: cache, mountPath: /cache}
        - {name: config, mountPath: /etc/web, readOnly: true}
      volumes:
      - name: cache
        emptyDir: {sizeLimit: 1Gi}
      - name: config
        configMap: {name: web-config}
---
apiVersion: v1
kind: Service
metadata:
  name: web
  namespace: ${ns}
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: http
---
apiVersion: batch/v1
kind: CronJob
metadata:
  name: nightly
  namespace: ${ns}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: job
            image: busybox:1.36
            command: [sh, -c, "echo hi"]
`;

before(async () => {
  if (versions.length > 0) gw = await startGateway(["--api-naming=kubernetes"]);
});
after(async () => {
  await gw?.stop();
  if (gw) await rm(gw.dataDir, { recursive: true, force: true });
});

if (versions.length === 0) describe("types with kubectl", { skip: NO_KUBECTL }, () => {});
for (const bin of versions) {
  const v = bin.split("kubectl.")[1] ?? "";
  const ns = `types-${v.replace(".", "-")}`;
  const k = (args: string[], input?: string) => kubectlRun(bin, gw.kubeconfig, args, input);
  const ok = async (args: string[], input?: string) => {
    const r = await k(args, input);
    assert.equal(r.code, 0, `kubectl ${args.join(" ")}:\n${r.stdout}${r.stderr}`);
    return r;
  };

  describe(`types with kubectl ${v}`, () => {
    it("applies a realistic manifest and stores upstream's defaults", async () => {
      await ok(["create", "namespace", ns]);
      const file = join(gw.dataDir, `manifest-${v}.yaml`);
      await writeFile(file, manifest(ns));
      const applied = await ok(["apply", "-f", file]);
      assert.match(applied.stdout, /deployment.apps\/web created/);
      assert.match(applied.stdout, /service\/web created/);
      assert.match(applied.stdout, /cronjob.batch\/nightly created/);
      const deploy = JSON.parse((await ok(["get", "deploy", "web", "-n", ns, "-o", "json"])).stdout);
      assert.deepEqual(deploy.spec.strategy, {
        type: "RollingUpdate",
        rollingUpdate: { maxSurge: "25%", maxUnavailable: "25%" },
      });
      assert.equal(deploy.spec.progressDeadlineSeconds, 600);
      assert.equal(deploy.spec.revisionHistoryLimit, 10);
      const pod = deploy.spec.template.spec;
      assert.equal(pod.restartPolicy, "Always");
      assert.equal(pod.dnsPolicy, "ClusterFirst");
      assert.equal(pod.schedulerName, "default-scheduler");
      assert.equal(pod.terminationGracePeriodSeconds, 30);
      const c = pod.containers[0];
      assert.equal(c.imagePullPolicy, "IfNotPresent");
      assert.equal(c.terminationMessagePath, "/dev/termination-log");
      assert.equal(c.ports[0].protocol, "TCP");
      assert.equal(c.readinessProbe.httpGet.scheme, "HTTP");
      assert.equal(c.livenessProbe.periodSeconds, 10);
      assert.equal(pod.volumes[1].configMap.defaultMode, 420);
      const svc = JSON.parse((await ok(["get", "svc", "web", "-n", ns, "-o", "json"])).stdout);
      assert.equal(svc.spec.type, "ClusterIP");
      assert.equal(svc.spec.sessionAffinity, "None");
      assert.equal(svc.spec.ports[0].protocol, "TCP");
      assert.match(svc.spec.clusterIP, /^10\.0\.0\.\d+$/);
      const table = (await ok(["get", "deploy,svc,cronjob", "-n", ns])).stdout;
      assert.match(table, /deployment.apps\/web\s+0\/2\s+0\s+0\s/);
      assert.match(table, /service\/web\s+ClusterIP\s+10\.0\.0\.\d+\s+<none>\s+80\/TCP\s/);
      assert.match(table, /cronjob.batch\/nightly\s+0 3 \* \* \*\s+False\s+0\s+<none>\s/);
    });

    it("rejects a typo'd field and a value of the wrong type", async () => {
      const typo = manifest(ns)
        .split("---")[0]
        ?.replace("replicas: 2", "replicass: 2")
        .replace("name: web\n  namespace", "name: typo\n  namespace");
      const refused = await k(["create", "-f", "-"], typo);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /strict decoding error: unknown field "spec.replicass"/);
      const wrong = await k(
        ["create", "-f", "-"],
        `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"wrong","namespace":"${ns}"},"spec":{"replicas":"two"}}`,
      );
      assert.match(
        wrong.stderr,
        /cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32/,
      );
      const invalid = await k(
        ["create", "-f", "-"],
        `{"apiVersion":"v1","kind":"Service","metadata":{"name":"bad","namespace":"${ns}"},"spec":{"type":"Fancy","ports":[{"port":80}]}}`,
      );
      assert.match(invalid.stderr, /spec.type: Unsupported value: "Fancy"/);
      const typoStored = await k(["get", "deploy", "typo", "-n", ns]);
      assert.notEqual(typoStored.code, 0);
      assert.match(typoStored.stderr, /Error from server \(NotFound\): deployments.apps "typo" not found/);
    });

    it("explains fields with our descriptions", async () => {
      const out = (await ok(["explain", "deployment.spec.strategy"])).stdout;
      assert.match(out, /rollingUpdate\s+<RollingUpdateDeployment>/);
      assert.match(out, /How a Deployment swaps old pods for new ones/);
      const ports = (await ok(["explain", "pod.spec.containers.ports"])).stdout;
      assert.match(ports, /containerPort\s+<integer> -required-/);
    });

    it("converts HorizontalPodAutoscalers between v1 and v2 without loss", async () => {
      const v2 = {
        apiVersion: "autoscaling/v2",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "web", namespace: ns },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          minReplicas: 2,
          maxReplicas: 10,
          metrics: [
            {
              type: "Resource",
              resource: { name: "memory", target: { type: "AverageValue", averageValue: "500Mi" } },
            },
            {
              type: "Resource",
              resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 70 } },
            },
          ],
        },
      };
      await ok(["create", "-f", "-"], JSON.stringify(v2));
      const asV1 = JSON.parse(
        (await ok(["get", "horizontalpodautoscalers.v1.autoscaling", "web", "-n", ns, "-o", "json"])).stdout,
      );
      assert.equal(asV1.apiVersion, "autoscaling/v1");
      assert.equal(asV1.spec.targetCPUUtilizationPercentage, 70);
      assert.ok(
        Object.keys(asV1.metadata.annotations ?? {}).some((a) => a.endsWith("/metrics")),
        JSON.stringify(asV1.metadata),
      );
      const back = JSON.parse(
        (await ok(["get", "hpa.v2.autoscaling", "web", "-n", ns, "-o", "json"])).stdout,
      );
      assert.deepEqual(back.spec.metrics, v2.spec.metrics);
      assert.equal(back.metadata.annotations, undefined);

      const v1 = {
        apiVersion: "autoscaling/v1",
        kind: "HorizontalPodAutoscaler",
        metadata: { name: "old", namespace: ns },
        spec: {
          scaleTargetRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" },
          maxReplicas: 4,
          targetCPUUtilizationPercentage: 60,
        },
      };
      await ok(["create", "-f", "-"], JSON.stringify(v1));
      const stored = JSON.parse(
        (await ok(["get", "hpa.v2.autoscaling", "old", "-n", ns, "-o", "json"])).stdout,
      );
      assert.deepEqual(stored.spec.metrics, [
        {
          type: "Resource",
          resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } },
        },
      ]);
      assert.equal(stored.spec.minReplicas, 1);
      const again = JSON.parse(
        (await ok(["get", "horizontalpodautoscalers.v1.autoscaling", "old", "-n", ns, "-o", "json"])).stdout,
      );
      assert.deepEqual(again.spec, { ...v1.spec, minReplicas: 1 });
    });

    it("serves core Events in the events group under its field names", async () => {
      const event = {
        apiVersion: "events.k8s.io/v1",
        kind: "Event",
        metadata: { name: "scaled", namespace: ns },
        eventTime: "2026-11-22T09:00:00.000000Z",
        reportingController: "example.com/autoscaler",
        reportingInstance: "autoscaler-1",
        action: "Scale",
        reason: "Scaled",
        type: "Normal",
        note: "scaled up to 3",
        regarding: { apiVersion: "apps/v1", kind: "Deployment", name: "web", namespace: ns },
      };
      await ok(["create", "-f", "-"], JSON.stringify(event));
      const core = JSON.parse((await ok(["get", "events.v1.", "scaled", "-n", ns, "-o", "json"])).stdout);
      assert.equal(core.apiVersion, "v1");
      assert.equal(core.message, "scaled up to 3");
      assert.equal(core.reportingComponent, "example.com/autoscaler");
      assert.deepEqual(core.involvedObject, event.regarding);
      const back = JSON.parse(
        (await ok(["get", "events.v1.events.k8s.io", "scaled", "-n", ns, "-o", "json"])).stdout,
      );
      assert.equal(back.note, "scaled up to 3");
      assert.deepEqual(back.regarding, event.regarding);
      assert.match(
        (await ok(["get", "events", "-n", ns])).stdout,
        /scaled\s+\S+\s+Normal\s+Scaled\s+deployment\/web\s+scaled up to 3/,
      );
    });

    it("warns on deprecated versions and renames flow control's shares", async () => {
      const group = "flowcontrol.apiserver.k8s.io";
      const plc = {
        apiVersion: `${group}/v1beta2`,
        kind: "PriorityLevelConfiguration",
        metadata: { name: `batch-${v.replace(".", "-")}` },
        spec: {
          type: "Limited",
          limited: { assuredConcurrencyShares: 7, limitResponse: { type: "Reject" } },
        },
      };
      const created = await ok(["create", "-f", "-"], JSON.stringify(plc));
      assert.match(
        created.stderr,
        /Warning: flowcontrol.apiserver.k8s.io\/v1beta2 PriorityLevelConfiguration is deprecated in v1.26\+, unavailable in v1.29\+; use flowcontrol.apiserver.k8s.io\/v1beta3 PriorityLevelConfiguration/,
      );
      const v3 = JSON.parse(
        (await ok(["get", `prioritylevelconfigurations.v1beta3.${group}`, plc.metadata.name, "-o", "json"]))
          .stdout,
      );
      assert.equal(v3.spec.limited.nominalConcurrencyShares, 7);
      assert.equal(v3.spec.limited.assuredConcurrencyShares, undefined);
      const listed = await ok(["get", `flowschemas.v1beta2.${group}`]);
      assert.match(listed.stderr, /v1beta2 FlowSchema is deprecated/);
      const metrics = (await ok(["get", "--raw", "/metrics"])).stdout;
      assert.match(
        metrics,
        /^apiserver_requested_deprecated_apis\{group="flowcontrol.apiserver.k8s.io",version="v1beta2",resource="flowschemas",subresource="",removed_release="1.29"\} 1$/m,
      );
      assert.doesNotMatch(metrics, /apiserver_requested_deprecated_apis\{[^}]*version="v1beta3"/);
    });
  });
}

describe("--runtime-config", { skip: versions.length === 0 ? NO_KUBECTL : false }, () => {
  let off: GatewayProcess;
  before(async () => {
    off = await startGateway([
      "--api-naming=kubernetes",
      "--runtime-config=batch/v1=false,autoscaling/v1=false",
    ]);
  });
  after(async () => {
    await off?.stop();
    if (off) await rm(off.dataDir, { recursive: true, force: true });
  });

  it("turns versions off: they are not discovered and answer 404", async () => {
    const bin = versions[versions.length - 1] as string;
    const resources = await kubectlRun(bin, off.kubeconfig, ["api-resources"]);
    assert.doesNotMatch(resources.stdout, /^cronjobs\s/m);
    assert.match(resources.stdout, /^horizontalpodautoscalers\s+hpa\s+autoscaling\/v2\s/m);
    const raw = await kubectlRun(bin, off.kubeconfig, [
      "get",
      "--raw",
      "/apis/batch/v1/namespaces/default/jobs",
    ]);
    assert.notEqual(raw.code, 0);
    assert.match(raw.stderr, /NotFound/);
    const v1 = await kubectlRun(bin, off.kubeconfig, [
      "get",
      "--raw",
      "/apis/autoscaling/v1/horizontalpodautoscalers",
    ]);
    assert.match(v1.stderr, /NotFound/);
  });
});
