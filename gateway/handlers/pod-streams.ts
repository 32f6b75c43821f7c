// The Pod subresources that stream from the node's kubelet, as upstream's API server serves them
// (pkg/registry/core/pod/rest log.go and subresources.go, strategy.go's LogLocation and
// streamLocation): `log` (GET) reads the kubelet's /containerLogs and streams it back as
// text/plain; `exec`, `attach` and `portforward` (GET or POST, a connection upgrade: SPDY or
// WebSocket) are joined byte for byte with the kubelet's /exec, /attach and /portForward after
// its answer. The options are checked first, then the pod, its container and its node, with
// upstream's errors; a kubelet that cannot be reached is upstream's 500 without a reason.
import type { Socket } from "node:net";
import { posix } from "node:path";
import { pipeline } from "node:stream/promises";
import { openUpgrade } from "../../backends/aggregator/upgrade.ts";
import { asArray, asString, type JsonObject, objectOrEmpty } from "../../backends/common/json.ts";
import { type RequestContext, takeOverResponse } from "../pipeline/index.ts";
import { skippingVerification } from "../pki/kubelet-client.ts";
import { outgoingHeaders, reachError } from "../proxy/forward.ts";
import { nodeLocation, type ProxyLocation } from "../proxy/location.ts";
import { ApiError, errors, type StatusReason } from "../request/api-error.ts";
import type { ServedResource } from "../routing/resources.ts";
import { isUpgrade } from "../server.ts";
import type { HandlerEnv } from "./env.ts";
import {
  connectOptionsObject,
  kubeletLogQuery,
  kubeletPortForwardQuery,
  kubeletStreamQuery,
  type LogOptions,
  logOptions,
  portForwardPorts,
  streamOptions,
} from "./pod-stream-options.ts";
import { admissionFor } from "./write-admission.ts";

const STREAMS = new Set(["log", "exec", "attach", "portforward"]);

/** The options kind each connecting subresource takes (what admission sees). */
const CONNECT_KINDS: Readonly<Record<string, string>> = {
  exec: "PodExecOptions",
  attach: "PodAttachOptions",
  portforward: "PodPortForwardOptions",
};

/** Whether routing should hand the request here. */
export function isPodStream(served: ServedResource, subresource: string | undefined): boolean {
  return (
    subresource !== undefined &&
    STREAMS.has(subresource) &&
    served.schema.group === "" &&
    served.schema.plural === "pods"
  );
}

/** How much of a kubelet's error answer becomes the Status message (upstream's maxReadLength). */
const MAX_ERROR_BODY = 50_000;

async function readObject(
  served: ServedResource,
  namespace: string | undefined,
  name: string,
): Promise<JsonObject> {
  return JSON.parse((await served.registry.get(namespace, name)).json) as JsonObject;
}

/** Every container's name, init containers first, then containers, then ephemeral ones (upstream's VisitContainers). */
function containerNames(pod: JsonObject): { all: string[]; regular: string[] } {
  const spec = objectOrEmpty(pod.spec);
  const names = (field: string) => asArray(spec[field]).map((c) => asString(objectOrEmpty(c).name));
  const regular = names("containers");
  return { all: [...names("initContainers"), ...regular, ...names("ephemeralContainers")], regular };
}

/** Upstream's validateContainer: the named container, or the only one, with its errors. */
function chooseContainer(pod: JsonObject, asked: string): string {
  const podName = asString(objectOrEmpty(pod.metadata).name);
  const { all, regular } = containerNames(pod);
  if (asked === "") {
    if (regular.length === 1) return regular[0] as string;
    if (regular.length === 0)
      throw errors.badRequest(`a container name must be specified for pod ${podName}`);
    // Go prints the list as [a b c].
    throw errors.badRequest(
      `a container name must be specified for pod ${podName}, choose one of: [${all.join(" ")}]`,
    );
  }
  if (!all.includes(asked)) throw errors.badRequest(`container ${asked} is not valid for pod ${podName}`);
  return asked;
}

/**
 * The kubelet of the pod's node (upstream's NodeConnectionInfoGetter): its preferred address at
 * its reported port, https. A node whose addresses match no preferred type is upstream's 500.
 */
async function kubeletOf(env: HandlerEnv, nodeName: string): Promise<ProxyLocation> {
  const nodes = env.resources.byResource("", "nodes");
  if (!nodes) throw errors.pageNotFound();
  const node = await readObject(nodes, undefined, nodeName);
  try {
    return await nodeLocation(node, { scheme: "", name: nodeName, port: "" });
  } catch (err) {
    if (err instanceof ApiError && err.code === 503) throw new ApiError(500, "", err.message);
    throw err;
  }
}

