// A Protobuf watch stream's ERROR frame: the length, then a WatchEvent whose object is the
// Status's full body, read back with upstream's IDL.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { naming } from "../../backends/naming/index.ts";
import { negotiateOutput } from "../negotiation/index.ts";
import { encodeProtobufObject } from "../protobuf/codec.ts";
import { loadIdl, skipWithoutIdl } from "../protobuf/upstream-idl.ts";
import { errors } from "../request/api-error.ts";
import { Codec } from "./codec.ts";

describe("Protobuf watch frames", { skip: skipWithoutIdl }, () => {
  const k8s = naming("kubernetes");
  const codec = new Codec(k8s);
  const root = loadIdl();

  it("an ERROR event carries the Status, length-prefixed", () => {
    const choice = negotiateOutput("application/vnd.kubernetes.protobuf", {
      naming: k8s,
      tableSupported: true,
      protobufSupported: true,
      stream: true,
    });
    const status = errors.expired("too old resource version: 1 (5)").toStatus();
    const frame = codec.errorFrame(status, choice);
    assert.ok(Buffer.isBuffer(frame));
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const event = root
      .lookupType("k8s.io.apimachinery.pkg.apis.meta.v1.WatchEvent")
      .decode(frame.subarray(4)) as unknown as {
      type: string;
      object: { raw: Uint8Array };
    };
    assert.equal(event.type, "ERROR");
    assert.equal(
      Buffer.from(event.object.raw).toString("hex"),
      encodeProtobufObject(status as unknown as Record<string, unknown>).toString("hex"),
    );
  });

  it("a JSON stream's ERROR event stays a JSON line", () => {
    const choice = negotiateOutput("application/json", {
      naming: k8s,
      tableSupported: true,
      protobufSupported: true,
      stream: true,
    });
    const frame = codec.errorFrame(errors.expired("gone").toStatus(), choice);
    assert.equal(typeof frame, "string");
    assert.equal(JSON.parse(frame as string).type, "ERROR");
  });
});
