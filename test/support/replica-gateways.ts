// Several gateways over one etcd with one PKI (the first gateway's, copied into the others' data
// directories before they start), each on its own loopback port, for replica tests.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient } from "./api-client.ts";
import { freePort, type GatewayProcess, startGateway } from "./gateway-process.ts";

export interface Replicas {
  readonly gateways: GatewayProcess[];
  readonly clients: ApiClient[];
  stop(): Promise<void>;
}

/** Starts `count` gateways with `args` (etcd flags included) sharing the first one's credentials. */
export async function startReplicas(count: number, args: string[]): Promise<Replicas> {
  const gateways: GatewayProcess[] = [];
  const clients: ApiClient[] = [];
  const stop = async () => {
    await Promise.all(clients.map((c) => c.close()));
    for (const gw of gateways) {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
  };
  try {
    const first = await startGateway(args);
    gateways.push(first);
    for (let i = 1; i < count; i++) {
      const dataDir = await mkdtemp(join(tmpdir(), "cg-replica-"));
      await cp(join(first.dataDir, "pki"), join(dataDir, "pki"), { recursive: true });
      gateways.push(await startGateway(args, { dataDir, port: await freePort() }));
    }
    for (const gw of gateways) clients.push(new ApiClient(gw.kubeconfig));
  } catch (err) {
    await stop();
    throw err;
  }
  return { gateways, clients, stop };
}