function segment(s: string): string {
  return encodeURIComponent(s);
}

export async function handlePodStream(
  ctx: RequestContext,
  env: HandlerEnv,
  served: ServedResource,
  subresource: string,
): Promise<void> {
  const info = ctx.info;
  if (!info) throw errors.pageNotFound();
  const namespace = info.namespace;
  const name = info.name;
  if (subresource === "log") {
    if (ctx.req.method !== "GET") throw errors.methodNotAllowed();
    return serveLog(ctx, env, served, namespace, name);
  }
  if (ctx.req.method !== "GET" && ctx.req.method !== "POST") throw errors.methodNotAllowed();
  return serveConnect(ctx, env, served, subresource, namespace, name);
}

// ---- log ---------------------------------------------------------------------------------

/** Go's http.Client follows these (upstream's log client then refuses: "redirects forbidden"). */
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * Upstream's GenericHttpResponseChecker: a kubelet answer outside 200-206 becomes a Status, 400
 * and 500 with the kubelet's text as the message, others as client-go words them.
 */
function kubeletAnswerError(code: number, body: string, podName: string): ApiError {
  if (code === 500) return errors.internal(body);
  if (code === 400) return errors.badRequest(body);
  let reason: StatusReason | "" = "";
  let message = `the server responded with the status code ${code} but did not return more information`;
  switch (code) {
    case 409:
      reason = "Conflict";
      message = "the server reported a conflict";
      break;
    case 404:
      reason = "NotFound";
      message = "the server could not find the requested resource";
      break;
    case 401:
      reason = "Unauthorized";
      message = "the server has asked for the client to provide credentials";
      break;
    case 403:
      reason = "Forbidden";
      message = body;
      break;
    case 406:
      reason = "NotAcceptable";
      message =
        body === "" || body === "unknown"
          ? "the server was unable to respond with a content type that the client supports"
          : body;
      break;
    case 415:
      reason = "UnsupportedMediaType";
      message = body;
      break;
    case 405:
      reason = "MethodNotAllowed";
      message = "the server does not allow this method on the requested resource";
      break;
    case 422:
      reason = "Invalid";
      message = "the server rejected our request due to an error in our request";
      break;
    case 503:
      reason = "ServiceUnavailable";
      message = "the server is currently unable to handle the request";
      break;
    case 504:
      reason = "Timeout";
      message =
        "the server was unable to return a response in the time allotted, but may still be processing the request";
      break;
    case 429:
      reason = "TooManyRequests";
      message = "the server has received too many requests and has asked us to try again later";
      break;
    default:
      if (code >= 500) {
        reason = "InternalError";
        message = `an error on the server (${JSON.stringify(body)}) has prevented the request from succeeding`;
      }
  }
  // Upstream names the resource after the message, with the (empty) verb before it.
  return new ApiError(code, reason, `${message} ( pods/log ${podName})`, {
    name: podName,
    group: "",
    kind: "pods/log",
  });
}

async function readLimited(body: AsyncIterable<Buffer>, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= limit) break;
  }
  return Buffer.concat(chunks).subarray(0, limit).toString();
}

async function serveLog(
  ctx: RequestContext,
  env: HandlerEnv,
  served: ServedResource,
  namespace: string,
  name: string,
): Promise<void> {
  const options: LogOptions = logOptions(ctx.url.searchParams, name);
  const pod = await readObject(served, namespace, name);
  const container = chooseContainer(pod, options.container);
  const nodeName = asString(objectOrEmpty(pod.spec).nodeName);
  if (nodeName === "") {
    // Upstream's log of a pod on no node is an empty answer.
    ctx.reply.code(204).send();
    ctx.done = true;
    return;
  }
  const kubelet = await kubeletOf(env, nodeName);
  if (!env.proxy) throw errors.pageNotFound();
  const query = kubeletLogQuery(options);
  const path = `/containerLogs/${segment(namespace)}/${segment(name)}/${segment(container)}${query ? `?${query}` : ""}`;
  const url = `${kubelet.protocol}//${kubelet.host}${path}`;
  const dispatcher = env.proxy.dispatchers.get(
    options.insecureSkipTLSVerifyBackend ? skippingVerification(env.proxy.kubelet) : env.proxy.kubelet,
  );
  const raw = ctx.reply.raw;
  const abort = new AbortController();
  raw.once("close", () => abort.abort());
  let answer: Awaited<ReturnType<typeof dispatcher.request>>;
  try {
    answer = await dispatcher.request({
      origin: `${kubelet.protocol}//${kubelet.host}`,
      path,
      method: "GET",
      signal: abort.signal,
      headersTimeout: 0,
      bodyTimeout: 0,
    });
  } catch (err) {
    if (abort.signal.aborted) return;
    throw new ApiError(500, "", `Get ${JSON.stringify(url)}: ${reachError(err, kubelet.host)}`);
  }
  const code = answer.statusCode;
  if (code < 200 || code > 206) {
    const location = answer.headers.location;
    if (REDIRECTS.has(code) && typeof location === "string") {
      answer.body.destroy();
      const target = new URL(location, url).toString();
      throw new ApiError(500, "", `Get ${JSON.stringify(target)}: redirects forbidden`);
    }
    const body = await readLimited(answer.body, MAX_ERROR_BODY);
    answer.body.destroy();
    throw kubeletAnswerError(code, body, name);
  }
  takeOverResponse(ctx);
  raw.writeHead(200, { "content-type": "text/plain" });
  raw.flushHeaders();
  try {
    await pipeline(answer.body, raw);
  } catch {
    // The caller left or the kubelet broke off: the status is sent, so the response just ends.
    answer.body.destroy();
    raw.destroy();
  }
}

