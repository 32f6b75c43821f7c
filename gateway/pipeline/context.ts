// What the stages of one request share.
import type { TLSSocket } from "node:tls";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { RequestInfo } from "../request/request-info.ts";

export interface UserInfo {
  readonly username: string;
  readonly uid: string;
  readonly groups: readonly string[];
  readonly extra: Readonly<Record<string, readonly string[]>>;
}

export interface RequestContext {
  readonly req: FastifyRequest;
  readonly reply: FastifyReply;
  readonly url: URL;
  readonly socket: TLSSocket;
  info?: RequestInfo;
  /** The effective user: the authenticated one, or the one it impersonates. */
  user?: UserInfo;
  /** The authenticated user when the request impersonates another (`user` is then the other). */
  impersonator?: UserInfo;
  /** Annotations for the request's audit event (the authorization decision and its reason). */
  auditAnnotations?: Record<string, string>;
  /** Annotations for audit events at level Request or above (webhook patches). */
  auditRequestAnnotations?: Record<string, string>;
  /** Texts for `Warning: 299 - "..."` headers. */
  readonly warnings: string[];
  /** Set once a stage has answered the request. */
  done: boolean;
}
