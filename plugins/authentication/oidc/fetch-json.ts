// Reading the issuer's JSON documents (discovery, keys) over https: trusting the issuer's CA
// bundle when one is given (else the system roots), bounded in time and in size, so a slow or
// hostile issuer can neither hang authentication nor fill memory.
import { Agent, request } from "undici";

/** Upstream's HTTP client towards the issuer gives up after 30 s; requests wait here. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
const MAX_DOCUMENT_BYTES = 1 << 20;

export class IssuerFetchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "IssuerFetchError";
  }
}

export interface JsonFetcher {
  /** GETs `url` and parses a JSON object; throws IssuerFetchError. */
  get(url: string): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export function jsonFetcher(options: { readonly caPem?: string; readonly timeoutMs?: number }): JsonFetcher {
  const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const agent = new Agent({
    connect: { ...(options.caPem === undefined ? {} : { ca: options.caPem }), rejectUnauthorized: true },
    connectTimeout: timeoutMs,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    maxResponseSize: MAX_DOCUMENT_BYTES,
  });
  return {
    async get(url) {
      if (!url.startsWith("https://")) throw new IssuerFetchError(`${url}: only https URLs are fetched`);
      let text: string;
      try {
        const res = await request(url, {
          method: "GET",
          dispatcher: agent,
          headers: { accept: "application/json" },
          signal: AbortSignal.timeout(timeoutMs),
        });
        text = await res.body.text();
        if (res.statusCode !== 200) throw new IssuerFetchError(`${url}: HTTP ${res.statusCode}`);
      } catch (err) {
        if (err instanceof IssuerFetchError) throw err;
        const e = err as NodeJS.ErrnoException;
        throw new IssuerFetchError(`${url}: ${e.code ?? e.name}: ${e.message}`);
      }
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        throw new IssuerFetchError(`${url}: the answer is not JSON`);
      }
      if (typeof doc !== "object" || doc === null || Array.isArray(doc))
        throw new IssuerFetchError(`${url}: the answer is not a JSON object`);
      return doc as Record<string, unknown>;
    },
    close: () => agent.close(),
  };
}
