import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { shape, variant } from "./fixtures.test-support.ts";
import { kindValidators } from "./index.ts";
import type { Json } from "./util.ts";

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

const n = naming("kubernetes");
const validators = kindValidators(n);

function claim(): Json {
  return {
    metadata: { name: "data", namespace: "shop" },
    spec: {
      accessModes: ["ReadWriteOnce"],
      resources: { requests: { storage: "10Gi" } },
      storageClassName: "fast",
      volumeMode: "Filesystem",
    },
    status: { phase: "Pending" },
  };
}

function volume(): Json {
  return {
    metadata: { name: "pv-1" },
    spec: {
      capacity: { storage: "10Gi" },
      accessModes: ["ReadWriteOnce"],
      persistentVolumeReclaimPolicy: "Retain",
      storageClassName: "fast",
      volumeMode: "Filesystem",
      csi: { driver: "csi.example.com", volumeHandle: "vol-123", fsType: "ext4" },
      nodeAffinity: {
        required: {
          nodeSelectorTerms: [
            {
              matchExpressions: [
                { key: `failure-domain.beta.${n.labelDomain}/zone`, operator: "In", values: ["a"] },
              ],
            },
          ],
        },
      },
    },
  };
}

function storageClass(): Json {
  return {
    metadata: { name: "fast" },
    provisioner: "csi.example.com",
    parameters: { type: "ssd" },
    reclaimPolicy: "Delete",
    volumeBindingMode: "WaitForFirstConsumer",
    allowVolumeExpansion: true,
  };
}

const check = (id: string, base: Json, edit: (o: Any) => void, old?: Json) => {
  const o = variant(base, edit);
  return shape(old ? validators[id]!.validateUpdate!(o, old) : validators[id]!.validate!(o));
};

describe("PersistentVolumeClaim", () => {
  const id = "core/v1.PersistentVolumeClaim";
  it("accepts a realistic claim", () =>
    assert.deepEqual(
      check(id, claim(), () => {}),
      [],
    ));
  it("refuses missing access modes and storage", () => {
    assert.deepEqual(
      check(id, claim(), (o) => {
        o.spec.accessModes = [];
        o.spec.resources = {};
      }),
      [
        ["spec.accessModes", "Required", "at least 1 access mode is required"],
        ["spec.resources[storage]", "Required", ""],
      ],
    );
    assert.deepEqual(
      check(id, claim(), (o) => (o.spec.resources.requests.storage = "0")),
      [["spec.resources[storage]", "Invalid", "must be greater than zero"]],
    );
    assert.deepEqual(
      check(id, claim(), (o) => (o.spec.accessModes = ["ReadWriteOncePod", "ReadOnlyMany"])),
      [["spec.accessModes", "Forbidden", "may not use ReadWriteOncePod with other access modes"]],
    );
    assert.deepEqual(
      check(id, claim(), (o) => (o.spec.dataSource = { kind: "Snapshot", name: "s" })),
      [
        [
          "spec.dataSource",
          "Invalid",
          "must be 'PersistentVolumeClaim' when referencing the default apiGroup",
        ],
      ],
    );
  });
  it("freezes the spec except growth of a bound claim", () => {
    const old = claim();
    const pending = check(id, old, (o) => (o.spec.resources.requests.storage = "20Gi"), old);
    assert.equal(pending.length, 1);
    assert.equal(pending[0]![0], "spec");
    assert.equal(pending[0]![1], "Forbidden");
    assert.ok(
      pending[0]![2]!.startsWith(
        "spec is immutable after creation except resources.requests for bound claims\n",
      ),
    );
    const bound = variant(old, (o: Any) => {
      o.status.phase = "Bound";
      o.spec.volumeName = "pv-1";
    });
    assert.deepEqual(
      check(id, bound, (o) => (o.spec.resources.requests.storage = "20Gi"), bound),
      [],
    );
    assert.deepEqual(
      check(id, bound, (o) => (o.spec.resources.requests.storage = "5Gi"), bound),
      [["spec.resources.requests.storage", "Forbidden", "field can not be less than previous value"]],
    );
    assert.deepEqual(
      check(id, old, (o) => (o.spec.volumeName = "pv-9"), old),
      [],
    );
  });
});

