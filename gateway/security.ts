// Builds the authenticators and authorizers the options ask for (DESIGN.md: policy lives in
// plugins, chosen by configuration). main.ts wires the result into the pipeline, the reviews
// and the TokenRequest subresource.
import { readFile } from "node:fs/promises";
import type { Naming } from "../backends/naming/index.ts";
import type { ServerOptions } from "../config/options.ts";
import {
  type Authenticator,
  audienceAgnostic,
  bearerAuthenticator,
  bootstrapTokenAuthenticator,
  cachedTokenAuthenticator,
  defaultServiceAccountIssuer,
  oidcAuthenticator,
  readVerificationKeys,
  requestHeaderAuthenticator,
  ServiceAccountTokenSigner,
  serviceAccountTokenAuthenticator,
  type TokenAuthenticator,
  tokenFileAuthenticator,
  tokenUnion,
  tokenWebhookAuthenticator,
  webSocketProtocolAuthenticator,
  x509Authenticator,
} from "../plugins/authentication/index.ts";
import {
  type Authorizer,
  alwaysAllow,
  alwaysDeny,
  privilegedGroups,
  type UnionAuthorizer,
  unionAuthorizer,
  webhookAuthorizer,
} from "../plugins/authorization/index.ts";
import { nodeAuthorizer } from "../plugins/authorization/node/index.ts";
import {
  bootstrapPolicy,
  type RbacAuthorizer,
  rbacAuthorizer,
  ruleAllows,
  rulesOf,
} from "../plugins/authorization/rbac/index.ts";
import type { ObjectAccess } from "../plugins/objects/index.ts";

/** Upstream keeps token answers this long in front of its token authenticators. */
const TOKEN_CACHE_TTL_MS = 10_000;

