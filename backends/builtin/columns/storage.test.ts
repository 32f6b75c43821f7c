import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { builtinColumns } from "./index.ts";
import { assertTolerant, type Case, CREATED, mustColumns, runCases } from "./test-support.ts";

const k8s = naming("kubernetes");
const meta = (name: string, annotations: Record<string, string> = {}) => ({
  name,
  creationTimestamp: CREATED,
  annotations,
});

const cases: Case[] = [
  {
    name: "default storage class",
    group: "storage",
    plural: "storageclasses",
    object: {
      metadata: meta("standard", { [k8s.label("is-default-class", "storageclass")]: "true" }),
      provisioner: "ebs.csi.example.com",
      volumeBindingMode: "WaitForFirstConsumer",
      allowVolumeExpansion: true,
      parameters: { type: "gp3" },
    },
    row: [
      ["Name", "string", 0, "standard (default)"],
      ["Provisioner", "string", 0, "ebs.csi.example.com"],
      ["ReclaimPolicy", "string", 0, "Delete"],
      ["VolumeBindingMode", "string", 0, "WaitForFirstConsumer"],
      ["AllowVolumeExpansion", "string", 0, true],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "default through the beta annotation",
    group: "storage",
    plural: "storageclasses",
    object: {
      metadata: meta("old", { [k8s.label("is-default-class", "storageclass.beta")]: "true" }),
      provisioner: "example.com/nfs",
      reclaimPolicy: "Retain",
    },
    row: [
      ["Name", "string", 0, "old (default)"],
      ["Provisioner", "string", 0, "example.com/nfs"],
      ["ReclaimPolicy", "string", 0, "Retain"],
      ["VolumeBindingMode", "string", 0, "Immediate"],
      ["AllowVolumeExpansion", "string", 0, false],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "not the default",
    group: "storage",
    plural: "storageclasses",
    object: {
      metadata: meta("slow", { [k8s.label("is-default-class", "storageclass")]: "false" }),
      provisioner: "example.com/hdd",
    },
    row: [
      ["Name", "string", 0, "slow"],
      ["Provisioner", "string", 0, "example.com/hdd"],
      ["ReclaimPolicy", "string", 0, "Delete"],
      ["VolumeBindingMode", "string", 0, "Immediate"],
      ["AllowVolumeExpansion", "string", 0, false],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "CSI driver with every option",
    group: "storage",
    plural: "csidrivers",
    object: {
      metadata: meta("csi.example.com"),
      spec: {
        attachRequired: false,
        podInfoOnMount: true,
        storageCapacity: true,
        tokenRequests: [{ audience: "vault" }, { audience: "gcp", expirationSeconds: 3600 }],
        requiresRepublish: true,
        volumeLifecycleModes: ["Persistent", "Ephemeral"],
        fsGroupPolicy: "File",
      },
    },
    row: [
      ["AttachRequired", "boolean", 0, false],
      ["PodInfoOnMount", "boolean", 0, true],
      ["StorageCapacity", "boolean", 0, true],
      ["TokenRequests", "string", 0, "vault,gcp"],
      ["RequiresRepublish", "boolean", 0, true],
      ["Modes", "string", 0, "Persistent,Ephemeral"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "CSI driver with defaults",
    group: "storage",
    plural: "csidrivers",
    object: { metadata: meta("plain.example.com"), spec: {} },
    row: [
      ["AttachRequired", "boolean", 0, true],
      ["PodInfoOnMount", "boolean", 0, false],
      ["StorageCapacity", "boolean", 0, false],
      ["TokenRequests", "string", 0, "<unset>"],
      ["RequiresRepublish", "boolean", 0, false],
      ["Modes", "string", 0, "<none>"],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "CSI node with two drivers",
    group: "storage",
    plural: "csinodes",
    object: {
      metadata: meta("node-1"),
      spec: {
        drivers: [
          { name: "a.example.com", nodeID: "node-1" },
          { name: "b.example.com", nodeID: "i-0abc" },
        ],
      },
    },
    row: [
      ["Drivers", "integer", 0, 2],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "attached volume",
    group: "storage",
    plural: "volumeattachments",
    object: {
      metadata: meta("csi-3b1f"),
      spec: { attacher: "csi.example.com", source: { persistentVolumeName: "pv-1" }, nodeName: "node-1" },
      status: { attached: true, attachmentMetadata: { devicePath: "/dev/xvdb" } },
    },
    row: [
      ["Attacher", "string", 0, "csi.example.com"],
      ["PV", "string", 0, "pv-1"],
      ["Node", "string", 0, "node-1"],
      ["Attached", "boolean", 0, true],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "inline volume not attached yet",
    group: "storage",
    plural: "volumeattachments",
    object: {
      metadata: meta("csi-9a0c"),
      spec: { attacher: "csi.example.com", source: { inlineVolumeSpec: {} }, nodeName: "node-2" },
    },
    row: [
      ["Attacher", "string", 0, "csi.example.com"],
      ["PV", "string", 0, ""],
      ["Node", "string", 0, "node-2"],
      ["Attached", "boolean", 0, false],
      ["Age", "string", 0, "26h"],
    ],
  },
  {
    name: "storage capacity",
    group: "storage",
    plural: "csistoragecapacities",
    object: {
      metadata: { name: "csisc-x7k2p", namespace: "storage", creationTimestamp: CREATED },
      storageClassName: "standard",
      capacity: "100Gi",
      nodeTopology: { matchLabels: { zone: "a" } },
    },
    row: [
      ["StorageClassName", "string", 0, "standard"],
      ["Capacity", "string", 0, "100Gi"],
    ],
  },
  {
    name: "storage capacity not reported",
    group: "storage",
    plural: "csistoragecapacities",
    object: { metadata: { name: "csisc-none", namespace: "storage" }, storageClassName: "standard" },
    row: [
      ["StorageClassName", "string", 0, "standard"],
      ["Capacity", "string", 0, "<unset>"],
    ],
  },
];

describe("storage columns", () => {
  runCases(cases);

  it("StorageClass brings its own Name column; VolumeAttachment's Attacher is a name", () => {
    assert.equal(mustColumns("storage", "storageclasses")[0]?.format, "name");
    assert.equal(mustColumns("storage", "volumeattachments")[0]?.format, "name");
  });

  it("recognizes the default-class annotation of the preset's own domain only", () => {
    const name = builtinColumns(naming("cluster"))("storage", "storageclasses")?.[0];
    const sc = (key: string) => ({ metadata: { name: "x", annotations: { [key]: "true" } } });
    assert.equal(name?.cell(sc(naming("cluster").label("is-default-class", "storageclass"))), "x (default)");
    assert.equal(name?.cell(sc(k8s.label("is-default-class", "storageclass"))), "x");
  });

  it("never throws on missing or malformed fields", () => {
    for (const plural of [
      "storageclasses",
      "csidrivers",
      "csinodes",
      "volumeattachments",
      "csistoragecapacities",
    ])
      assertTolerant("storage", plural);
  });
});
