import assert from "node:assert/strict";
import { it } from "node:test";
import { OBJECT_META_TYPES, typeMismatch } from "./json-types.ts";

it("names the first field of the wrong type, upstream style", () => {
  assert.equal(
    typeMismatch(
      { metadata: { name: "a", labels: { x: "1" }, finalizers: ["f"], generation: 2 } },
      "Thing",
      OBJECT_META_TYPES,
    ),
    undefined,
  );
  assert.equal(
    typeMismatch({ metadata: { labels: null } }, "Thing", OBJECT_META_TYPES),
    undefined,
    "null is unset",
  );
  assert.equal(
    typeMismatch({ metadata: { labels: { x: 1 } } }, "Thing", OBJECT_META_TYPES),
    "json: cannot unmarshal object into Go struct field Thing.metadata.labels of type map[string]string",
  );
  assert.match(
    String(typeMismatch({ metadata: { generation: 1.5 } }, "Thing", OBJECT_META_TYPES)),
    /metadata.generation of type int64/,
  );
  assert.match(
    String(typeMismatch({ metadata: { finalizers: "x" } }, "Thing", OBJECT_META_TYPES)),
    /cannot unmarshal string into .*metadata.finalizers of type \[\]string/,
  );
  assert.match(
    String(typeMismatch({ kind: 3 }, "Thing", OBJECT_META_TYPES)),
    /cannot unmarshal number into Go struct field Thing.kind of type string/,
  );
});
