import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../naming/naming.ts";
import { jobLabels, timeZoneError } from "./batch.ts";
import { cronScheduleError, goDurationError } from "./cron.ts";
import { cronJob, job, shape, variant } from "./fixtures.test-support.ts";
import { kindValidators } from "./index.ts";
import type { Json } from "./util.ts";

// biome-ignore lint/suspicious/noExplicitAny: test edits reach deep into plain JSON fixtures.
type Any = any;

for (const preset of ["cluster", "kubernetes"] as const) {
  const n = naming(preset);
  const validators = kindValidators(n);
  const labels = jobLabels(n);

  describe(`Job (${preset})`, () => {
    const createJob = (edit: (o: Any) => void = () => {}): { object: Any; errs: string[][] } => {
      const object = variant(job(), edit);
      return { object, errs: shape(validators["batch/v1.Job"]!.validate!(object)) };
    };

    it("generates the selector and pod labels, then accepts the job", () => {
      const { object, errs } = createJob();
      assert.deepEqual(errs, []);
      const uid = object.metadata.uid;
      assert.deepEqual(object.spec.selector, { matchLabels: { [labels.controllerUid]: uid } });
      assert.deepEqual(object.spec.template.metadata.labels, {
        app: "import",
        "job-name": "import",
        [labels.jobName]: "import",
        "controller-uid": uid,
        [labels.controllerUid]: uid,
      });
      assert.equal(labels.controllerUid, `batch.${n.labelDomain}/controller-uid`);
    });

    it("keeps a manual selector", () => {
      const { object, errs } = createJob((o) => {
        o.spec.manualSelector = true;
        o.spec.selector = { matchLabels: { app: "import" } };
      });
      assert.deepEqual(errs, []);
      assert.deepEqual(object.spec.selector, { matchLabels: { app: "import" } });
      assert.deepEqual(createJob((o) => (o.spec.manualSelector = true)).errs, [
        ["spec.selector", "Required", ""],
        ["spec.template.metadata.labels", "Invalid", "`selector` does not match template `labels`"],
      ]);
      assert.deepEqual(
        createJob((o) => {
          o.spec.manualSelector = true;
          o.spec.selector = { matchLabels: { app: "other" } };
        }).errs,
        [["spec.template.metadata.labels", "Invalid", "`selector` does not match template `labels`"]],
      );
    });

    it("refuses a generated selector that does not select the job's pods", () => {
      const { errs } = createJob((o) => (o.spec.selector = { matchLabels: { app: "import" } }));
      assert.deepEqual(errs, [["spec.selector", "Invalid", "`selector` not auto-generated"]]);
      const wrongLabel = createJob((o) => (o.spec.template.metadata.labels = { "job-name": "other" })).errs;
      assert.deepEqual(wrongLabel, [
        ["spec.template.metadata.labels[job-name]", "Invalid", "must be 'import'"],
      ]);
    });

    const cases: [string, (o: Any) => void, string[][]][] = [
      [
        "negative parallelism",
        (o) => (o.spec.parallelism = -1),
        [["spec.parallelism", "Invalid", "must be greater than or equal to 0"]],
      ],
      [
        "negative completions",
        (o) => (o.spec.completions = -1),
        [["spec.completions", "Invalid", "must be greater than or equal to 0"]],
      ],
      [
        "negative backoffLimit",
        (o) => (o.spec.backoffLimit = -1),
        [["spec.backoffLimit", "Invalid", "must be greater than or equal to 0"]],
      ],
      [
        "Indexed needs completions",
        (o) => {
          o.spec.completionMode = "Indexed";
          delete o.spec.completions;
        },
        [["spec.completions", "Required", "when completion mode is Indexed"]],
      ],
      [
        "Indexed parallelism cap",
        (o) => {
          o.spec.completionMode = "Indexed";
          o.spec.parallelism = 100001;
        },
        [
          [
            "spec.parallelism",
            "Invalid",
            "must be less than or equal to 100000 when completion mode is Indexed",
          ],
        ],
      ],
      [
        "Indexed pod hostnames must be labels",
        (o) => {
          o.metadata.name = "a".repeat(62);
          o.spec.completionMode = "Indexed";
          o.spec.completions = 10;
        },
        [
          [
            "metadata.name",
            "Invalid",
            `will not able to create pod with invalid DNS label: ${"a".repeat(62)}-9`,
          ],
        ],
      ],
      [
        "restartPolicy Always",
        (o) => (o.spec.template.spec.restartPolicy = "Always"),
        [["spec.template.spec.restartPolicy", "Required", 'valid values: "OnFailure", "Never"']],
      ],
      [
        "podFailurePolicy needs Never",
        (o) => {
          o.spec.template.spec.restartPolicy = "OnFailure";
          o.spec.podFailurePolicy = {
            rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [42] } }],
          };
        },
        [
          [
            "spec.template.spec.restartPolicy",
            "Invalid",
            'only "Never" is supported when podFailurePolicy is specified',
          ],
        ],
      ],
      [
        "podFailurePolicy rules",
        (o) =>
          (o.spec.podFailurePolicy = {
            rules: [
              {
                action: "Ignore",
                onExitCodes: { operator: "In", containerName: "nope", values: [0, 3, 2, 2] },
              },
              { action: "Count" },
            ],
          }),
        [
          [
            "spec.podFailurePolicy.rules[0].onExitCodes.containerName",
            "Invalid",
            "must be one of the container or initContainer names in the pod template",
          ],
          [
            "spec.podFailurePolicy.rules[0].onExitCodes.values[0]",
            "Invalid",
            "must not be 0 for the In operator",
          ],
          ["spec.podFailurePolicy.rules[0].onExitCodes.values[3]", "Duplicate", ""],
          ["spec.podFailurePolicy.rules[0].onExitCodes.values", "Invalid", "must be ordered"],
          [
            "spec.podFailurePolicy.rules[1]",
            "Invalid",
            "specifying one of OnExitCodes and OnPodConditions is required",
          ],
        ],
      ],
      [
        "template pod spec",
        (o) => (o.spec.template.spec.containers[0].name = ""),
        [["spec.template.spec.containers[0].name", "Required", ""]],
      ],
    ];
    for (const [name, edit, want] of cases) {
      it(`refuses: ${name}`, () => assert.deepEqual(createJob(edit).errs, want));
    }

    describe("update", () => {
      const stored = (edit: (o: Any) => void = () => {}): Json => {
        const o = variant(job(), edit);
        validators["batch/v1.Job"]!.validate!(o);
        return o;
      };
      const update = (old: Json, edit: (o: Any) => void) =>
        shape(validators["batch/v1.Job"]!.validateUpdate!(variant(old, edit), old));

      it("freezes completions, selector, template and completion mode", () => {
        const old = stored();
        assert.deepEqual(
          update(old, (o) => (o.spec.parallelism = 8)),
          [],
        );
        assert.deepEqual(
          update(old, (o) => (o.spec.completions = 5)),
          [["spec.completions", "Invalid", "field is immutable"]],
        );
        assert.deepEqual(
          update(old, (o) => (o.spec.template.spec.containers[0].image = "x:2")),
          [["spec.template", "Invalid", "field is immutable"]],
        );
        assert.deepEqual(
          update(old, (o) => (o.spec.completionMode = "Indexed")),
          [["spec.completionMode", "Invalid", "field is immutable"]],
        );
      });

      it("lets Indexed completions follow parallelism", () => {
        const old = stored((o) => {
          o.spec.completionMode = "Indexed";
          o.spec.completions = 4;
          o.spec.parallelism = 4;
        });
        assert.deepEqual(
          update(old, (o) => {
            o.spec.completions = 6;
            o.spec.parallelism = 6;
          }),
          [],
        );
        assert.deepEqual(
          update(old, (o) => (o.spec.completions = 6)),
          [["spec.completions", "Invalid", "can only be modified in tandem with spec.parallelism"]],
        );
      });

      it("lets a suspended job that never ran change its scheduling directives", () => {
        const old = stored((o) => (o.spec.suspend = true));
        const edit = (o: Any) => {
          o.spec.template.spec.nodeSelector = { "example.com/pool": "batch" };
          o.spec.template.spec.tolerations = [];
          o.spec.template.metadata.annotations = { note: "x" };
          o.spec.template.spec.affinity.nodeAffinity = undefined;
        };
        assert.deepEqual(update(old, edit), []);
        const started = variant(old, (o: Any) => (o.status = { startTime: "2024-01-01T00:00:00Z" }));
        assert.deepEqual(update(started, edit), [["spec.template", "Invalid", "field is immutable"]]);
      });
    });
  });

  describe(`CronJob (${preset})`, () => {
    const check = (edit: (o: Any) => void) =>
      shape(validators["batch/v1.CronJob"]!.validate!(variant(cronJob(), edit)));

    it("accepts a realistic CronJob", () =>
      assert.deepEqual(
        check(() => {}),
        [],
      ));

    const cases: [string, (o: Any) => void, string[][]][] = [
      ["schedule required", (o) => (o.spec.schedule = ""), [["spec.schedule", "Required", ""]]],
      [
        "schedule must parse",
        (o) => (o.spec.schedule = "61 * * * *"),
        [["spec.schedule", "Invalid", "end of range (61) above maximum (59): 61"]],
      ],
      [
        "TZ prefix and timeZone",
        (o) => (o.spec.schedule = "TZ=UTC 0 0 * * *"),
        [["spec.schedule", "Invalid", "cannot use both timeZone field and TZ or CRON_TZ in schedule"]],
      ],
      [
        "empty time zone",
        (o) => (o.spec.timeZone = ""),
        [["spec.timeZone", "Invalid", "timeZone must be nil or non-empty string"]],
      ],
      [
        "Local time zone",
        (o) => (o.spec.timeZone = "Local"),
        [
          [
            "spec.timeZone",
            "Invalid",
            "timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones",
          ],
        ],
      ],
      [
        "unknown time zone",
        (o) => (o.spec.timeZone = "Mars/Olympus"),
        [["spec.timeZone", "Invalid", "unknown time zone Mars/Olympus"]],
      ],
      [
        "negative startingDeadlineSeconds",
        (o) => (o.spec.startingDeadlineSeconds = -5),
        [["spec.startingDeadlineSeconds", "Invalid", "must be greater than or equal to 0"]],
      ],
      [
        "selector in the job template",
        (o) => (o.spec.jobTemplate.spec.selector = { matchLabels: { app: "report" } }),
        [["spec.jobTemplate.spec.selector", "Invalid", "`selector` will be auto-generated"]],
      ],
      [
        "manual selector in the job template",
        (o) => (o.spec.jobTemplate.spec.manualSelector = true),
        [["spec.jobTemplate.spec.manualSelector", "NotSupported", "nil|false"]],
      ],
      [
        "job template restart policy",
        (o) => (o.spec.jobTemplate.spec.template.spec.restartPolicy = "Always"),
        [
          [
            "spec.jobTemplate.spec.template.spec.restartPolicy",
            "Required",
            'valid values: "OnFailure", "Never"',
          ],
        ],
      ],
      [
        "long name",
        (o) => (o.metadata.name = "a".repeat(53)),
        [["metadata.name", "Invalid", "must be no more than 52 characters"]],
      ],
    ];
    for (const [name, edit, want] of cases) {
      it(`refuses: ${name}`, () => assert.deepEqual(check(edit), want));
    }

    it("checks the time zone on update only when it changes, and allows long names", () => {
      const old = variant(cronJob(), (o: Any) => {
        o.metadata.name = "a".repeat(60);
      });
      const v = validators["batch/v1.CronJob"]!;
      assert.deepEqual(
        shape(
          v.validateUpdate!(
            variant(old, (o: Any) => (o.spec.suspend = true)),
            old,
          ),
        ),
        [],
      );
      assert.deepEqual(
        shape(
          v.validateUpdate!(
            variant(old, (o: Any) => (o.spec.timeZone = "Nowhere/City")),
            old,
          ),
        ),
        [["spec.timeZone", "Invalid", "unknown time zone Nowhere/City"]],
      );
    });
  });
}

