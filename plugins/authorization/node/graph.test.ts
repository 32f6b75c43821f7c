import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { NodeGraph } from "./graph.ts";
import { podReferences } from "./pod-references.ts";

const sorted = (s: ReadonlySet<string>) => [...s].sort();

describe("podReferences", () => {
  it("finds secrets, config maps, claims and the service account everywhere a pod names them", () => {
    const refs = podReferences({
      metadata: { name: "p" },
      spec: {
        serviceAccount: "legacy",
        imagePullSecrets: [{ name: "pull" }, {}],
        initContainers: [{ env: [{ valueFrom: { secretKeyRef: { name: "init-env" } } }] }],
        ephemeralContainers: [{ envFrom: [{ configMapRef: { name: "debug-cm" } }] }],
        containers: [
          {
            env: [
              { name: "A", value: "x" },
              { valueFrom: { configMapKeyRef: { name: "cm-key" } } },
              { valueFrom: { fieldRef: { fieldPath: "metadata.name" } } },
            ],
            envFrom: [{ secretRef: { name: "env-all" } }],
          },
        ],
        volumes: [
          { name: "s", secret: { secretName: "vol-secret" } },
          { name: "c", configMap: { name: "vol-cm" } },
          { name: "az", azureFile: { secretName: "azure" } },
          { name: "csi", csi: { driver: "d", nodePublishSecretRef: { name: "csi-secret" } } },
          { name: "rbd", rbd: { secretRef: { name: "rbd-secret" } } },
          { name: "flex", flexVolume: { secretRef: { name: "flex-secret" } } },
          {
            name: "proj",
            projected: {
              sources: [
                { secret: { name: "proj-secret" } },
                { configMap: { name: "proj-cm" } },
                { serviceAccountToken: {} },
              ],
            },
          },
          { name: "claim", persistentVolumeClaim: { claimName: "data" } },
          { name: "scratch", ephemeral: { volumeClaimTemplate: { spec: {} } } },
          { name: "empty", emptyDir: {} },
        ],
      },
    });
    assert.deepEqual(sorted(refs.secrets), [
      "azure",
      "csi-secret",
      "env-all",
      "flex-secret",
      "init-env",
      "proj-secret",
      "pull",
      "rbd-secret",
      "vol-secret",
    ]);
    assert.deepEqual(sorted(refs.configMaps), ["cm-key", "debug-cm", "proj-cm", "vol-cm"]);
    assert.deepEqual(sorted(refs.claims), ["data", "p-scratch"]);
    assert.equal(refs.serviceAccount, "legacy");
  });

  it("yields nothing from junk instead of throwing", () => {
    for (const junk of [
      {},
      { spec: "x" },
      { spec: { containers: "x", volumes: [null, 1, "s", [], { secret: 5 }], imagePullSecrets: {} } },
      { spec: { containers: [{ env: [null, { valueFrom: [] }], envFrom: 3 }] } },
    ]) {
      const refs = podReferences(junk);
      assert.equal(refs.secrets.size + refs.configMaps.size + refs.claims.size, 0);
      assert.equal(refs.serviceAccount, "");
    }
  });
});

describe("NodeGraph", () => {
  const pod = (name: string, node: string, secret: string, extra: Record<string, unknown> = {}) => ({
    metadata: { name, namespace: "ns" },
    spec: { nodeName: node, volumes: [{ name: "v", secret: { secretName: secret } }], ...extra },
  });

  it("moves references with the pod and counts shared ones", () => {
    const g = new NodeGraph();
    g.setPod(pod("p1", "a", "s"));
    g.setPod(pod("p2", "a", "s"));
    assert.equal(g.related("a", "secret", "ns", "s"), true);
    assert.equal(g.related("a", "pod", "ns", "p1"), true);
    g.setPod(pod("p1", "b", "s"));
    assert.equal(g.related("a", "secret", "ns", "s"), true, "p2 still needs it on a");
    assert.equal(g.related("a", "pod", "ns", "p1"), false);
    assert.equal(g.related("b", "secret", "ns", "s"), true);
    g.deletePod(pod("p2", "a", "s"));
    assert.equal(g.related("a", "secret", "ns", "s"), false);
    g.setPod({ metadata: { name: "p1", namespace: "ns" }, spec: {} });
    assert.equal(g.related("b", "secret", "ns", "s"), false, "an unbound pod holds nothing");
    assert.equal(g.podCount, 0);
    // Repeated events for the same pod do not pile up.
    g.setPod(pod("p3", "c", "t"));
    g.setPod(pod("p3", "c", "t"));
    g.deletePod(pod("p3", "c", "t"));
    assert.equal(g.related("c", "secret", "ns", "t"), false);
  });

  it("relates a volume through any claim bound to it", () => {
    const g = new NodeGraph();
    g.setPod({
      metadata: { name: "p", namespace: "ns" },
      spec: { nodeName: "a", volumes: [{ name: "d", persistentVolumeClaim: { claimName: "c1" } }] },
    });
    assert.equal(g.related("a", "persistentvolume", "", "pv"), false);
    g.setClaim({ metadata: { name: "c1", namespace: "ns" }, spec: { volumeName: "pv" } });
    assert.equal(g.related("a", "persistentvolume", "", "pv"), true);
    assert.equal(g.related("b", "persistentvolume", "", "pv"), false);
    g.setClaim({ metadata: { name: "c1", namespace: "ns" }, spec: { volumeName: "pv2" } });
    assert.equal(g.related("a", "persistentvolume", "", "pv"), false);
    assert.equal(g.related("a", "persistentvolume", "", "pv2"), true);
    g.deleteClaim({ metadata: { name: "c1", namespace: "ns" } });
    assert.equal(g.related("a", "persistentvolume", "", "pv2"), false);
  });

  it("ignores junk objects", () => {
    const g = new NodeGraph();
    for (const junk of [{}, { metadata: 3 }, { metadata: { name: "x" }, spec: { nodeName: 5 } }]) {
      g.setPod(junk);
      g.deletePod(junk);
      g.setClaim(junk);
      g.deleteClaim(junk);
    }
    assert.equal(g.podCount, 0);
  });
});
