import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { ApiError } from "../request/api-error.ts";
import { readDeleteOptions } from "./delete-options.ts";

const META = "meta.k8s.io";
const fromQuery = (q: string) => readDeleteOptions(undefined, new URLSearchParams(q), META);
const fromBody = (body: unknown, q = "") => readDeleteOptions(body, new URLSearchParams(q), META);

function refused(run: () => unknown, code: number, message: RegExp): void {
  assert.throws(run, (err: unknown) => {
    assert.ok(err instanceof ApiError, String(err));
    assert.equal(err.code, code);
    assert.match(err.message, message);
    return true;
  });
}

describe("DeleteOptions", () => {
  it("reads the query as Go's strconv does", () => {
    assert.deepEqual(fromQuery("gracePeriodSeconds=30&orphanDependents=T"), {
      gracePeriodSeconds: 30,
      orphanDependents: true,
    });
    assert.deepEqual(fromQuery("orphanDependents=0&dryRun=All"), { orphanDependents: false, dryRun: true });
    assert.deepEqual(fromQuery("propagationPolicy=Foreground"), { propagationPolicy: "Foreground" });
    assert.deepEqual(fromQuery(""), {});
  });

  it("refuses query values that do not parse instead of reading them as unset", () => {
    refused(
      () => fromQuery("orphanDependents=maybe"),
      400,
      /strconv.ParseBool: parsing "maybe": invalid syntax/,
    );
    refused(
      () => fromQuery("gracePeriodSeconds=abc"),
      400,
      /strconv.ParseInt: parsing "abc": invalid syntax/,
    );
    refused(() => fromQuery("gracePeriodSeconds="), 400, /strconv.ParseInt: parsing "": invalid syntax/);
    refused(
      () => fromQuery("gracePeriodSeconds=99999999999999999999"),
      400,
      /parsing "99999999999999999999": value out of range/,
    );
  });

  it("takes a negative grace period as one second, as upstream", () => {
    assert.deepEqual(fromQuery("gracePeriodSeconds=-5"), { gracePeriodSeconds: 1 });
    assert.deepEqual(fromBody({ gracePeriodSeconds: -1 }), { gracePeriodSeconds: 1 });
  });

  it("reads the body when there is one, and then ignores the query", () => {
    assert.deepEqual(
      fromBody(
        {
          kind: "DeleteOptions",
          apiVersion: "v1",
          gracePeriodSeconds: 0,
          preconditions: { uid: "u", resourceVersion: "7" },
          propagationPolicy: "Background",
          dryRun: ["All"],
        },
        "orphanDependents=maybe&propagationPolicy=Bogus",
      ),
      {
        gracePeriodSeconds: 0,
        preconditions: { uid: "u", resourceVersion: "7" },
        propagationPolicy: "Background",
        dryRun: true,
      },
    );
    assert.deepEqual(fromBody({ gracePeriodSeconds: null, preconditions: null, orphanDependents: null }), {});
  });

  it("refuses body fields of the wrong JSON type with the decoder's words", () => {
    refused(
      () => fromBody({ gracePeriodSeconds: "x" }),
      400,
      /cannot unmarshal string .*gracePeriodSeconds of type int64/,
    );
    refused(
      () => fromBody({ orphanDependents: "true" }),
      400,
      /cannot unmarshal string .*orphanDependents of type bool/,
    );
    refused(() => fromBody({ dryRun: "All" }), 400, /cannot unmarshal string .*dryRun of type \[\]string/);
    refused(
      () => fromBody({ preconditions: { uid: 1 } }),
      400,
      /cannot unmarshal number .*uid of type string/,
    );
    refused(() => fromBody({ propagationPolicy: 1 }), 400, /cannot unmarshal number .*propagationPolicy/);
    refused(() => fromBody([]), 400, /must be a JSON object/);
  });

  it("refuses another kind in the body", () => {
    refused(
      () => fromBody({ kind: "Pod" }),
      400,
      /no kind "Pod" is registered for version "meta.k8s.io\/v1"/,
    );
    assert.deepEqual(fromBody({ kind: "DeleteOptions", apiVersion: "apps/v1" }), {});
  });

  it("checks the combination as upstream's ValidateDeleteOptions", () => {
    refused(
      () => fromBody({ orphanDependents: true, propagationPolicy: "Foreground" }),
      422,
      /propagationPolicy: Invalid value: "Foreground": orphanDependents and deletionPropagation cannot be both set/,
    );
    refused(
      () => fromQuery("propagationPolicy=Bogus"),
      422,
      /propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"/,
    );
    refused(
      () => fromQuery("dryRun=Some"),
      422,
      /dryRun: Unsupported value: \["Some"\]: supported values: "All"/,
    );
  });
});
