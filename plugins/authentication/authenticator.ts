// The authenticator contract: each looks at a request and answers with a user, "not mine"
// (no credential of its kind), or a rejection (a credential of its kind that is invalid).
import type { TLSSocket } from "node:tls";
import type { UserInfo } from "../../gateway/pipeline/index.ts";

export interface AuthenticationRequest {
  /** Node's view: repeated headers joined into one "a, b" value (set-cookie aside). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** Every header as the list of its lines, when the server provides it. */
  readonly headersDistinct?: Readonly<Record<string, string[] | undefined>>;
  readonly socket: TLSSocket;
}

export type AuthenticationResult =
  | {
      readonly kind: "user";
      readonly user: UserInfo;
      /**
       * The audiences the credential is valid for, when the authenticator checks audiences
       * (TokenReview's `status.audiences`); absent: valid for this server.
       */
      readonly audiences?: readonly string[];
    }
  | { readonly kind: "none" }
  | { readonly kind: "rejected"; readonly reason: string };

export interface Authenticator {
  readonly name: string;
  authenticate(req: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult>;
}

/**
 * An authenticator of bearer tokens (static file, bootstrap, service account, OIDC, webhook).
 * The same objects serve `Authorization: Bearer` and TokenReview. `audiences` are the ones the
 * token must be good for (the server's `--api-audiences`, or a TokenReview's `spec.audiences`);
 * an empty list means "this server, whatever its audiences".
 */
export interface TokenAuthenticator {
  readonly name: string;
  authenticateToken(
    token: string,
    audiences: readonly string[],
  ): AuthenticationResult | Promise<AuthenticationResult>;
}
