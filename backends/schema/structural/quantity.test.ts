import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  canonicalQuantity,
  compareQuantities,
  formatQuantity,
  parseQuantity,
  QUANTITY_FORMAT_ERROR,
  QUANTITY_NUMERIC_ERROR,
  QUANTITY_SUFFIX_ERROR,
  QuantityError,
  quantityError,
  quantityFromJson,
  quantityToNumber,
} from "./quantity.ts";

describe("parsing and canonical form", () => {
  const cases: [string, string, string][] = [
    // input, canonical, format
    ["0", "0", "DecimalSI"],
    ["100m", "100m", "DecimalSI"],
    ["1000m", "1", "DecimalSI"],
    ["0.1", "100m", "DecimalSI"],
    ["1.5", "1500m", "DecimalSI"],
    ["0.5", "500m", "DecimalSI"],
    ["1k", "1k", "DecimalSI"],
    ["1000", "1k", "DecimalSI"],
    ["12345", "12345", "DecimalSI"],
    ["1M", "1M", "DecimalSI"],
    ["1E", "1E", "DecimalSI"],
    ["1Ki", "1Ki", "BinarySI"],
    ["1Gi", "1Gi", "BinarySI"],
    ["1.5Gi", "1536Mi", "BinarySI"],
    ["2048Ki", "2Mi", "BinarySI"],
    ["1025", "1025", "DecimalSI"],
    ["0.5Ki", "512", "BinarySI"],
    ["-1Ki", "-1Ki", "BinarySI"],
    ["1e3", "1e3", "DecimalExponent"],
    ["1E3", "1E3", "DecimalExponent"],
    ["1e4", "10e3", "DecimalExponent"],
    ["1.5e3", "1500", "DecimalExponent"],
    ["0.0000000001", "1n", "DecimalSI"],
    ["-0.0000000001", "-1n", "DecimalSI"],
    ["1n", "1n", "DecimalSI"],
    ["1u", "1u", "DecimalSI"],
    ["+1", "+1", "DecimalSI"],
    ["01", "01", "DecimalSI"],
    ["1.", "1.", "DecimalSI"],
    [".5", "500m", "DecimalSI"],
    ["123456789012345678901234567890", "123456789012345678901234567890", "DecimalSI"],
    ["100Ei", "9223372036854775807", "BinarySI"],
  ];
  for (const [input, canonical, format] of cases) {
    it(`${input} → ${canonical}`, () => {
      const q = parseQuantity(input);
      assert.equal(q.format, format);
      assert.equal(formatQuantity(q), canonical);
      assert.equal(canonicalQuantity(input), canonical);
    });
  }
});

describe("errors", () => {
  const cases: [string, string][] = [
    ["", QUANTITY_FORMAT_ERROR],
    ["1x", QUANTITY_FORMAT_ERROR],
    ["abc", QUANTITY_FORMAT_ERROR],
    ["1Kx", QUANTITY_FORMAT_ERROR],
    ["1 Gi", QUANTITY_FORMAT_ERROR],
    ["1Kii", QUANTITY_SUFFIX_ERROR],
    ["1e", QUANTITY_SUFFIX_ERROR],
    ["1mm", QUANTITY_SUFFIX_ERROR],
    [".e-20", QUANTITY_NUMERIC_ERROR],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      assert.equal(quantityError(input), message);
      assert.throws(
        () => parseQuantity(input),
        (e: unknown) => e instanceof QuantityError && e.message === message,
      );
    });
  }

  it("says the regular expression upstream says", () => {
    assert.equal(
      QUANTITY_FORMAT_ERROR,
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    );
  });

  it("accepts upstream's lenient spellings", () => {
    for (const s of ["+", "-", ".", "1.G", "e3"]) assert.equal(quantityError(s), undefined, s);
  });

  it("never expands huge exponents", () => {
    const q = parseQuantity("1e2147483647");
    assert.equal(q.unscaled, 1n);
    assert.equal(compareQuantities(q, parseQuantity("1e2147483646")), 1);
    assert.equal(formatQuantity(parseQuantity("1e-2147483647")), "1e-9");
  });
});

describe("comparison and JSON", () => {
  const cases: [string, string, -1 | 0 | 1][] = [
    ["1", "1000m", 0],
    ["1Gi", "1024Mi", 0],
    ["1G", "1Gi", -1],
    ["500m", "0.5", 0],
    ["-1", "0", -1],
    ["0", "-0", 0],
    ["2", "1.999", 1],
    ["1e3", "1k", 0],
    ["-2", "-1", -1],
    ["100Mi", "128974848", -1],
  ];
  for (const [a, b, want] of cases) {
    it(`${a} vs ${b}`, () => {
      assert.equal(compareQuantities(parseQuantity(a), parseQuantity(b)), want);
      assert.equal(compareQuantities(parseQuantity(b), parseQuantity(a)), -want || 0);
    });
  }

  it("reads JSON strings (trimmed) and numbers", () => {
    assert.equal(formatQuantity(quantityFromJson(" 100m ")), "100m");
    assert.equal(formatQuantity(quantityFromJson(0.5)), "500m");
    assert.equal(formatQuantity(quantityFromJson(2)), "2");
    assert.throws(() => quantityFromJson(true), QuantityError);
    assert.throws(() => quantityFromJson({}), QuantityError);
  });

  it("approximates as a number", () => {
    assert.equal(quantityToNumber(parseQuantity("1.5Gi")), 1610612736);
    assert.equal(quantityToNumber(parseQuantity("100m")), 0.1);
  });
});
