import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { ApiError } from "../request/api-error.ts";
import {
  encodeQuery,
  kubeletLogQuery,
  kubeletStreamQuery,
  logOptions,
  parseRfc3339,
  portForwardPorts,
  streamOptions,
} from "./pod-stream-options.ts";

const q = (s: string) => new URLSearchParams(s);
const failure = (f: () => unknown): { code: number; message: string } => {
  try {
    f();
  } catch (err) {
    return { code: (err as ApiError).code, message: (err as ApiError).message };
  }
  throw new Error("expected an error");
};

describe("PodLogOptions from the query", () => {
  it("reads booleans as upstream's codec does: false only when absent, 0 or false", () => {
    const o = logOptions(q("follow=&previous=0&timestamps=FALSE&insecureSkipTLSVerifyBackend=yes"), "p");
    assert.deepEqual(
      [o.follow, o.previous, o.timestamps, o.insecureSkipTLSVerifyBackend],
      [true, false, false, true],
    );
    // The first value of a repeated parameter counts.
    assert.equal(logOptions(q("container=a&container=b"), "p").container, "a");
  });

  it("parses integers and times with Go's error text", () => {
    assert.deepEqual(
      failure(() => logOptions(q("tailLines=1.5"), "p")),
      {
        code: 400,
        message: 'strconv.ParseInt: parsing "1.5": invalid syntax',
      },
    );
    assert.equal(
      failure(() => logOptions(q("limitBytes=9223372036854775808"), "p")).message,
      'strconv.ParseInt: parsing "9223372036854775808": value out of range',
    );
    assert.equal(logOptions(q("tailLines=%2B7"), "p").tailLines, 7n);
  });

  it("validates as upstream's ValidatePodLogOptions", () => {
    assert.deepEqual(
      failure(() => logOptions(q("sinceSeconds=0"), "p")),
      {
        code: 422,
        message: 'PodLogOptions "p" is invalid: sinceSeconds: Invalid value: 0: must be greater than 0',
      },
    );
    // An empty sinceTime is the zero time, which still counts as given.
    assert.equal(failure(() => logOptions(q("sinceSeconds=5&sinceTime="), "p")).code, 422);
  });

  it("sends the kubelet upstream's parameters, keys sorted", () => {
    const o = logOptions(
      q("follow=1&tailLines=10&sinceTime=2024-02-29T23:59:59.5-01:00&timestamps=true"),
      "p",
    );
    assert.equal(
      kubeletLogQuery(o),
      "follow=true&sinceTime=2024-03-01T00%3A59%3A59Z&tailLines=10&timestamps=true",
    );
  });
});

describe("time.Parse(RFC3339) as Go words its errors", () => {
  it("accepts offsets and fractions", () => {
    assert.equal(parseRfc3339("2024-01-02T03:04:05Z"), Date.UTC(2024, 0, 2, 3, 4, 5));
    assert.equal(parseRfc3339("2024-01-02T05:04:05,25+02:00"), Date.UTC(2024, 0, 2, 3, 4, 5));
  });

  it("names the element it could not parse, or what is out of range", () => {
    const layout = '"2006-01-02T15:04:05Z07:00"';
    const cases: [string, string][] = [
      ["2024-01-02", `parsing time "2024-01-02" as ${layout}: cannot parse "" as "T"`],
      [
        "2024-01-02 03:04:05Z",
        `parsing time "2024-01-02 03:04:05Z" as ${layout}: cannot parse " 03:04:05Z" as "T"`,
      ],
      ["2024-13-02T03:04:05Z", 'parsing time "2024-13-02T03:04:05Z": month out of range'],
      ["2023-02-29T03:04:05Z", 'parsing time "2023-02-29T03:04:05Z": day out of range'],
      ["2024-01-02T03:04:05Zjunk", 'parsing time "2024-01-02T03:04:05Zjunk": extra text: "junk"'],
    ];
    for (const [input, message] of cases)
      assert.equal(failure(() => parseRfc3339(input)).message, message, input);
  });
});

describe("exec, attach and port-forward options", () => {
  it("renames the streams for the kubelet and keeps the command's order", () => {
    const o = streamOptions(q("command=sh&command=-c&command=echo a*b~&stdin=true&stderr=1&tty=0"), true);
    assert.equal(kubeletStreamQuery(o), "command=sh&command=-c&command=echo+a%2Ab~&error=1&input=1");
    assert.deepEqual(streamOptions(q("command=x"), false).command, []);
  });

  it("reads ports repeated or comma-separated, as 16-bit numbers", () => {
    assert.deepEqual(portForwardPorts(q("ports=80,443&ports=8080")), [80, 443, 8080]);
    assert.equal(
      failure(() => portForwardPorts(q("ports=70000"))).message,
      'cannot convert to []int32: strconv.ParseUint: parsing "70000": value out of range',
    );
    assert.equal(
      encodeQuery([
        ["b", "1"],
        ["a", "x y"],
        ["b", "2"],
      ]),
      "a=x+y&b=1&b=2",
    );
  });
});
