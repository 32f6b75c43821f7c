// Connection upgrades through to an extension server (exec, attach, port-forward, WebSockets):
// the request goes on over its own TLS connection, the extension's answer head comes back as it
// is, and after a 101 the two connections are joined byte for byte in both directions. An
// extension that declines answers with an ordinary response, passed back whole.
import type { Duplex } from "node:stream";
import { connect, type TLSSocket } from "node:tls";

/** A response head longer than this is refused (upstream's header limit). */
const MAX_HEAD_BYTES = 1024 * 1024;

export interface UpgradeTarget {
  readonly url: string;
  readonly serverName: string;
  readonly caPem?: string;
  readonly insecure: boolean;
  /** The client certificate presented, if any (a kubelet is reached without one). */
  readonly client?: { readonly certPem: string; readonly keyPem: string };
}

export interface UpgradeRequest {
  readonly method: string;
  readonly path: string;
  /** Headers to send, without hop-by-hop ones: `Connection` and `Upgrade` are added here. */
  readonly headers: Readonly<Record<string, string | string[]>>;
  /** The protocol the client asked for (its `Upgrade` header). */
  readonly protocol: string;
}

function headText(method: string, path: string, host: string, request: UpgradeRequest): string {
  let head = `${method} ${path} HTTP/1.1\r\nHost: ${host}\r\n`;
  for (const [name, value] of Object.entries(request.headers)) {
    for (const v of Array.isArray(value) ? value : [value]) head += `${name}: ${v}\r\n`;
  }
  return `${head}Connection: Upgrade\r\nUpgrade: ${request.protocol}\r\n\r\n`;
}

/** Reads the answer's head; resolves with it and whatever followed it in the same read. */
function readHead(upstream: TLSSocket): Promise<{ head: Buffer; rest: Buffer }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf("\r\n\r\n");
      if (end < 0) {
        if (buffered.length > MAX_HEAD_BYTES) finish(new Error("the answer's head is too large"));
        return;
      }
      finish(undefined, { head: buffered.subarray(0, end + 4), rest: buffered.subarray(end + 4) });
    };
    const onEnd = () => finish(new Error("the connection closed before an answer"));
    const finish = (err?: Error, value?: { head: Buffer; rest: Buffer }) => {
      upstream.off("data", onData);
      upstream.off("error", finish);
      upstream.off("end", onEnd);
      upstream.pause();
      if (err) reject(err);
      else resolve(value as { head: Buffer; rest: Buffer });
    };
    upstream.on("data", onData);
    upstream.once("error", finish);
    upstream.once("end", onEnd);
  });
}

/**
 * Opens the upgrade with the extension. Resolves once the extension has answered: `join` then
 * hands its answer to the client's connection (which the caller has taken over) and, after a 101,
 * ties the two together until either side closes. Rejects when the extension cannot be reached
 * or answers nothing: the client's connection is then still the caller's to answer.
 */
export async function openUpgrade(
  target: UpgradeTarget,
  request: UpgradeRequest,
): Promise<{ status: number; join(client: Duplex): void }> {
  const url = new URL(target.url);
  const upstream = connect({
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: Number(url.port || 443),
    servername: target.serverName,
    rejectUnauthorized: !target.insecure,
    ...(target.caPem ? { ca: target.caPem } : {}),
    ...(target.client ? { cert: target.client.certPem, key: target.client.keyPem } : {}),
  });
  try {
    await new Promise<void>((resolve, reject) => {
      upstream.once("secureConnect", resolve);
      upstream.once("error", reject);
    });
    upstream.write(headText(request.method, request.path, url.host, request));
    const { head, rest } = await readHead(upstream);
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head.toString("latin1"))?.[1] ?? 0);
    if (status === 0) throw new Error("the answer is not HTTP");
    return {
      status,
      join(client) {
        const close = () => {
          client.destroy();
          upstream.destroy();
        };
        client.on("error", close);
        upstream.on("error", close);
        client.write(head);
        if (rest.length > 0) client.write(rest);
        if (status === 101) {
          client.pipe(upstream);
          upstream.pipe(client);
          client.once("close", close);
          upstream.once("close", close);
        } else {
          // Declined: the rest of the answer, then the connection ends.
          upstream.pipe(client);
          upstream.once("end", () => client.end());
        }
        upstream.resume();
      },
    };
  } catch (err) {
    upstream.destroy();
    throw err;
  }
}
