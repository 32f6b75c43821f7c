// `npm start`: load settings, create first-start credentials, open storage, serve.
import { readFile } from "node:fs/promises";
import { pino } from "pino";
import { startCompactor } from "../backends/compaction/compactor.ts";
import { openStorage } from "../backends/factory.ts";
import { loadOptions, OptionError, type ServerOptions, usage } from "../config/options.ts";
import { registerHealth } from "./health.ts";
import { bootstrapPki } from "./pki/bootstrap.ts";
import { createServer } from "./server.ts";

async function main(options: ServerOptions): Promise<void> {
  const log = pino({ name: "cluster-gateway" });
  const host = options.bindAddress.includes(":") ? `[${options.bindAddress}]` : options.bindAddress;
  const serverUrl = `https://${host === "0.0.0.0" || host === "[::]" ? "127.0.0.1" : host}:${options.securePort}`;
  const pki = await bootstrapPki({
    dataDir: options.dataDir,
    tlsSans: options.tlsSans,
    serverUrl,
    servingProvided: options.tlsCertFile !== undefined,
  });
  for (const file of pki.created) log.info({ file }, "generated");
  const tls = {
    certPem: await readFile(options.tlsCertFile ?? pki.paths.servingCert, "utf8"),
    keyPem: await readFile(options.tlsPrivateKeyFile ?? pki.paths.servingKey, "utf8"),
    clientCaPem: await readFile(options.clientCAFile ?? pki.paths.caCert, "utf8"),
  };

  const storage = await openStorage({
    backend: options.storageBackend,
    dataDir: options.dataDir,
    sync: options.storageSync,
    etcd: {
      endpoints: options.etcdServers,
      caFile: options.etcdCAFile,
      certFile: options.etcdCertFile,
      keyFile: options.etcdKeyFile,
    },
  });
  const compactor = startCompactor(storage, options.compactionInterval, (err) =>
    log.warn({ err }, "compaction failed"),
  );

  let shuttingDown = false;
  const storageCheck = async () => {
    await storage.currentRevision();
  };
  const app = createServer(tls, log);
  registerHealth(app, {
    livez: new Map([
      ["ping", () => {}],
      ["storage", storageCheck],
    ]),
    readyz: new Map([
      ["ping", () => {}],
      ["storage", storageCheck],
      [
        "shutdown",
        () => {
          if (shuttingDown) throw new Error("the server is shutting down");
        },
      ],
    ]),
  });
  await app.listen({ host: options.bindAddress, port: options.securePort });
  log.info(
    { url: serverUrl, storage: storage.name },
    `serving; try: kubectl --kubeconfig ${pki.paths.adminKubeconfig} get --raw='/readyz?verbose'`,
  );

  const shutdown = async (signal: string) => {
    if (shuttingDown) return;
    shuttingDown = true;
    log.info({ signal, delayMs: options.shutdownDelayDuration }, "shutting down");
    await new Promise((resolve) => setTimeout(resolve, options.shutdownDelayDuration));
    await app.close();
    compactor.stop();
    await storage.close();
    log.info("stopped");
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

let options: ServerOptions;
try {
  options = loadOptions(process.argv.slice(2));
} catch (err) {
  if (!(err instanceof OptionError)) throw err;
  process.stderr.write(`error: ${err.message}\n\n${usage()}\n`);
  process.exit(2);
}
if (options.help) {
  process.stdout.write(`${usage()}\n`);
  process.exit(0);
}
main(options).catch((err: unknown) => {
  process.stderr.write(`fatal: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
