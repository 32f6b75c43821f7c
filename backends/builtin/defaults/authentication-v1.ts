// authentication/v1 defaults as upstream 1.27 applies them: a requested service account token
// lives one hour unless the request says otherwise.
import { defaultPointer } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const TOKEN_LIFETIME_SECONDS = 3600;

/** The authentication/v1 defaulters by type id. */
export function authenticationV1Defaulters(): Record<string, TypeDefaulter> {
  return {
    "authentication/v1.TokenRequestSpec": (spec) =>
      defaultPointer(spec, "expirationSeconds", TOKEN_LIFETIME_SECONDS),
  };
}
