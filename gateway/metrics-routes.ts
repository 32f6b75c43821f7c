// `/metrics` in Prometheus' text format, behind the access stages like every other route.
import type { FastifyInstance } from "fastify";
import type { AccessGuard } from "./authorization/guard.ts";
import type { GatewayMetrics } from "./metrics.ts";

export function registerMetrics(app: FastifyInstance, guard: AccessGuard, metrics: GatewayMetrics): void {
  app.get("/metrics", { onRequest: guard }, async (_req, reply) => {
    const body = await metrics.registry.metrics();
    void reply.type(metrics.registry.contentType).send(body);
  });
}
