import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { clip, ERROR_LIMITS, field, fieldErrorBody, formatFieldError } from "./field-error.ts";

const MAX = ERROR_LIMITS.textChars;

describe("field error text", () => {
  it("lists a short set of supported values whole, as upstream", () => {
    assert.equal(
      formatFieldError(field.notSupported("spec.mode", "x", ["Fast", "Slow"])),
      'spec.mode: Unsupported value: "x": supported values: "Fast", "Slow"',
    );
  });

  it("lists at most ERROR_LIMITS.supportedValues values and counts the rest", () => {
    const values = Array.from({ length: 1000 }, (_, i) => `v${i}`);
    const listed = values.slice(0, ERROR_LIMITS.supportedValues).map((v) => `"${v}"`);
    assert.equal(
      fieldErrorBody(field.notSupported("spec.x", "x", values)),
      `Unsupported value: "x": supported values: ${listed.join(", ")}, ... (${1000 - listed.length} more)`,
    );
  });

  it("keeps every text within ERROR_LIMITS.textChars, however long the value, values or path", () => {
    const long = "é".repeat(1_000_000);
    const body = fieldErrorBody(field.invalid("spec.x", long, "must be short"));
    assert.equal(body, `Invalid value: "${"é".repeat(MAX - 16)}...`);
    const deep = { list: Array.from({ length: 1_000_000 }, (_, i) => ({ i })) };
    assert.ok(fieldErrorBody(field.invalid("spec.x", deep, "no")).length <= MAX + 3);
    const values = [long, long];
    assert.ok(fieldErrorBody(field.notSupported("spec.x", "x", values)).length <= MAX + 3);
    const text = formatFieldError(field.required(`spec.${long}`));
    assert.equal(text, `${clip(`spec.${long}`)}: Required value`);
    assert.equal(text.length, MAX + 3 + ": Required value".length);
  });

  it("cuts before a surrogate pair rather than inside it", () => {
    const text = `${"a".repeat(MAX - 1)}😀😀`;
    assert.equal(clip(text), `${"a".repeat(MAX - 1)}...`);
  });
});
