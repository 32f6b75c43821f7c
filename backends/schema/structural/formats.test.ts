import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formatCheck, normalizeFormat } from "./formats.ts";

const cases: Record<string, { readonly good: readonly string[]; readonly bad: readonly string[] }> = {
  uuid: {
    good: ["0bd4a0e4-9bd8-4c2f-8f1a-54f2d7b0a6e1", "0BD4A0E49BD84C2F8F1A54F2D7B0A6E1"],
    bad: ["", "0bd4a0e4-9bd8", "g".repeat(32)],
  },
  uuid3: { good: ["a987fbc9-4bed-3078-af07-9141ba07c9f3"], bad: ["a987fbc9-4bed-4078-af07-9141ba07c9f3"] },
  uuid4: { good: ["713ae7e3-cb32-45f9-adcb-7c4fa86b90c1"], bad: ["713ae7e3-cb32-45f9-cdcb-7c4fa86b90c1"] },
  uuid5: { good: ["987fbc97-4bed-5078-af07-9141ba07c9f3"], bad: ["987fbc97-4bed-3078-af07-9141ba07c9f3"] },
  "date-time": {
    good: ["2023-04-01T10:00:00Z", "2023-04-01t10:00:00.123+02:00", "2024-02-29T23:59:59Z"],
    bad: ["2023-04-01", "2023-04-01T24:00:00Z", "2023-02-30T10:00:00Z", "2023-04-01T10:00:00"],
  },
  date: { good: ["2023-04-01", "2000-02-29"], bad: ["2023-4-1", "1900-02-29", "2023-13-01", "2023-04-01x"] },
  byte: { good: ["aGVsbG8=", "YWJj", "YQ==", ""], bad: ["hello!", "YQ="] },
  email: {
    good: ["a@example.com", "John <john@example.com>", "a.b+c@d"],
    bad: ["not-an-email", "a@", "@b", "a..b@c"],
  },
  hostname: {
    good: ["example.com", "a", "münchen.de", "my-host.example.org"],
    bad: ["-bad-", "a..b", `${"a".repeat(64)}.com`, ""],
  },
  ipv4: { good: ["10.0.0.1", "010.1.1.1", "::ffff:1.2.3.4"], bad: ["300.0.0.1", "1.2.3", "::1"] },
  ipv6: {
    good: ["::1", "2001:db8::1", "::ffff:1.2.3.4", "1:2:3:4:5:6:7:8"],
    bad: ["1.2.3.4", "1:2:3:4:5:6:7:8:9", "2001:db8:::1", "::ffff:01.2.3.4"],
  },
  cidr: {
    good: ["10.0.0.0/8", "2001:db8::/32", "1.2.3.4/32"],
    bad: ["10.0.0.0/33", "10.0.0.0", "::/129", "10.0.0.0/-1"],
  },
  mac: {
    good: ["00:1a:2b:3c:4d:5e", "00-1A-2B-3C-4D-5E", "001a.2b3c.4d5e"],
    bad: ["00:1a:2b:3c:4d", "00:1a-2b:3c:4d:5e", "zz:1a:2b:3c:4d:5e"],
  },
  uri: {
    good: ["http://example.com/a?b=c", "/absolute/path", "mailto:a@b", "*"],
    bad: ["", "relative/path", "http://exa mple.com/", "/a%zz", ":x"],
  },
  bsonobjectid: {
    good: ["507f1f77bcf86cd799439011"],
    bad: ["507f1f77bcf86cd79943901", "zzzf1f77bcf86cd799439011"],
  },
  isbn10: { good: ["0321751043", "0-321-75104-3"], bad: ["0321751044"] },
  isbn13: { good: ["978-0321751041"], bad: ["9780321751042"] },
  isbn: { good: ["0321751043", "9780321751041"], bad: ["123"] },
  creditcard: { good: ["4111 1111 1111 1111"], bad: ["4111 1111 1111 1112"] },
  ssn: { good: ["123-45-6789", "123 45 6789"], bad: ["123456789", "123-45-678"] },
  hexcolor: { good: ["#fff", "ABCDEF"], bad: ["#ffff", "ggg"] },
  rgbcolor: { good: ["rgb(0, 128, 255)"], bad: ["rgb(256,0,0)", "rgb(1,2)"] },
  duration: { good: ["1h30m", "0", "-1.5s", "300ms", "3 days", "5 seconds"], bad: ["", "1x", "h"] },
  password: { good: ["", "anything"], bad: [] },
};

describe("formats", () => {
  for (const [name, { good, bad }] of Object.entries(cases)) {
    const check = formatCheck(name);
    for (const v of good) it(`${name} accepts ${JSON.stringify(v)}`, () => assert.equal(check?.(v), true));
    for (const v of bad) it(`${name} refuses ${JSON.stringify(v)}`, () => assert.equal(check?.(v), false));
  }

  it("ignores formats upstream strips, and compares names without dashes", () => {
    for (const f of ["int32", "int64", "float", "double", "quantity", "url", ""])
      assert.equal(formatCheck(f), undefined, f);
    assert.equal(normalizeFormat("date-time"), "datetime");
    assert.ok(formatCheck("datetime"));
    assert.ok(formatCheck("u-u-i-d"));
  });

  it("stays fast on long hostile input", () => {
    const long = `${"a.".repeat(50_000)}!`;
    for (const name of ["hostname", "email", "uri", "duration", "byte"]) formatCheck(name)?.(long);
  });
});
