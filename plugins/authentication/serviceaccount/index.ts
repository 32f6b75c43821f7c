export {
  type ServiceAccountAuthenticatorOptions,
  serviceAccountTokenAuthenticator,
} from "./authenticator.ts";
export {
  boundTokenClaims,
  defaultServiceAccountIssuer,
  legacyIssuer,
  legacyTokenClaims,
  type ObjectRef,
  type ServiceAccountClaims,
  serviceAccountUsername,
  splitServiceAccountUsername,
} from "./claims.ts";
export {
  keyIdOf,
  parseVerificationKeys,
  readVerificationKeys,
  type SigningAlgorithm,
  type VerificationKey,
} from "./keys.ts";
export { ServiceAccountTokenSigner } from "./signer.ts";
export {
  createTokenRequest,
  DEFAULT_EXPIRATION_SECONDS,
  type TokenRequestResult,
  type TokenRequestSettings,
} from "./token-request.ts";
