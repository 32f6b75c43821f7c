export { type BootstrapAuthenticatorOptions, bootstrapTokenAuthenticator } from "./bootstrap.ts";
export {
  BOOTSTRAP_SECRET_PREFIX,
  bootstrapSecretName,
  bootstrapSecretValue,
  bootstrapTokenExpiration,
  type Expiration,
  type SecretLike,
} from "./secret.ts";
