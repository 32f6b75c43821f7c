import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { deployment, podSpec, shape, variant } from "./fixtures.test-support.ts";
import { kindValidators } from "./index.ts";
import type { Json } from "./util.ts";
import { STATEFULSET_UPDATE_FORBIDDEN } from "./workloads.ts";

const validators = kindValidators(naming("cluster"));
// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

const MISMATCH = "`selector` does not match template `labels`";

function replicaSet(): Json {
  const d = deployment() as Any;
  return {
    metadata: { name: "web-6d4", namespace: "shop" },
    spec: { replicas: 2, minReadySeconds: 0, selector: d.spec.selector, template: d.spec.template },
  };
}

function daemonSet(): Json {
  const d = deployment() as Any;
  return {
    metadata: { name: "agent", namespace: "shop" },
    spec: {
      selector: d.spec.selector,
      template: d.spec.template,
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
      revisionHistoryLimit: 10,
    },
  };
}

function statefulSet(): Json {
  const spec = podSpec() as Any;
  spec.containers[0].volumeMounts.push({ name: "data", mountPath: "/data" });
  return {
    metadata: { name: "db", namespace: "shop" },
    spec: {
      replicas: 3,
      serviceName: "db",
      selector: { matchLabels: { app: "db" } },
      template: { metadata: { labels: { app: "db" } }, spec },
      volumeClaimTemplates: [
        {
          metadata: { name: "data" },
          spec: { accessModes: ["ReadWriteOnce"], resources: { requests: { storage: "10Gi" } } },
        },
      ],
      podManagementPolicy: "OrderedReady",
      updateStrategy: { type: "RollingUpdate", rollingUpdate: { partition: 0 } },
      revisionHistoryLimit: 10,
      persistentVolumeClaimRetentionPolicy: { whenDeleted: "Retain", whenScaled: "Retain" },
    },
  };
}

function replicationController(): Json {
  const d = deployment() as Any;
  return {
    metadata: { name: "legacy", namespace: "shop" },
    spec: { replicas: 1, selector: { app: "web" }, template: d.spec.template },
  };
}

function check(id: string, base: Json, edit: (o: Any) => void, old?: Json): string[][] {
  const object = variant(base, edit);
  const v = validators[id]!;
  return shape(old ? v.validateUpdate!(object, old) : v.validate!(object));
}

describe("workloads accept realistic objects", () => {
  for (const [id, make] of [
    ["apps/v1.Deployment", deployment],
    ["apps/v1.ReplicaSet", replicaSet],
    ["apps/v1.DaemonSet", daemonSet],
    ["apps/v1.StatefulSet", statefulSet],
    ["core/v1.ReplicationController", replicationController],
  ] as const) {
    it(id, () => {
      assert.deepEqual(shape(validators[id]!.validate!(make())), []);
      assert.deepEqual(shape(validators[id]!.validateUpdate!(make(), make())), []);
    });
  }
});

