export * from "./authenticator.ts";
export {
  audienceAgnostic,
  bearerAuthenticator,
  INVALID_BEARER_TOKEN,
  tokenUnion,
  webSocketProtocolAuthenticator,
} from "./bearer.ts";
export * from "./bootstrap/index.ts";
export {
  ALLOWED_SIGNING_ALGS,
  type OidcAuthenticator,
  type OidcOptions,
  oidcAuthenticator,
} from "./oidc/oidc.ts";
export { type RequestHeaderOptions, requestHeaderAuthenticator } from "./request-header/request-header.ts";
export { parseCertificateBundle, verifyPeerChain } from "./request-header/verify-chain.ts";
export * from "./serviceaccount/index.ts";
export { cachedTokenAuthenticator, type TokenCacheOptions } from "./token-cache.ts";
export {
  type TokenFileAuthenticator,
  TokenFileError,
  type TokenFileOptions,
  tokenFileAuthenticator,
} from "./token-file/token-file.ts";
export * from "./union.ts";
export {
  type TokenWebhookAuthenticator,
  type TokenWebhookOptions,
  tokenWebhookAuthenticator,
} from "./webhook/webhook.ts";
export { x509Authenticator } from "./x509/x509.ts";
