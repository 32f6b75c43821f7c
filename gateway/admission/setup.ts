// The server's admission chain from its options: the enabled plugins, their configurations from
// `--admission-control-config-file`, and the environment plugins are built with.
import { Registry as MetricsRegistry } from "prom-client";
import type { Naming } from "../../backends/naming/index.ts";
import type { PluginOptions } from "../../plugins/admission/index.ts";
import type { Authorizer } from "../../plugins/authorization/index.ts";
import type { ObjectAccess } from "../../plugins/objects/index.ts";
import type { ResourceTable } from "../routing/resources.ts";
import { type AdmissionChain, buildAdmissionChain } from "./chain.ts";
import { loadAdmissionConfig } from "./config-file.ts";
import { REGISTRATIONS, resolvePlugins } from "./plugins.ts";
import { resourceCatalog } from "./resource-catalog.ts";
import { objectWriter } from "./writer.ts";

export interface AdmissionSetup {
  readonly naming: Naming;
  readonly resources: ResourceTable;
  readonly objects: ObjectAccess;
  readonly authorizer: Authorizer;
  /** `--enable-admission-plugins`, or exactly these plugins when `only` is set. */
  readonly enable?: readonly string[];
  readonly disable?: readonly string[];
  /** Run exactly these plugins instead of the default set (test gateways). */
  readonly only?: readonly string[];
  readonly configFile?: string;
  readonly options?: Partial<PluginOptions>;
  readonly metrics?: MetricsRegistry;
  readonly signal: AbortSignal;
}

export async function startAdmission(setup: AdmissionSetup): Promise<AdmissionChain> {
  const enabled = setup.only ? [...setup.only] : resolvePlugins(setup.enable ?? [], setup.disable ?? []);
  const configurations = setup.configFile
    ? await loadAdmissionConfig(setup.configFile, setup.naming)
    : new Map<string, unknown>();
  return buildAdmissionChain({
    enabled,
    registrations: REGISTRATIONS,
    configurations,
    env: {
      naming: setup.naming,
      objects: setup.objects,
      resources: resourceCatalog(setup.resources),
      writer: objectWriter(setup.resources),
      authorizer: setup.authorizer,
      options: {
        defaultNotReadyTolerationSeconds: 300,
        defaultUnreachableTolerationSeconds: 300,
        featureGates: {},
        ...setup.options,
      },
      metrics: setup.metrics ?? new MetricsRegistry(),
      signal: setup.signal,
    },
  });
}
