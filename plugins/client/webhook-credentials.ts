// Which credentials the server presents to a webhook it calls (SPEC.md, "Outbound calls"): a
// client-config file whose `users` are named after the webhooks they are for. A target is
// `<service>.<namespace>.svc:<port>` or a URL's `host[:port]`; the most specific name wins:
// the exact name, then `*.`-wildcards from the longest suffix down, then (for port 443) the same
// without the port, then `*`, then the user of the current context; else no credentials.
// A `tokenFile` stays a file name: ApiClient reads it per request (and re-reads it each minute).
import { type KubeconfigFile, readKubeconfigFile, type UserConfig } from "./kubeconfig.ts";

export class WebhookCredentials {
  readonly #file: KubeconfigFile | undefined;

  /** Credentials from a client-config file; without a file every webhook is called anonymously. */
  static load(path: string | undefined): WebhookCredentials {
    return new WebhookCredentials(path === undefined || path === "" ? undefined : readKubeconfigFile(path));
  }

  constructor(file: KubeconfigFile | undefined) {
    this.#file = file;
  }

  /** For a webhook reached through a Service (port defaults to 443). */
  forService(name: string, namespace: string, port = 443): UserConfig {
    return this.forTarget(`${name}.${namespace}.svc:${port}`);
  }

  /** For a webhook reached by URL: matched on the URL's host, with its port when it has one. */
  forUrl(url: string): UserConfig {
    return this.forTarget(hostPort(url));
  }

  /** For a `host[:port]` target. */
  forTarget(target: string): UserConfig {
    const users = this.#file?.users;
    if (!users) return {};
    const found = lookup(users, target) ?? lookupWithoutDefaultPort(users, target) ?? users.get("*");
    if (found) return found;
    const current = this.#file?.currentContext;
    const userName = current === undefined ? undefined : this.#file?.contexts.get(current)?.user;
    const user = userName ? users.get(userName) : undefined;
    return user ?? {};
  }
}

function lookup(users: ReadonlyMap<string, UserConfig>, target: string): UserConfig | undefined {
  const exact = users.get(target);
  if (exact) return exact;
  const labels = target.split(".");
  for (let i = 1; i < labels.length; i++) {
    const wildcard = users.get(`*.${labels.slice(i).join(".")}`);
    if (wildcard) return wildcard;
  }
  return undefined;
}

function lookupWithoutDefaultPort(
  users: ReadonlyMap<string, UserConfig>,
  target: string,
): UserConfig | undefined {
  const m = /^(.*):443$/.exec(target);
  return m?.[1] ? lookup(users, m[1]) : undefined;
}

/** The authority of a URL as written (WHATWG URLs drop an explicit `:443`; the match needs it). */
function hostPort(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`webhook URL ${JSON.stringify(url)} is not a URL`);
  }
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1] ?? parsed.host;
  const at = authority.lastIndexOf("@");
  return (at >= 0 ? authority.slice(at + 1) : authority).toLowerCase();
}
