// Gateways that live as long as one test file: started in its before hook, stopped (and their
// data removed) in its after hook.
import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before } from "node:test";
import type { NamingPreset } from "../../backends/naming/index.ts";
import { ApiClient } from "./api-client.ts";
import { type GatewayProcess, startGateway } from "./gateway-process.ts";

export const PRESETS: readonly NamingPreset[] = ["cluster", "kubernetes"];

/** One gateway per naming preset; the returned function gives a preset's gateway. */
export function presetGateways(args: readonly string[] = ["--storage-backend=memory"]) {
  const gateways = new Map<NamingPreset, GatewayProcess>();
  before(async () => {
    for (const preset of PRESETS)
      gateways.set(preset, await startGateway([...args, `--api-naming=${preset}`]));
  });
  after(async () => {
    for (const gw of gateways.values()) {
      await gw.stop();
      await rm(gw.dataDir, { recursive: true, force: true });
    }
  });
  return (preset: NamingPreset): GatewayProcess => {
    const gw = gateways.get(preset);
    assert.ok(gw, `no gateway for the ${preset} naming (did its start fail?)`);
    return gw;
  };
}

export interface FileGateway {
  readonly gw: GatewayProcess;
  /** A client with the gateway's admin kubeconfig. */
  readonly api: ApiClient;
}

/** One gateway (started with `args`) and an admin client for it; read them inside tests. */
export function fileGateway(args: readonly string[] = []): FileGateway {
  let started: { gw: GatewayProcess; api: ApiClient } | undefined;
  before(async () => {
    const gw = await startGateway([...args]);
    started = { gw, api: new ApiClient(gw.kubeconfig) };
  });
  after(async () => {
    if (!started) return;
    await started.api.close();
    await started.gw.stop();
    await rm(started.gw.dataDir, { recursive: true, force: true });
  });
  const get = () => {
    assert.ok(started, "the file's gateway has not started (did its start fail?)");
    return started;
  };
  return {
    get gw() {
      return get().gw;
    },
    get api() {
      return get().api;
    },
  };
}