describe("PersistentVolume", () => {
  const id = "core/v1.PersistentVolume";
  it("accepts a realistic volume", () =>
    assert.deepEqual(
      check(id, volume(), () => {}),
      [],
    ));
  it("refuses node affinity requirements whose values do not fit the operator", () => {
    const at = "spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0]";
    const expr = (o: Any) => o.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0];
    assert.deepEqual(
      check(id, volume(), (o) => (expr(o).values = [])),
      [[`${at}.values`, "Required", "must be specified when `operator` is 'In' or 'NotIn'"]],
    );
    assert.deepEqual(
      check(id, volume(), (o) => Object.assign(expr(o), { operator: "Gt", values: ["1", "2"] })),
      [[`${at}.values`, "Required", "must be specified single value when `operator` is 'Lt' or 'Gt'"]],
    );
    assert.deepEqual(
      check(id, volume(), (o) => Object.assign(expr(o), { operator: "Exists", key: "a b" })),
      [
        [`${at}.values`, "Forbidden", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"],
        [
          `${at}.key`,
          "Invalid",
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ],
      ],
    );
  });
  it("refuses missing capacity, access modes and source", () => {
    assert.deepEqual(
      check(id, volume(), (o) => {
        o.spec.capacity = {};
        o.spec.accessModes = [];
        delete o.spec.csi;
      }),
      [
        ["spec.accessModes", "Required", ""],
        ["spec.capacity", "Required", ""],
        ["spec.capacity", "NotSupported", "storage"],
        ["spec", "Required", "must specify a volume type"],
      ],
    );
    assert.deepEqual(
      check(id, volume(), (o) => (o.spec.hostPath = { path: "/data" })),
      [["spec.csi", "Forbidden", "may not specify more than 1 volume type"]],
    );
    assert.deepEqual(
      check(id, volume(), (o) => {
        delete o.spec.csi;
        delete o.spec.nodeAffinity;
        o.spec.local = { path: "/mnt/disk" };
      }),
      [["spec.nodeAffinity", "Required", "Local volume requires node affinity"]],
    );
    assert.deepEqual(
      check(id, volume(), (o) => (o.spec.csi.volumeHandle = "")),
      [["spec.csi.volumeHandle", "Required", ""]],
    );
  });
  it("freezes the source, allowing node affinity to move to GA labels", () => {
    const old = volume();
    const changed = check(id, old, (o) => (o.spec.csi.volumeHandle = "vol-456"), old);
    assert.equal(changed[0]?.[0], "spec.persistentvolumesource");
    assert.ok(changed[0]?.[2]?.startsWith("spec.persistentvolumesource is immutable after creation\n"));
    assert.deepEqual(
      check(
        id,
        old,
        (o) =>
          (o.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].key = `topology.${n.labelDomain}/zone`),
        old,
      ),
      [],
    );
    assert.deepEqual(
      check(
        id,
        old,
        (o) => (o.spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values = ["b"]),
        old,
      ),
      [["nodeAffinity", "Invalid", "field is immutable, except for updating from beta label to GA"]],
    );
    assert.deepEqual(
      check(id, old, (o) => (o.spec.capacity.storage = "20Gi"), old),
      [],
    );
  });
});

describe("StorageClass", () => {
  const id = "storage/v1.StorageClass";
  it("accepts a realistic class", () =>
    assert.deepEqual(
      check(id, storageClass(), () => {}),
      [],
    ));
  it("requires a provisioner", () => {
    assert.deepEqual(
      check(id, storageClass(), (o) => (o.provisioner = "")),
      [["provisioner", "Required", ""]],
    );
  });
  it("freezes provisioning settings", () => {
    const old = storageClass();
    assert.deepEqual(
      check(id, old, (o) => (o.parameters.type = "hdd"), old),
      [["parameters", "Forbidden", "updates to parameters are forbidden."]],
    );
    assert.deepEqual(
      check(id, old, (o) => (o.provisioner = "other.example.com"), old),
      [["provisioner", "Forbidden", "updates to provisioner are forbidden."]],
    );
    assert.deepEqual(
      check(id, old, (o) => (o.volumeBindingMode = "Immediate"), old),
      [["volumeBindingMode", "Invalid", "field is immutable"]],
    );
    assert.deepEqual(
      check(id, old, (o) => (o.allowVolumeExpansion = false), old),
      [],
    );
  });
});
