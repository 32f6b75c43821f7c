import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../naming/naming.ts";
import { formatFieldError } from "../registry/field-error.ts";
import type { JsonObject } from "../registry/strategy.ts";
import { serviceAccountKind } from "./serviceaccount.ts";

const kind = serviceAccountKind(naming("kubernetes"));
const { strategy } = kind;

describe("ServiceAccount", () => {
  it("schema", () => {
    assert.deepEqual(kind.schema.shortNames, ["sa"]);
    assert.equal(kind.schema.namespaced, true);
    assert.equal(kind.schema.verbs.length, 8);
    assert.equal(strategy.nameRule, "dns-subdomain");
  });

  it("keeps only the names of referenced secrets, on create and update", () => {
    const sa: JsonObject = {
      secrets: [{ name: "tok", namespace: "other", uid: "u", kind: "Secret" }, { uid: "x" }],
      imagePullSecrets: [{ name: "pull" }],
    };
    strategy.prepareForCreate?.(sa);
    assert.deepEqual(sa.secrets, [{ name: "tok" }, {}]);
    assert.deepEqual(sa.imagePullSecrets, [{ name: "pull" }]);
    const next: JsonObject = { secrets: [{ name: "b", fieldPath: "f" }] };
    strategy.prepareForUpdate?.(next, sa);
    assert.deepEqual(next.secrets, [{ name: "b" }]);
  });

  it("checks only metadata finalizer names", () => {
    assert.deepEqual(
      strategy.validate?.({ metadata: { name: "sa", namespace: "n" }, automountServiceAccountToken: false }),
      [],
    );
    assert.deepEqual(
      (strategy.validateUpdate?.({ metadata: { finalizers: ["plain"] } }, {}) ?? []).map(formatFieldError),
      [
        'metadata.finalizers[0]: Invalid value: "plain": name is neither a standard finalizer name nor is it fully qualified',
      ],
    );
  });

  it("shows the number of secrets", () => {
    assert.deepEqual(
      kind.schema.tableColumns?.map((c) => [c.name, c.cell({ secrets: [{ name: "a" }] })]),
      [
        ["Secrets", 1],
        ["Age", "<unknown>"],
      ],
    );
  });
});