// ---- exec, attach, portforward -----------------------------------------------------------

async function serveConnect(
  ctx: RequestContext,
  env: HandlerEnv,
  served: ServedResource,
  subresource: string,
  namespace: string,
  name: string,
): Promise<void> {
  const q = ctx.url.searchParams;
  if (q.has("dryRun")) throw errors.badRequest("dryRun is not supported");
  const kind = CONNECT_KINDS[subresource] as string;
  let kubeletQuery: string;
  let asked = "";
  let optionsObject: JsonObject;
  if (subresource === "portforward") {
    const ports = portForwardPorts(q);
    kubeletQuery = kubeletPortForwardQuery(ports);
    optionsObject = connectOptionsObject(kind, { ports });
  } else {
    const o = streamOptions(q, subresource === "exec");
    asked = o.container;
    kubeletQuery = kubeletStreamQuery(o);
    optionsObject = connectOptionsObject(kind, {
      stdin: o.stdin,
      stdout: o.stdout,
      stderr: o.stderr,
      tty: o.tty,
      container: o.container,
      ...(subresource === "exec" ? { command: o.command } : {}),
    });
  }
  const admission = admissionFor(ctx, env, {
    served,
    subresource,
    namespace,
    name,
    dryRun: false,
    operation: "CONNECT",
    kind: { group: "", version: "v1", kind },
  });
  if (admission) {
    await admission.admit(optionsObject, undefined);
    await admission.validate(optionsObject, undefined);
  }

  const pod = await readObject(served, namespace, name);
  // Port-forwarding reaches the pod, not a container.
  const container = subresource === "portforward" ? "" : chooseContainer(pod, asked);
  const nodeName = asString(objectOrEmpty(pod.spec).nodeName);
  if (nodeName === "") throw errors.badRequest(`pod ${name} does not have a host assigned`);
  const kubelet = await kubeletOf(env, nodeName);
  const base =
    subresource === "portforward"
      ? `/portForward/${segment(namespace)}/${segment(name)}`
      : `/${subresource}/${segment(namespace)}/${segment(name)}/${segment(container)}`;
  const path = `${base}${kubeletQuery ? `?${kubeletQuery}` : ""}`;
  if (!isUpgrade(ctx.req.raw)) throw errors.badRequest("Upgrade request required");

  const headers = outgoingHeaders(ctx.req.headers, ctx.socket.remoteAddress, posix.join("/", path));
  // The Host is the kubelet's; the forwarded path is the proxy verb's header, not upstream's here.
  delete headers.host;
  delete headers["x-forwarded-uri"];
  if (!env.proxy) throw errors.pageNotFound();
  const kubeletTls = env.proxy.kubelet;
  let opened: Awaited<ReturnType<typeof openUpgrade>>;
  try {
    opened = await openUpgrade(
      { url: `https://${kubelet.host}`, ...kubeletTls, insecure: kubeletTls.insecure === true },
      { method: ctx.req.method, path, headers, protocol: String(ctx.req.headers.upgrade) },
    );
  } catch (err) {
    throw new ApiError(500, "", `error dialing backend: ${reachError(err, kubelet.host)}`);
  }
  const raw = takeOverResponse(ctx);
  const socket = raw.socket as Socket;
  raw.detachSocket(socket);
  opened.join(socket);
}
