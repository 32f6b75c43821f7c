// One HTTP client for every call-out to a Service (the aggregator's proxy, its availability
// probes, conversion webhooks, the proxy verb): undici agents kept per TLS identity, so calls to
// the same server with the same trust reuse their connections.
import { createSecureContext, type SecureContext } from "node:tls";
import { Agent, type Dispatcher } from "undici";

export interface TlsIdentity {
  /** The name the server's certificate must carry. */
  readonly serverName: string;
  /** PEM bundle to trust; the system roots when absent. */
  readonly caPem?: string;
  /** Skip verifying the server's certificate (an APIService's insecureSkipTLSVerify). */
  readonly insecure?: boolean;
  /** The certificate this side presents. */
  readonly client?: { readonly certPem: string; readonly keyPem: string };
}

/**
 * One context for every connection an agent opens: given PEMs instead, node parses them into a new
 * context per connection (each watch through the aggregator opens one). PEMs node cannot use are
 * passed as they are, so the failure comes with the call, where callers report it.
 */
function tlsMaterial(
  tls: TlsIdentity,
): { secureContext: SecureContext } | { ca?: string; cert?: string; key?: string } {
  const pems = {
    ...(tls.caPem ? { ca: tls.caPem } : {}),
    ...(tls.client ? { cert: tls.client.certPem, key: tls.client.keyPem } : {}),
  };
  try {
    return { secureContext: createSecureContext(pems) };
  } catch {
    return pems;
  }
}

/** Agents kept; the least recently used one is closed beyond this. */
const MAX_AGENTS = 256;

export class DispatcherPool {
  readonly #agents = new Map<string, Agent>();

  get(tls: TlsIdentity): Dispatcher {
    const key = JSON.stringify([
      tls.serverName,
      tls.caPem ?? "",
      tls.insecure === true,
      tls.client?.certPem ?? "",
    ]);
    const found = this.#agents.get(key);
    if (found) {
      // Most recently used last.
      this.#agents.delete(key);
      this.#agents.set(key, found);
      return found;
    }
    const agent = new Agent({
      connect: {
        servername: tls.serverName,
        rejectUnauthorized: tls.insecure !== true,
        ...tlsMaterial(tls),
      },
      // Watches and long lists stream for as long as the client keeps them.
      bodyTimeout: 0,
    });
    this.#agents.set(key, agent);
    if (this.#agents.size > MAX_AGENTS) {
      const [oldestKey, oldest] = this.#agents.entries().next().value as [string, Agent];
      this.#agents.delete(oldestKey);
      void oldest.close();
    }
    return agent;
  }

  async close(): Promise<void> {
    const agents = [...this.#agents.values()];
    this.#agents.clear();
    await Promise.allSettled(agents.map((a) => a.close()));
  }
}
