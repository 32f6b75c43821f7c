// The same-run baseline of test/bench/http.ts: a bare fastify 5 HTTPS server with the gateway's own
// TLS settings (gateway/server.ts, the gateway's serving certificate and client CA) and three routes:
//   GET  /object   the bytes of one object, as the gateway serves it (S1)
//   GET  /list     the bytes of one LIST page, as the gateway serves it (paged LIST reference)
//   POST /echo     parses the JSON body and sends it back (S2)
//   GET  /watch    a chunked stream that stays open (S5's raw fan-out)
//   POST /emit     encodes the JSON body once as an ADDED watch frame, writes that frame to every open
//                  /watch stream, and answers 201 with the object (S5)
//   GET  /api/...  the /object bytes behind the gateway's own access stages (request info, bearer
//                  token from the token file through the gateway's token cache, client certificates,
//                  audit ID, impersonation, authorization with system:masters allowed): S1's floor,
//                  what those unavoidable parts cost on top of bare fastify
//   GET  /proxy/…  behind the same access stages, the rest of the path sent on with undici (TLS,
//                  the request's Authorization) to the upstream set by POST /__upstream, its answer
//                  read whole and sent back: S12's floor, what a proxy that must authenticate and
//                  authorize pays on this machine for the second hop
// plus POST /__set?slot=object|list (text/plain) for the benchmark to hand it those bytes, and
// POST /__upstream ({"origin","caPem","serverName"}) for the proxy route's upstream.
//
// usage: node test/bench/http-baseline.ts '{"port":N,"certFile":…,"keyFile":…,"caFile":…}'
// Prints "listening" on stdout once it serves; stops on SIGTERM.

import { readFileSync } from "node:fs";
import { Agent, type Dispatcher } from "undici";
import { naming } from "../../backends/naming/index.ts";
import { accessGuard } from "../../gateway/authorization/guard.ts";
import { createServer } from "../../gateway/server.ts";
import {
  audienceAgnostic,
  bearerAuthenticator,
  cachedTokenAuthenticator,
  tokenFileAuthenticator,
  x509Authenticator,
} from "../../plugins/authentication/index.ts";
import { privilegedGroups, unionAuthorizer } from "../../plugins/authorization/index.ts";

interface BaselineConfig {
  readonly port: number;
  readonly certFile: string;
  readonly keyFile: string;
  readonly caFile: string;
  /** The bench's token file, for the access route. */
  readonly tokenFile: string;
}

const config = JSON.parse(process.argv[2] ?? "{}") as BaselineConfig;
const app = createServer(
  {
    certPem: readFileSync(config.certFile, "utf8"),
    keyPem: readFileSync(config.keyFile, "utf8"),
    clientCaPem: readFileSync(config.caFile, "utf8"),
  },
  false,
);

const bodies: Record<"object" | "list", Buffer> = {
  object: Buffer.from("{}"),
  list: Buffer.from("{}"),
};

app.get("/object", (_req, reply) => {
  reply.header("content-type", "application/json").send(bodies.object);
});
app.get("/list", (_req, reply) => {
  reply.header("content-type", "application/json").send(bodies.list);
});
app.post("/echo", async (req) => req.body);

// The access stages as the gateway builds them for these credentials (gateway/security.ts).
const audiences = ["https://kubernetes.default.svc"];
const tokenFile = await tokenFileAuthenticator({ path: config.tokenFile, reloadIntervalMs: 0 });
const tokens = cachedTokenAuthenticator(audienceAgnostic(tokenFile, audiences), {
  successTtlMs: 10_000,
  failureTtlMs: 10_000,
});
const guard = accessGuard({
  authenticators: [
    x509Authenticator(readFileSync(config.caFile, "utf8")),
    bearerAuthenticator([tokens], audiences),
  ],
  anonymousAuth: true,
  authorizer: unionAuthorizer([privilegedGroups()]),
  naming: naming("cluster"),
});
app.get("/api/*", { preHandler: guard }, (_req, reply) => {
  reply.header("content-type", "application/json").send(bodies.object);
});

// The plainest proxy undici and fastify make after the access stages: the caller's token sent on.
let upstream: { origin: string; agent: Dispatcher } | undefined;
app.get("/proxy/*", { preHandler: guard }, async (req, reply) => {
  if (!upstream) return reply.code(503).send({ error: "no upstream" });
  const answer = await upstream.agent.request({
    origin: upstream.origin,
    path: req.url.slice("/proxy".length),
    method: "GET",
    headers: { authorization: req.headers.authorization ?? "", accept: req.headers.accept ?? "*/*" },
  });
  const body = Buffer.from(await answer.body.arrayBuffer());
  const type = answer.headers["content-type"];
  return reply
    .code(answer.statusCode)
    .header("content-type", typeof type === "string" ? type : "application/json")
    .send(body);
});
app.post<{ Body: { origin: string; caPem: string; serverName: string } }>("/__upstream", async (req) => {
  await upstream?.agent.close();
  upstream = {
    origin: req.body.origin,
    agent: new Agent({ connect: { ca: req.body.caPem, servername: req.body.serverName } }),
  };
  return { origin: upstream.origin };
});

const watchers = new Set<import("node:http").ServerResponse>();
app.get("/watch", (req, reply) => {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, { "content-type": "application/json", "transfer-encoding": "chunked" });
  res.flushHeaders();
  watchers.add(res);
  req.raw.socket.on("close", () => watchers.delete(res));
});
app.post("/emit", (req, reply) => {
  const object = JSON.stringify(req.body);
  const frame = Buffer.from(`{"type":"ADDED","object":${object}}\n`);
  for (const res of watchers) res.write(frame);
  reply.code(201).header("content-type", "application/json").send(object);
});
app.post<{ Querystring: { slot?: string }; Body: string }>(
  "/__set",
  { bodyLimit: 256 * 1024 * 1024 },
  async (req, reply) => {
    const slot = req.query.slot;
    if (slot !== "object" && slot !== "list") return reply.code(400).send({ error: "slot" });
    bodies[slot] = Buffer.from(req.body);
    return { slot, bytes: bodies[slot].length };
  },
);

await app.listen({ host: "127.0.0.1", port: config.port });
process.stdout.write("listening\n");
process.on("SIGTERM", () => {
  void app.close().then(() => process.exit(0));
});
