// ImagePolicyWebhook (validating): a pod's images and its `*.image-policy.<domain>/*` annotations
// go to an ImageReview backend over TLS before the pod is stored. Answers are cached (allowed ones
// for allowTTL, denied ones for denyTTL); a backend that gives no answer is retried as upstream
// does, then `defaultAllow` decides, and a pod let through that way is marked as failed open.
import { ApiClient, ExpiringCache, loadKubeconfig } from "../../client/index.ts";
import type { AdmissionPlugin, Attributes, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest, forbidden } from "../index.ts";
import { askBackend, BackendError, type ReviewStatus } from "./backend.ts";
import { ImagePolicyConfigError, parseConfig } from "./config.ts";
import { imageReview, reviewSpec } from "./review.ts";

export { ImagePolicyConfigError } from "./config.ts";

export const PLUGIN_NAME = "ImagePolicyWebhook";

/** Answers kept at most (upstream's LRU size). */
const CACHE_SIZE = 1024;
/** Upstream's webhook request timeout. */
const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export interface ImagePolicyOptions {
  /** Bound of one call to the backend (default 30 s, as upstream). */
  readonly callTimeoutMs?: number;
  /** The cache's clock (tests move it instead of waiting). */
  readonly now?: () => number;
}

function backendClient(env: PluginEnv, kubeConfigFile: string): ApiClient {
  let config: ReturnType<typeof loadKubeconfig>;
  try {
    config = loadKubeconfig(kubeConfigFile);
  } catch (err) {
    throw new ImagePolicyConfigError(`kubeConfigFile ${kubeConfigFile}: ${(err as Error).message}`);
  }
  let url: URL;
  try {
    url = new URL(config.cluster.server);
  } catch {
    throw new ImagePolicyConfigError(`the backend's server is not a URL: ${config.cluster.server}`);
  }
  if (url.protocol !== "https:")
    throw new ImagePolicyConfigError(`the backend must use TLS (https), got ${config.cluster.server}`);
  try {
    return new ApiClient(config, { naming: env.naming, userAgent: "kube-apiserver-admission" });
  } catch (err) {
    throw new ImagePolicyConfigError(`kubeConfigFile ${kubeConfigFile}: ${(err as Error).message}`);
  }
}

export function createImagePolicyWebhook(env: PluginEnv, options: ImagePolicyOptions = {}): AdmissionPlugin {
  const config = parseConfig(env.configuration);
  const client = backendClient(env, config.kubeConfigFile);
  const stop = new AbortController();
  const signal = AbortSignal.any([env.signal, stop.signal]);
  const apiVersion = `${env.naming.group("imagepolicy")}/v1alpha1`;
  // Upstream spells the annotation domain `image-policy.k8s.io`, apart from the API group.
  const domain = env.naming.group("image-policy");
  const marker = `.${domain}/`;
  const auditPrefix = `${PLUGIN_NAME.toLowerCase()}.${domain}/`;
  const failedOpenKey = `alpha.${domain}/failed-open`;
  const backend = {
    client,
    apiVersion,
    retryBackoffMs: config.retryBackoffMs,
    callTimeoutMs: options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    signal,
  };
  const cache = new ExpiringCache<ReviewStatus>(CACHE_SIZE, options.now);

  async function validate(a: Attributes): Promise<void> {
    if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
    if (a.resource.group !== "" || a.resource.resource !== "pods") return;
    if (a.subresource !== "" && a.subresource !== "ephemeralcontainers") return;
    const pod = a.object;
    if (
      !pod ||
      typeof pod !== "object" ||
      Array.isArray(pod) ||
      (pod.kind !== undefined && pod.kind !== "Pod")
    )
      throw badRequest("Resource was marked with kind Pod but was unable to be converted");
    const spec = reviewSpec(pod, a.subresource, a.namespace, marker);
    const key = JSON.stringify(spec);
    let status = cache.get(key);
    if (!status) {
      try {
        status = await askBackend(backend, imageReview(apiVersion, spec));
      } catch (err) {
        const why = err instanceof BackendError ? err.message : String(err);
        if (!config.defaultAllow) throw forbidden(a, why);
        // Upstream's one change in its validating phase: the stored pod says it failed open.
        a.annotate(`${auditPrefix}failed-open`, "true");
        pod.metadata ??= {};
        const metadata = pod.metadata as Record<string, unknown>;
        metadata.annotations ??= {};
        (metadata.annotations as Record<string, unknown>)[failedOpenKey] = "true";
        return;
      }
      cache.set(key, status, status.allowed ? config.allowTtlMs : config.denyTtlMs);
    }
    for (const [k, v] of Object.entries(status.auditAnnotations)) a.annotate(`${auditPrefix}${k}`, v);
    if (!status.allowed)
      throw forbidden(
        a,
        status.reason
          ? `image policy webhook backend denied one or more images: ${status.reason}`
          : "one or more images rejected by webhook backend",
      );
  }

  return {
    name: PLUGIN_NAME,
    validate,
    async close() {
      stop.abort();
      await client.close();
    },
  };
}

export const registration: PluginRegistration = {
  name: PLUGIN_NAME,
  factory: (env) => createImagePolicyWebhook(env),
};
