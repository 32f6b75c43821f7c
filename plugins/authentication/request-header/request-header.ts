// The authenticating proxy (`--requestheader-*`): a front proxy that authenticated the user
// passes the identity in headers. The headers are believed only from a caller whose client
// certificate chains to the request-header CA bundle and, when allowed names are set, carries
// one of them as common name — and that is settled before any header is looked at. Other
// callers are not proxies: their headers are ignored ("none"; upstream reports an error, which
// changes nothing since the union then tries the client-certificate authenticator anyway).

import type { TLSSocket } from "node:tls";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";
import type { Authenticator } from "../authenticator.ts";
import { type ChainResult, commonName, parseCertificateBundle, verifyPeerChain } from "./verify-chain.ts";

export interface RequestHeaderOptions {
  /** Contents of `--requestheader-client-ca-file`. */
  readonly clientCaPem: string;
  /** `--requestheader-allowed-names`; empty allows any verified proxy certificate. */
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
  readonly now?: () => Date;
}

type Headers = Readonly<Record<string, unknown>>;

/**
 * The values of a header. Node joins repeated unknown headers into one "a, b" string in
 * `req.headers`; `req.headersDistinct` keeps them apart as a list, and lists are taken as is.
 * A joined string cannot be split safely (values may hold ", "), so it stays one value.
 */
function values(headers: Headers, name: string): string[] {
  const v = headers[name];
  if (typeof v === "string") return [v];
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string");
  return [];
}

function trimmedNames(names: readonly string[], what: string): string[] {
  return names.map((n) => {
    const t = n.trim();
    if (t === "") throw new Error(`requestheader: empty ${what} header name`);
    return t.toLowerCase();
  });
}

/** `%`-decoding of an extra key; a malformed escape leaves the key as it came (as upstream). */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

export function requestHeaderAuthenticator(options: RequestHeaderOptions): Authenticator {
  const roots = parseCertificateBundle(options.clientCaPem);
  const allowed = new Set(options.allowedNames);
  const usernameHeaders = trimmedNames(options.usernameHeaders, "username");
  if (usernameHeaders.length === 0) throw new Error("requestheader: at least one username header is needed");
  const groupHeaders = trimmedNames(options.groupHeaders, "group");
  const extraPrefixes = trimmedNames(options.extraHeaderPrefixes, "extra");
  const now = options.now ?? (() => new Date());
  const verdicts = new WeakMap<TLSSocket, ChainResult>();

  return {
    name: "requestheader",
    authenticate(req) {
      const { socket } = req;
      // 1. Who is calling: only a verified proxy certificate lets us read further. The verdict
      // is kept per connection: a certificate does not change within one.
      let chain = verdicts.get(socket);
      if (!chain) {
        chain = verifyPeerChain(socket, roots, now());
        verdicts.set(socket, chain);
      }
      if (!chain.ok) return { kind: "none" };
      if (allowed.size > 0) {
        const cn = commonName(chain.leaf);
        if (cn === undefined || !allowed.has(cn)) return { kind: "none" };
      }

      // 2. What the proxy says. Node lower-cases header names, so matching is case-insensitive.
      // Read only now: the per-line view is built on first use, and most callers are no proxy.
      const headers: Headers = req.headersDistinct ?? req.headers;
      let username: string | undefined;
      for (const h of usernameHeaders) {
        const first = values(headers, h)[0];
        if (first) {
          username = first;
          break;
        }
      }
      // A trusted proxy that names nobody: not an authentication by header (anonymous may apply).
      if (!username) return { kind: "none" };
      const groups: string[] = [];
      for (const h of groupHeaders) groups.push(...values(headers, h).filter((v) => v !== ""));
      // A Map, not an object literal: a key such as "__proto__" is just a key.
      const extra = new Map<string, string[]>();
      for (const prefix of extraPrefixes) {
        for (const name of Object.keys(headers)) {
          if (!name.toLowerCase().startsWith(prefix)) continue;
          const key = unescapeKey(name.slice(prefix.length).toLowerCase());
          if (key === "") continue;
          const list = extra.get(key) ?? [];
          list.push(...values(headers, name));
          extra.set(key, list);
        }
      }
      const user: UserInfo = { username, uid: "", groups, extra: Object.fromEntries(extra) };
      return { kind: "user", user };
    },
  };
}
