// The authenticator contract: each looks at a request and answers with a user, "not mine"
// (no credential of its kind), or a rejection (a credential of its kind that is invalid).
import type { TLSSocket } from "node:tls";
import type { UserInfo } from "../../gateway/pipeline/index.ts";

export interface AuthenticationRequest {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly socket: TLSSocket;
}

export type AuthenticationResult =
  | { readonly kind: "user"; readonly user: UserInfo }
  | { readonly kind: "none" }
  | { readonly kind: "rejected"; readonly reason: string };

export interface Authenticator {
  readonly name: string;
  authenticate(req: AuthenticationRequest): AuthenticationResult | Promise<AuthenticationResult>;
}
