// An error as the response: its Status in JSON, or in Protobuf for a client that asks for that
// first (as upstream negotiates errors), with Retry-After when it names one. Every route (API,
// health, OpenAPI, the access guard) answers errors through this.
import type { FastifyReply } from "fastify";
import { auditStatus } from "../audit/audit-stage.ts";
import { errorProtobufType } from "../negotiation/media-type.ts";
import { encodeProtobufObject } from "../protobuf/codec.ts";
import type { ApiError } from "./api-error.ts";
import { hasRawBytes } from "./warning.ts";

export function sendError(reply: FastifyReply, err: ApiError): void {
  const status = err.toStatus();
  auditStatus(reply.raw, status as unknown as Record<string, unknown>);
  if (err.details?.retryAfterSeconds !== undefined)
    reply.header("retry-after", String(err.details.retryAfterSeconds));
  const protobufType = errorProtobufType(reply.request.headers.accept);
  const body = JSON.stringify(status);
  const warnings = reply.getHeader("warning");
  // Warnings in UTF-8 reach the client as they are only with a body of bytes (see hasRawBytes).
  const raw = Array.isArray(warnings) && hasRawBytes(warnings);
  // fastify's code() takes 100-599; a webhook's denial may carry 600-999, which Node, like
  // upstream, writes as it is.
  if (err.code > 599) reply.raw.statusCode = err.code;
  else reply.code(err.code);
  if (protobufType) {
    void reply.type(protobufType).send(encodeProtobufObject(status as unknown as Record<string, unknown>));
    return;
  }
  void reply.type("application/json").send(raw ? Buffer.from(body) : body);
}