describe("cron schedules", () => {
  const table: [string, string | undefined][] = [
    ["*/5 * * * *", undefined],
    ["0 9-17 * * MON-FRI", undefined],
    ["15 3 1,15 jan,jul *", undefined],
    ["0 0 * * ?", undefined],
    ["@hourly", undefined],
    ["@annually", undefined],
    ["@every 1h30m", undefined],
    ["TZ=Europe/Berlin 0 0 * * *", undefined],
    ["", "empty spec string"],
    ["* * * *", "expected exactly 5 fields, found 4: [* * * *]"],
    ["0 0 0 * * *", "expected exactly 5 fields, found 6: [0 0 0 * * *]"],
    ["60 * * * *", "end of range (60) above maximum (59): 60"],
    ["* 24 * * *", "end of range (24) above maximum (23): 24"],
    ["0 0 0 * *", "beginning of range (0) below minimum (1): 0"],
    ["* * * 13 *", "end of range (13) above maximum (12): 13"],
    ["* * * * 7", "end of range (7) above maximum (6): 7"],
    ["5-3 * * * *", "beginning of range (5) beyond end of range (3): 5-3"],
    ["*/0 * * * *", "step of range should be a positive number: */0"],
    ["a * * * *", 'failed to parse int from a: strconv.Atoi: parsing "a": invalid syntax'],
    ["1-2-3 * * * *", "too many hyphens: 1-2-3"],
    ["1/2/3 * * * *", "too many slashes: 1/2/3"],
    ["@fortnightly", "unrecognized descriptor: @fortnightly"],
    ["@every 5", 'failed to parse duration @every 5: time: missing unit in duration "5"'],
    ["@every 5y", 'failed to parse duration @every 5y: time: unknown unit "y" in duration "5y"'],
    ["CRON_TZ=Mars/Olympus 0 0 * * *", "provided bad location Mars/Olympus: unknown time zone Mars/Olympus"],
  ];
  for (const [schedule, want] of table) {
    it(JSON.stringify(schedule), () => assert.equal(cronScheduleError(schedule, timeZoneError), want));
  }

  it("reads Go durations", () => {
    assert.equal(goDurationError("1.5h"), undefined);
    assert.equal(goDurationError("0"), undefined);
    assert.equal(goDurationError(""), 'time: invalid duration ""');
    assert.equal(goDurationError("h"), 'time: invalid duration "h"');
  });

  it("knows time zones by exact name", () => {
    assert.equal(timeZoneError("America/New_York"), undefined);
    assert.equal(timeZoneError("UTC"), undefined);
    assert.equal(timeZoneError("america/new_york"), "unknown time zone america/new_york");
    assert.equal(timeZoneError("+01:00"), "unknown time zone +01:00");
  });
});
