import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { builtinCatalog } from "../../catalog/index.ts";
import { naming } from "../../naming/naming.ts";
import { cronJob, deployment, pod, service, shape } from "./fixtures.test-support.ts";
import { kindValidators } from "./index.ts";

describe("kindValidators", () => {
  for (const preset of ["cluster", "kubernetes"] as const) {
    it(`names catalog types only, each with both entry points (${preset})`, () => {
      const catalog = builtinCatalog();
      const validators = kindValidators(naming(preset));
      assert.ok(Object.keys(validators).length >= 25);
      for (const [id, v] of Object.entries(validators)) {
        assert.ok(catalog.type(id), `${id} is a catalog type`);
        assert.equal(typeof v.validate, "function", id);
        assert.equal(typeof v.validateUpdate, "function", id);
      }
    });

    it(`passes the realistic fixtures on create and on an unchanged update (${preset})`, () => {
      const validators = kindValidators(naming(preset));
      for (const [id, make] of [
        ["apps/v1.Deployment", deployment],
        ["core/v1.Pod", pod],
        ["core/v1.Service", service],
        ["batch/v1.CronJob", cronJob],
      ] as const) {
        const v = validators[id]!;
        assert.deepEqual(shape(v.validate!(make())), [], `${id} create`);
        assert.deepEqual(shape(v.validateUpdate!(make(), make())), [], `${id} update`);
      }
    });
  }
});