describe("Deployment", () => {
  const cases: [string, (o: Any) => void, string[][]][] = [
    [
      "absent selector (Required is the schema's) matches no template",
      (o) => delete o.spec.selector,
      [["spec.template.metadata.labels", "Invalid", MISMATCH]],
    ],
    [
      "empty selector",
      (o) => (o.spec.selector = {}),
      [["spec.selector", "Invalid", "empty selector is invalid for deployment"]],
    ],
    [
      "template labels must match",
      (o) => (o.spec.template.metadata.labels = { app: "api" }),
      [["spec.template.metadata.labels", "Invalid", MISMATCH]],
    ],
    [
      "matchExpressions are honoured",
      (o) =>
        (o.spec.selector = { matchExpressions: [{ key: "tier", operator: "NotIn", values: ["frontend"] }] }),
      [["spec.template.metadata.labels", "Invalid", MISMATCH]],
    ],
    [
      "invalid selector skips the template",
      (o) => {
        o.spec.selector = { matchExpressions: [{ key: "app", operator: "In", values: [] }] };
        o.spec.template.spec.containers = [];
      },
      [
        [
          "spec.selector.matchExpressions[0].values",
          "Required",
          "must be specified when `operator` is 'In' or 'NotIn'",
        ],
        ["spec.selector", "Invalid", "invalid label selector"],
      ],
    ],
    [
      "negative replicas",
      (o) => (o.spec.replicas = -1),
      [["spec.replicas", "Invalid", "must be greater than or equal to 0"]],
    ],
    [
      "template restart policy",
      (o) => (o.spec.template.spec.restartPolicy = "Never"),
      [["spec.template.spec.restartPolicy", "NotSupported", "Always"]],
    ],
    [
      "template deadline",
      (o) => (o.spec.template.spec.activeDeadlineSeconds = 30),
      [
        [
          "spec.template.spec.activeDeadlineSeconds",
          "Forbidden",
          "activeDeadlineSeconds in ReplicaSet is not Supported",
        ],
      ],
    ],
    [
      "pod spec problems carry the template path",
      (o) => (o.spec.template.spec.containers[0].image = ""),
      [["spec.template.spec.containers[0].image", "Required", ""]],
    ],
    [
      "template labels are label values",
      (o) => {
        o.spec.selector.matchLabels.app = "web!";
        o.spec.template.metadata.labels.app = "web!";
      },
      [
        [
          "spec.selector.matchLabels",
          "Invalid",
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ],
        ["spec.selector", "Invalid", "invalid label selector"],
      ],
    ],
    [
      "surge and unavailable both zero",
      (o) => (o.spec.strategy.rollingUpdate = { maxUnavailable: 0, maxSurge: "0%" }),
      [["spec.strategy.rollingUpdate.maxUnavailable", "Invalid", "may not be 0 when `maxSurge` is 0"]],
    ],
    [
      "unavailable above 100%",
      (o) => (o.spec.strategy.rollingUpdate.maxUnavailable = "150%"),
      [["spec.strategy.rollingUpdate.maxUnavailable", "Invalid", "must not be greater than 100%"]],
    ],
    [
      "malformed percentage",
      (o) => (o.spec.strategy.rollingUpdate.maxSurge = "25"),
      [
        [
          "spec.strategy.rollingUpdate.maxSurge",
          "Invalid",
          "a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')",
        ],
      ],
    ],
    [
      "negative surge",
      (o) => (o.spec.strategy.rollingUpdate.maxSurge = -1),
      [["spec.strategy.rollingUpdate.maxSurge", "Invalid", "must be greater than or equal to 0"]],
    ],
    [
      "Recreate with rollingUpdate",
      (o) => (o.spec.strategy.type = "Recreate"),
      [
        [
          "spec.strategy.rollingUpdate",
          "Forbidden",
          "may not be specified when strategy `type` is 'Recreate'",
        ],
      ],
    ],
    [
      "negative revision history",
      (o) => (o.spec.revisionHistoryLimit = -1),
      [["spec.revisionHistoryLimit", "Invalid", "must be greater than or equal to 0"]],
    ],
    [
      "progress deadline not above minReadySeconds",
      (o) => (o.spec.progressDeadlineSeconds = 5),
      [["spec.progressDeadlineSeconds", "Invalid", "must be greater than minReadySeconds"]],
    ],
  ];
  for (const [name, edit, want] of cases) {
    it(`refuses: ${name}`, () => assert.deepEqual(check("apps/v1.Deployment", deployment(), edit), want));
  }

  it("keeps the selector on update", () => {
    const old = deployment();
    const got = check(
      "apps/v1.Deployment",
      old,
      (o) => {
        o.spec.selector.matchLabels.tier = "frontend";
      },
      old,
    );
    assert.deepEqual(got, [["spec.selector", "Invalid", "field is immutable"]]);
    assert.deepEqual(
      check("apps/v1.Deployment", old, (o) => (o.spec.replicas = 10), old),
      [],
    );
  });
});

