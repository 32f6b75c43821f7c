// The `audit` stage: every API request gets an audit ID (the `Audit-Id` response header) and,
// with `--audit-log-path`, one audit Event per request is appended to the log as a JSON line
// when the response completes, at level Metadata (who did what to which object, with what
// result, who they impersonated, the authorization decision; no bodies). Audit policies with
// other levels come later.
import { randomUUID } from "node:crypto";
import { createWriteStream, type WriteStream } from "node:fs";
import type { Naming } from "../../backends/naming/index.ts";
import type { RequestContext, UserInfo } from "../pipeline/context.ts";
import type { Stage } from "../pipeline/pipeline.ts";

/** RFC 3339 with microseconds, as audit timestamps are written. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export interface AuditLog {
  write(event: Record<string, unknown>): void;
  close(): Promise<void>;
}

export function fileAuditLog(path: string): AuditLog {
  const stream: WriteStream = createWriteStream(path, { flags: "a", mode: 0o600 });
  return {
    write(event) {
      stream.write(`${JSON.stringify(event)}\n`);
    },
    close: () => new Promise((resolve) => stream.end(resolve)),
  };
}

/** An audit event's UserInfo: empty fields are left out, as upstream's JSON omits them. */
function auditUser(user: UserInfo): Record<string, unknown> {
  return {
    username: user.username,
    ...(user.uid ? { uid: user.uid } : {}),
    ...(user.groups.length > 0 ? { groups: user.groups } : {}),
    ...(Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

export function auditStage(naming: Naming, log: AuditLog | undefined): Stage {
  const apiVersion = `${naming.group("audit")}/v1`;
  return {
    name: "audit",
    run(ctx: RequestContext) {
      const auditID = randomUUID();
      const received = Date.now();
      ctx.reply.header("audit-id", auditID);
      if (!log) return;
      const raw = ctx.reply.raw;
      raw.once("close", () => {
        const info = ctx.info;
        // `user` is who authenticated; the one it acted as is `impersonatedUser`.
        const user = ctx.impersonator ?? ctx.user;
        const event: Record<string, unknown> = {
          kind: "Event",
          apiVersion,
          level: "Metadata",
          auditID,
          stage: "ResponseComplete",
          requestURI: ctx.req.url,
          verb: info?.verb ?? ctx.req.method.toLowerCase(),
          user: user ? auditUser(user) : {},
          ...(ctx.impersonator && ctx.user ? { impersonatedUser: auditUser(ctx.user) } : {}),
          sourceIPs: [ctx.req.ip],
          userAgent: ctx.req.headers["user-agent"] ?? "",
          responseStatus: { metadata: {}, code: raw.statusCode },
          requestReceivedTimestamp: microTime(received),
          stageTimestamp: microTime(Date.now()),
        };
        if (info?.isResourceRequest) {
          event.objectRef = {
            resource: info.resource,
            ...(info.namespace ? { namespace: info.namespace } : {}),
            ...(info.name ? { name: info.name } : {}),
            apiGroup: info.apiGroup,
            apiVersion: info.apiVersion,
            ...(info.subresource ? { subresource: info.subresource } : {}),
          };
        }
        if (ctx.auditAnnotations && Object.keys(ctx.auditAnnotations).length > 0)
          event.annotations = { ...ctx.auditAnnotations };
        log.write(event);
      });
    },
  };
}
