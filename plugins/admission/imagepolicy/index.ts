// ImagePolicyWebhook: a Pod's images (and its `*.image-policy.<domain>/*` annotations) go to an
// ImageReview backend over TLS before the Pod is admitted. Answers are cached (allowTTL, denyTTL);
// a backend that cannot be reached is retried with backoff, then `defaultAllow` decides.
import { ApiClient, loadKubeconfig } from "../../client/index.ts";
import type { AdmissionPlugin, Attributes, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { badRequest, forbidden } from "../index.ts";
import { type ImagePolicyConfig, ImagePolicyConfigError, parseConfig } from "./config.ts";

export { ImagePolicyConfigError } from "./config.ts";

/** Cached answers at most (upstream's LRU size). */
const CACHE_SIZE = 1024;
/** Attempts of one review: upstream's exponential backoff steps. */
const ATTEMPTS = 5;
const BACKOFF_FACTOR = 1.5;

export interface ImagePolicyOptions {
  /** Bound of one call to the backend (default 30 s). */
  readonly callTimeoutMs?: number;
}

interface ReviewStatus {
  readonly allowed: boolean;
  readonly reason: string;
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

const obj = (v: unknown): JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
const list = (v: unknown): JsonObject[] => (Array.isArray(v) ? v.map(obj) : []);

class BackendError extends Error {}

export function createImagePolicyWebhook(env: PluginEnv, options: ImagePolicyOptions = {}): AdmissionPlugin {
  const config: ImagePolicyConfig = parseConfig(env.configuration);
  let client: ApiClient;
  try {
    const kubeconfig = loadKubeconfig(config.kubeConfigFile);
    if (!kubeconfig.cluster.server.startsWith("https://"))
      throw new ImagePolicyConfigError(
        `ImagePolicyWebhook: the backend must use TLS (https), got ${kubeconfig.cluster.server}`,
      );
    client = new ApiClient(kubeconfig, { naming: env.naming });
  } catch (err) {
    if (err instanceof ImagePolicyConfigError) throw err;
    throw new ImagePolicyConfigError(`ImagePolicyWebhook: ${(err as Error).message}`);
  }
  const group = env.naming.group("image-policy");
  const apiVersion = `${group}/v1alpha1`;
  const forwarded = `.${group}/`;
  const auditPrefix = `imagepolicywebhook.${group}/`;
  const failedOpenKey = `alpha.${group}/failed-open`;
  const callTimeoutMs = options.callTimeoutMs ?? 30_000;
  /** Insertion order is recency; entries carry their expiry. */
  const cache = new Map<string, { status: ReviewStatus; expires: number }>();

  const cached = (key: string): ReviewStatus | undefined => {
    const hit = cache.get(key);
    if (!hit) return undefined;
    cache.delete(key);
    if (hit.expires <= Date.now()) return undefined;
    cache.set(key, hit);
    return hit.status;
  };
  const remember = (key: string, status: ReviewStatus) => {
    const ttl = status.allowed ? config.allowTtlMs : config.denyTtlMs;
    if (ttl <= 0) return;
    cache.delete(key);
    cache.set(key, { status, expires: Date.now() + ttl });
    if (cache.size > CACHE_SIZE) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
  };

  async function callOnce(review: JsonObject): Promise<ReviewStatus> {
    let reply: Awaited<ReturnType<ApiClient["request"]>>;
    try {
      reply = await client.request("POST", "", {
        body: review,
        accept: "application/json",
        timeoutMs: callTimeoutMs,
        maxBodyBytes: 1 << 20,
        signal: env.signal,
      });
    } catch (err) {
      throw new BackendError((err as Error).message);
    }
    if (reply.status < 200 || reply.status > 299)
      throw new BackendError(`Error contacting webhook: ${reply.status}`);
    const body = obj(reply.body);
    if (body.kind !== "ImageReview" || typeof obj(body.status).allowed !== "boolean")
      throw new BackendError("the backend's answer is not an ImageReview with status.allowed");
    const status = obj(body.status);
    const annotations: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(status.auditAnnotations)))
      if (typeof v === "string") annotations[k] = v;
    return {
      allowed: status.allowed === true,
      reason: typeof status.reason === "string" ? status.reason : "",
      auditAnnotations: annotations,
    };
  }

  async function review(body: JsonObject): Promise<ReviewStatus> {
    let wait = config.retryBackoffMs;
    for (let attempt = 1; ; attempt++) {
      try {
        return await callOnce(body);
      } catch (err) {
        if (attempt >= ATTEMPTS || env.signal.aborted) throw err;
        // Upstream's jittered exponential backoff: up to 20% more than the step.
        await new Promise((r) => setTimeout(r, wait * (1 + Math.random() * 0.2)));
        wait *= BACKOFF_FACTOR;
      }
    }
  }

  async function admit(a: Attributes): Promise<void> {
    if (a.resource.group !== "" || a.resource.resource !== "pods") return;
    if (a.subresource !== "" && a.subresource !== "ephemeralcontainers") return;
    if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
    const pod = a.object;
    if (!pod || pod.kind !== "Pod")
      throw badRequest("Resource was marked with kind Pod but was unable to be converted");
    const spec = obj(pod.spec);
    const containers =
      a.subresource === ""
        ? [...list(spec.initContainers), ...list(spec.containers), ...list(spec.ephemeralContainers)]
        : list(spec.ephemeralContainers);
    const metadata = obj(pod.metadata);
    const annotations: Record<string, string> = {};
    for (const [k, v] of Object.entries(obj(metadata.annotations)))
      if (k.includes(forwarded) && typeof v === "string") annotations[k] = v;
    const reviewSpec = {
      containers: containers.map((c) => ({ image: typeof c.image === "string" ? c.image : "" })),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      namespace: a.namespace,
    };
    const key = JSON.stringify(reviewSpec);
    let status = cached(key);
    if (!status) {
      try {
        status = await review({ apiVersion, kind: "ImageReview", metadata: {}, spec: reviewSpec });
      } catch (err) {
        if (!config.defaultAllow) throw forbidden(a, (err as Error).message);
        // Allowed in spite of the failure: said on the audit event and on the pod.
        a.annotate(`${auditPrefix}failed-open`, "true");
        metadata.annotations = { ...obj(metadata.annotations), [failedOpenKey]: "true" };
        pod.metadata = metadata;
        return;
      }
      remember(key, status);
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
    name: "ImagePolicyWebhook",
    admit,
    async close() {
      await client.close();
    },
  };
}

export const registration: PluginRegistration = {
  name: "ImagePolicyWebhook",
  factory: (env) => createImagePolicyWebhook(env),
};