describe("ReplicaSet, DaemonSet, ReplicationController", () => {
  it("ReplicaSet rules", () => {
    assert.deepEqual(
      check("apps/v1.ReplicaSet", replicaSet(), (o) => (o.spec.selector = {})),
      [["spec.selector", "Invalid", "empty selector is invalid for deployment"]],
    );
    assert.deepEqual(
      check("apps/v1.ReplicaSet", replicaSet(), (o) => (o.spec.minReadySeconds = -1)),
      [["spec.minReadySeconds", "Invalid", "must be greater than or equal to 0"]],
    );
    const old = replicaSet();
    assert.deepEqual(
      check(
        "apps/v1.ReplicaSet",
        old,
        (o) => (o.spec.selector = { matchLabels: { app: "web", tier: "frontend" } }),
        old,
      ),
      [["spec.selector", "Invalid", "field is immutable"]],
    );
  });

  it("DaemonSet rules", () => {
    assert.deepEqual(
      check("apps/v1.DaemonSet", daemonSet(), (o) => (o.spec.template.metadata.labels = {})),
      [["spec.template.metadata.labels", "Invalid", MISMATCH]],
    );
    assert.deepEqual(
      check("apps/v1.DaemonSet", daemonSet(), (o) => (o.spec.selector = {})),
      [["spec.selector", "Invalid", "empty selector is invalid for daemonset"]],
    );
    assert.deepEqual(
      check(
        "apps/v1.DaemonSet",
        daemonSet(),
        (o) => (o.spec.updateStrategy.rollingUpdate = { maxUnavailable: 0, maxSurge: 0 }),
      ),
      [["spec.updateStrategy.rollingUpdate.maxUnavailable", "Required", "cannot be 0 when maxSurge is 0"]],
    );
    assert.deepEqual(
      check(
        "apps/v1.DaemonSet",
        daemonSet(),
        (o) => (o.spec.updateStrategy.rollingUpdate = { maxUnavailable: 1, maxSurge: 1 }),
      ),
      [
        [
          "spec.updateStrategy.rollingUpdate.maxSurge",
          "Invalid",
          "may not be set when maxUnavailable is non-zero",
        ],
      ],
    );
    assert.deepEqual(
      check("apps/v1.DaemonSet", daemonSet(), (o) => (o.spec.template.spec.restartPolicy = "OnFailure")),
      [["spec.template.spec.restartPolicy", "NotSupported", "Always"]],
    );
  });

  it("ReplicationController rules", () => {
    assert.deepEqual(
      check("core/v1.ReplicationController", replicationController(), (o) => (o.spec.selector = {})),
      [["spec.selector", "Required", ""]],
    );
    assert.deepEqual(
      check(
        "core/v1.ReplicationController",
        replicationController(),
        (o) => (o.spec.selector = { app: "api" }),
      ),
      [["spec.template.metadata.labels", "Invalid", MISMATCH]],
    );
    assert.deepEqual(
      check(
        "core/v1.ReplicationController",
        replicationController(),
        (o) => (o.spec.template.spec.activeDeadlineSeconds = 5),
      ),
      [
        [
          "spec.template.spec.activeDeadlineSeconds",
          "Forbidden",
          "activeDeadlineSeconds in ReplicationController is not Supported",
        ],
      ],
    );
  });
});

describe("StatefulSet", () => {
  it("checks selector, template labels and restart policy only", () => {
    assert.deepEqual(
      check("apps/v1.StatefulSet", statefulSet(), (o) => delete o.spec.selector),
      [["spec.template.metadata.labels", "Invalid", MISMATCH]],
    );
    assert.deepEqual(
      check("apps/v1.StatefulSet", statefulSet(), (o) => (o.spec.selector = {})),
      [["spec.selector", "Invalid", "empty selector is invalid for statefulset"]],
    );
    assert.deepEqual(
      check(
        "apps/v1.StatefulSet",
        statefulSet(),
        (o) => (o.spec.updateStrategy = { type: "OnDelete", rollingUpdate: {} }),
      ),
      [["spec.updateStrategy.rollingUpdate", "Invalid", "only allowed for updateStrategy 'RollingUpdate'"]],
    );
    assert.deepEqual(
      check("apps/v1.StatefulSet", statefulSet(), (o) => (o.spec.ordinals = { start: -1 })),
      [["spec.ordinals.start", "Invalid", "must be greater than or equal to 0"]],
    );
    assert.deepEqual(
      check("apps/v1.StatefulSet", statefulSet(), (o) => (o.spec.template.spec.activeDeadlineSeconds = 1)),
      [
        [
          "spec.template.spec.activeDeadlineSeconds",
          "Forbidden",
          "activeDeadlineSeconds in StatefulSet is not Supported",
        ],
      ],
    );
  });

  it("updates only what upstream lets change", () => {
    const old = statefulSet();
    assert.deepEqual(
      check(
        "apps/v1.StatefulSet",
        old,
        (o) => {
          o.spec.replicas = 5;
          o.spec.minReadySeconds = 10;
          o.spec.template.spec.containers[0].image = "db:2";
          o.spec.updateStrategy = { type: "OnDelete" };
          o.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: "Delete", whenScaled: "Retain" };
          o.spec.ordinals = { start: 1 };
        },
        old,
      ),
      [],
    );
    assert.deepEqual(
      check(
        "apps/v1.StatefulSet",
        old,
        (o) => (o.spec.volumeClaimTemplates[0].spec.resources.requests.storage = "20Gi"),
        old,
      ),
      [["spec", "Forbidden", STATEFULSET_UPDATE_FORBIDDEN]],
    );
    assert.equal(
      STATEFULSET_UPDATE_FORBIDDEN,
      "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    );
  });
});

describe("PodTemplate", () => {
  it("validates the template under `template`", () => {
    const template = {
      metadata: { name: "t", namespace: "n" },
      template: {
        metadata: { labels: { "bad key!": "x" } },
        spec: { ...podSpec(), ephemeralContainers: [{ name: "dbg", image: "x" }] },
      },
    };
    assert.deepEqual(shape(validators["core/v1.PodTemplate"]!.validate!(template)), [
      [
        "template.labels",
        "Invalid",
        "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
      ],
      ["template.spec.ephemeralContainers", "Forbidden", "ephemeral containers not allowed in pod template"],
    ]);
  });
});