export interface SecurityLog {
  info(fields: Record<string, unknown>, message: string): void;
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface Security {
  readonly authenticators: readonly Authenticator[];
  /** Every token authenticator behind one cache: bearer tokens and TokenReview. */
  readonly tokens: TokenAuthenticator;
  readonly apiAudiences: readonly string[];
  /** The first `--service-account-issuer`, under which tokens are issued. */
  readonly issuer: string;
  readonly signer: ServiceAccountTokenSigner;
  readonly authorizer: UnionAuthorizer;
  /** Present when RBAC is a mode: escalation checks need it. */
  readonly rbac: RbacAuthorizer | undefined;
  /** Resolves when every authorizer's caches are loaded. */
  readonly synced: Promise<void>;
  close(): Promise<void>;
}

export interface SecurityFiles {
  /** The client CA bundle (PEM). */
  readonly clientCaPem: string;
  /** The authenticating proxy's CA bundle (PEM). */
  readonly frontProxyCaPem: string;
  /** Default service-account signing key and verification key files. */
  readonly saKey: string;
  readonly saPub: string;
}

export async function buildSecurity(
  options: ServerOptions,
  paths: SecurityFiles,
  naming: Naming,
  access: ObjectAccess,
  log: SecurityLog,
): Promise<Security> {
  const closers: (() => unknown)[] = [];
  const issuers =
    options.serviceAccountIssuers.length > 0
      ? options.serviceAccountIssuers
      : [defaultServiceAccountIssuer(naming)];
  const issuer = issuers[0] as string;
  const apiAudiences = options.apiAudiences.length > 0 ? options.apiAudiences : [issuer];

  // Token authenticators in upstream's order: static file, service accounts, bootstrap, OIDC,
  // webhook. Those that know nothing of audiences answer for this server's only.
  const tokenAuthenticators: TokenAuthenticator[] = [];
  if (options.tokenAuthFile) {
    const file = await tokenFileAuthenticator({
      path: options.tokenAuthFile,
      reloadIntervalMs: 5_000,
      log: {
        info: (message) => log.info({ file: options.tokenAuthFile }, message),
        warn: (message) => log.warn({ file: options.tokenAuthFile }, message),
        error: (message) => log.warn({ file: options.tokenAuthFile }, message),
      },
    });
    closers.push(() => file.close());
    tokenAuthenticators.push(audienceAgnostic(file, apiAudiences));
  }
  const keyFiles = options.serviceAccountKeyFiles.length > 0 ? options.serviceAccountKeyFiles : [paths.saPub];
  tokenAuthenticators.push(
    serviceAccountTokenAuthenticator({
      naming,
      keys: await readVerificationKeys(keyFiles),
      issuers,
      apiAudiences,
      lookup: options.serviceAccountLookup,
      access,
    }),
  );
  if (options.enableBootstrapTokenAuth) {
    tokenAuthenticators.push(audienceAgnostic(bootstrapTokenAuthenticator({ naming, access }), apiAudiences));
  }
  if (options.oidcIssuerUrl && options.oidcClientId) {
    const oidc = oidcAuthenticator({
      issuerUrl: options.oidcIssuerUrl,
      clientId: options.oidcClientId,
      usernameClaim: options.oidcUsernameClaim,
      ...(options.oidcUsernamePrefix !== undefined ? { usernamePrefix: options.oidcUsernamePrefix } : {}),
      ...(options.oidcGroupsClaim !== undefined ? { groupsClaim: options.oidcGroupsClaim } : {}),
      ...(options.oidcGroupsPrefix !== undefined ? { groupsPrefix: options.oidcGroupsPrefix } : {}),
      requiredClaims: options.oidcRequiredClaims,
      ...(options.oidcCAFile ? { caPem: await readFile(options.oidcCAFile, "utf8") } : {}),
      signingAlgs: options.oidcSigningAlgs,
      log: {
        info: (message: string) => log.info({ issuer: options.oidcIssuerUrl }, message),
        error: (message: string) => log.warn({ issuer: options.oidcIssuerUrl }, message),
      },
    });
    closers.push(() => oidc.close());
    tokenAuthenticators.push(audienceAgnostic(oidc, apiAudiences));
  }
  if (options.authenticationTokenWebhookConfigFile) {
    const webhook = tokenWebhookAuthenticator({
      configFile: options.authenticationTokenWebhookConfigFile,
      naming,
      version: options.authenticationTokenWebhookVersion,
      cacheTtlMs: options.authenticationTokenWebhookCacheTtl,
      implicitAudiences: apiAudiences,
    });
    closers.push(() => webhook.close());
    tokenAuthenticators.push(webhook);
  }
  const tokens = cachedTokenAuthenticator(tokenUnion(tokenAuthenticators), {
    successTtlMs: TOKEN_CACHE_TTL_MS,
    failureTtlMs: TOKEN_CACHE_TTL_MS,
  });

  // Request authenticators: the authenticating proxy first (its certificate must verify against
  // its own CA before any header counts), then client certificates, then bearer tokens.
  const authenticators: Authenticator[] = [];
  if (options.requestheaderUsernameHeaders.length > 0) {
    authenticators.push(
      requestHeaderAuthenticator({
        clientCaPem: paths.frontProxyCaPem,
        allowedNames: options.requestheaderAllowedNames,
        usernameHeaders: options.requestheaderUsernameHeaders,
        groupHeaders: options.requestheaderGroupHeaders,
        extraHeaderPrefixes: options.requestheaderExtraHeadersPrefix,
      }),
    );
  }
  authenticators.push(
    x509Authenticator(paths.clientCaPem),
    bearerAuthenticator([tokens], apiAudiences),
    webSocketProtocolAuthenticator([tokens], apiAudiences),
  );

  const signer = await ServiceAccountTokenSigner.fromFile(
    options.serviceAccountSigningKeyFile ?? paths.saKey,
  );

  // Authorizers: system:masters may do anything (as upstream, ahead of the modes), then the modes
  // in the order given.
  let rbac: RbacAuthorizer | undefined;
  const synced: Promise<unknown>[] = [];
  const modes: Authorizer[] = [];
  for (const mode of options.authorizationModes) {
    switch (mode) {
      case "AlwaysAllow":
        modes.push(alwaysAllow());
        break;
      case "AlwaysDeny":
        modes.push(alwaysDeny());
        break;
      case "RBAC": {
        const r = rbacAuthorizer(access, naming);
        rbac = r;
        closers.push(() => r.close());
        synced.push(r.synced);
        modes.push(r);
        break;
      }
      case "Node": {
        const nodeRules = bootstrapPolicy(naming)
          .clusterRoles.filter(
            (role) => (role.metadata as { name?: string } | undefined)?.name === "system:node",
          )
          .flatMap((role) => rulesOf(role));
        const node = nodeAuthorizer({
          naming,
          objects: access,
          staticRules: (a) => nodeRules.some((rule) => ruleAllows(a, rule)),
        });
        closers.push(() => node.stop());
        synced.push(node.synced);
        modes.push(node);
        break;
      }
      case "Webhook": {
        const webhook = webhookAuthorizer({
          configFile: options.authorizationWebhookConfigFile as string,
          naming,
          version: options.authorizationWebhookVersion,
          authorizedTtlMs: options.authorizationWebhookCacheAuthorizedTtl,
          unauthorizedTtlMs: options.authorizationWebhookCacheUnauthorizedTtl,
        });
        closers.push(() => webhook.close());
        modes.push(webhook);
        break;
      }
    }
  }
  const authorizer = unionAuthorizer([privilegedGroups(), ...modes], {
    onError: (err, name) => log.warn({ err, authorizer: name }, "authorizer failed"),
  });

  return {
    authenticators,
    tokens,
    apiAudiences,
    issuer,
    signer,
    authorizer,
    rbac,
    synced: Promise.all(synced).then(() => {}),
    async close() {
      for (const close of closers) await close();
    },
  };
}
