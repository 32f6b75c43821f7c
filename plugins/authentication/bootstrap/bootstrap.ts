// Bootstrap tokens (`--enable-bootstrap-token-auth`): `<id>.<secret>` bearer tokens backed by
// Secrets in the system namespace, used by joining nodes. Strings of any other shape, and ids
// without a Secret, are not ours; a Secret that does not vouch for the token rejects it.
import { createHash, timingSafeEqual } from "node:crypto";
import type { Naming } from "../../../backends/naming/index.ts";
import type { ObjectAccess } from "../../objects/index.ts";
import type { AuthenticationResult, TokenAuthenticator } from "../authenticator.ts";
import { bootstrapSecretName, bootstrapSecretValue, bootstrapTokenExpiration } from "./secret.ts";

const TOKEN = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
const EXTRA_GROUP = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;
const DEFAULT_GROUP = "system:bootstrappers";
const SECRETS = { group: "", resource: "secrets" };

export interface BootstrapAuthenticatorOptions {
  readonly naming: Naming;
  readonly access: ObjectAccess;
  /** Milliseconds since the epoch; tests move the clock. */
  readonly now?: () => number;
}

function rejected(reason: string): AuthenticationResult {
  return { kind: "rejected", reason };
}

/** Constant-time equality of two strings of any lengths (their digests are compared). */
function sameSecret(a: string, b: string): boolean {
  const da = createHash("sha256").update(a).digest();
  const db = createHash("sha256").update(b).digest();
  return timingSafeEqual(da, db);
}

export function bootstrapTokenAuthenticator(options: BootstrapAuthenticatorOptions): TokenAuthenticator {
  const { naming, access } = options;
  const now = options.now ?? Date.now;
  const secretType = naming.label("token", "bootstrap");
  return {
    name: "bootstrap",
    async authenticateToken(token) {
      const match = TOKEN.exec(token);
      if (!match) return { kind: "none" };
      const id = match[1] as string;
      const tokenSecret = match[2] as string;
      const name = bootstrapSecretName(id);
      let secret: Awaited<ReturnType<ObjectAccess["get"]>>;
      try {
        secret = await access.get(SECRETS, naming.systemNamespace, name);
      } catch {
        return rejected("bootstrap token secret could not be read");
      }
      if (!secret) return { kind: "none" };
      // Reasons name the Secret, never the token.
      const where = `bootstrap token secret ${naming.systemNamespace}/${name}`;
      const meta = secret.metadata as { deletionTimestamp?: string };
      if (meta.deletionTimestamp) return rejected(`${where} is deleted and awaiting removal`);
      if (secret.type !== secretType || typeof secret.data !== "object" || secret.data === null) {
        return rejected(`${where} has invalid type, expected ${secretType}`);
      }
      if (!sameSecret(bootstrapSecretValue(secret, "token-secret"), tokenSecret)) {
        return rejected(`${where} does not match the token`);
      }
      if (bootstrapSecretValue(secret, "token-id") !== id) {
        return rejected(`${where} has invalid value for key token-id`);
      }
      if (bootstrapTokenExpiration(secret, now()).expired) return rejected(`${where} has expired`);
      if (bootstrapSecretValue(secret, "usage-bootstrap-authentication") !== "true") {
        return rejected(`${where} is not marked usage-bootstrap-authentication=true`);
      }
      const groups = new Set([DEFAULT_GROUP]);
      const extra = bootstrapSecretValue(secret, "auth-extra-groups");
      if (extra !== "") {
        for (const group of extra.split(",")) {
          if (!EXTRA_GROUP.test(group)) {
            return rejected(
              `${where} has invalid value for key auth-extra-groups: bootstrap group ${JSON.stringify(group)} is invalid (must start with system:bootstrappers:)`,
            );
          }
          groups.add(group);
        }
      }
      return {
        kind: "user",
        user: { username: `system:bootstrap:${id}`, uid: "", groups: [...groups].sort(), extra: {} },
      };
    },
  };
}
