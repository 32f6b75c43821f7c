// The client side of S5 over HTTPS (test/bench/http.ts): one process that both writes and watches,
// as BENCHMARKS.md's method asks, with `performance.now()` timestamps.
//
//   node test/bench/watch-client.ts '<WatchClientConfig as JSON>'
//
// Opens `watchers` watch streams (one TLS connection each), then sends one write every 1/rate s on
// a connection of its own. Frames arrive on every stream in write order, so the k-th frame of a
// stream answers the k-th write: its latency is its arrival minus the moment write k was sent.
// Prints `MEASURE start` when the measured writes begin and `MEASURE end` once every measured
// frame arrived (or the deadline passed), then `RESULT <WatchClientResult as JSON>`.

import { Agent, request } from "node:https";
import { median, percentile } from "./fixtures.ts";

export interface WatchClientConfig {
  readonly port: number;
  readonly ca: string;
  /** Sent with every request (the gateway's static token; the baseline ignores it). */
  readonly token: string;
  readonly watchPath: string;
  readonly writePath: string;
  /** Where the writes go when not to `port` (S12 writes to the extension, watches through the gateway). */
  readonly writePort?: number;
  /** A JSON body with `__NAME__` where each write puts its own name. */
  readonly body: string;
  readonly namePrefix: string;
  readonly watchers: number;
  readonly rate: number;
  readonly warmupMs: number;
  readonly durationMs: number;
}

export interface WatchClientResult {
  readonly p50: number;
  readonly p99: number;
  readonly deliveries: number;
  readonly expected: number;
  readonly writes: number;
  readonly writeP50: number;
}

const now = () => performance.now();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2] ?? "{}") as WatchClientConfig;
  const headers = { authorization: `Bearer ${config.token}` };
  const tls = { host: "127.0.0.1", port: config.port, ca: config.ca };
  const watchAgent = new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const writeAgent = new Agent({ keepAlive: true, maxSockets: 1 });

  const sentAt: number[] = [];
  const measured: boolean[] = [];
  const latencies: number[] = [];
  let deliveries = 0;
  const streams: import("node:http").ClientRequest[] = [];
  const opened = Array.from(
    { length: config.watchers },
    () =>
      new Promise<void>((resolve, reject) => {
        const req = request(
          { ...tls, path: config.watchPath, method: "GET", headers, agent: watchAgent },
          (res) => {
            if (res.statusCode !== 200) {
              reject(new Error(`watch: HTTP ${res.statusCode}`));
              return;
            }
            let frames = 0;
            res.on("data", (chunk: Buffer) => {
              const t = now();
              for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) {
                const k = frames++;
                if (measured[k]) {
                  latencies.push(t - (sentAt[k] as number));
                  deliveries++;
                }
              }
            });
            res.on("error", () => {});
            resolve();
          },
        );
        req.on("error", reject);
        req.end();
        streams.push(req);
      }),
  );
  await Promise.all(opened);

  const writeTimes: number[] = [];
  const write = (k: number) =>
    new Promise<void>((resolve, reject) => {
      const body = config.body.replace("__NAME__", `${config.namePrefix}${k}`);
      const start = now();
      sentAt[k] = start;
      const req = request(
        {
          ...tls,
          port: config.writePort ?? config.port,
          path: config.writePath,
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          agent: writeAgent,
        },
        (res) => {
          res.resume();
          res.on("end", () => {
            writeTimes.push(now() - start);
            if (res.statusCode === 201) resolve();
            else reject(new Error(`write ${k}: HTTP ${res.statusCode}`));
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  const interval = 1000 / config.rate;
  const start = now();
  const measureFrom = start + config.warmupMs;
  const end = measureFrom + config.durationMs;
  let expected = 0;
  let writes = 0;
  let started = false;
  for (let k = 0; ; k++) {
    const due = start + k * interval;
    if (due >= end) break;
    const wait = due - now();
    if (wait > 0) await sleep(wait);
    measured[k] = due >= measureFrom;
    if (measured[k] && !started) {
      started = true;
      process.stdout.write("MEASURE start\n");
    }
    if (measured[k]) expected += config.watchers;
    await write(k);
    writes++;
  }
  const deadline = now() + 10_000;
  while (deliveries < expected && now() < deadline) await sleep(5);
  process.stdout.write("MEASURE end\n");

  for (const req of streams) req.destroy();
  watchAgent.destroy();
  writeAgent.destroy();
  const result: WatchClientResult = {
    p50: median(latencies),
    p99: percentile(latencies, 99),
    deliveries,
    expected,
    writes,
    writeP50: median(writeTimes),
  };
  process.stdout.write(`RESULT ${JSON.stringify(result)}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(
      `watch-client failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
