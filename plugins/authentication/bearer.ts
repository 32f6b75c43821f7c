// `Authorization: Bearer <token>`: the request-side face of the token authenticators (static
// file, bootstrap, service account, OIDC, webhook). The same union answers TokenReview.
import { clientNames } from "../../backends/naming/index.ts";
import type { AuthenticationResult, Authenticator, TokenAuthenticator } from "./authenticator.ts";
import { describeFailure } from "./union.ts";

/** What the bearer authenticator says when no token authenticator claims a token (upstream text). */
export const INVALID_BEARER_TOKEN = "invalid bearer token";

/** The first value of a header that may arrive as a list (`headersDistinct`) or a string. */
function firstHeader(value: unknown): string | undefined {
  const first: unknown = Array.isArray(value) ? value[0] : value;
  return typeof first === "string" ? first : undefined;
}

/**
 * Token authenticators tried in turn: the first user wins; rejections are remembered so that an
 * invalid token is reported as such when nobody claims it; "none" when nobody knew the token.
 * A throwing authenticator counts as a rejection, so one broken plugin cannot turn into a 500.
 */
export function tokenUnion(tokenAuthenticators: readonly TokenAuthenticator[]): TokenAuthenticator {
  return {
    name: "tokens",
    async authenticateToken(token, audiences) {
      const reasons: string[] = [];
      for (const a of tokenAuthenticators) {
        let result: AuthenticationResult;
        try {
          result = await a.authenticateToken(token, audiences);
        } catch (err) {
          reasons.push(`${a.name}: ${describeFailure(err)}`);
          continue;
        }
        if (result.kind === "user") return result;
        if (result.kind === "rejected") reasons.push(`${a.name}: ${result.reason}`);
      }
      if (reasons.length > 0) return { kind: "rejected", reason: reasons.join("; ") };
      return { kind: "none" };
    },
  };
}

/**
 * Makes a token authenticator that knows nothing of audiences (static tokens, OIDC, bootstrap)
 * answer like upstream's audience-agnostic wrapper: its tokens are good for the server's own
 * audiences only. Asked for other audiences, it does not claim the token; asked for some of the
 * server's, the user comes back with the audiences both lists share.
 */
export function audienceAgnostic(
  inner: TokenAuthenticator,
  implicitAudiences: readonly string[],
): TokenAuthenticator {
  return {
    name: inner.name,
    async authenticateToken(token, audiences) {
      if (audiences.length === 0) return inner.authenticateToken(token, audiences);
      const shared = implicitAudiences.filter((a) => audiences.includes(a));
      if (shared.length === 0) return { kind: "none" };
      const result = await inner.authenticateToken(token, audiences);
      if (result.kind !== "user") return result;
      return { ...result, audiences: shared };
    },
  };
}

/**
 * Reads the bearer token of a request and asks the token authenticators for the server's
 * audiences. No header, another scheme or an empty token: "none" (anonymous may apply), as
 * upstream; a token nobody claims: rejected.
 */
export function bearerAuthenticator(
  tokenAuthenticators: readonly TokenAuthenticator[],
  apiAudiences: readonly string[],
): Authenticator {
  const check = tokenChecker(tokenAuthenticators, apiAudiences);
  return {
    name: "bearer",
    async authenticate({ headers }) {
      const header = firstHeader(headers.authorization)?.trim();
      if (!header) return { kind: "none" };
      // Upstream splits on single spaces into at most three parts and takes the second.
      const parts = header.split(" ");
      if (parts.length < 2 || parts[0]?.toLowerCase() !== "bearer") return { kind: "none" };
      const token = parts[1] ?? "";
      if (token === "") return { kind: "none" };
      return check(token);
    },
  };
}

/** A token asked of the authenticators for the server's audiences: nobody's token is invalid. */
function tokenChecker(
  tokenAuthenticators: readonly TokenAuthenticator[],
  apiAudiences: readonly string[],
): (token: string) => Promise<AuthenticationResult> {
  const union = tokenUnion(tokenAuthenticators);
  return async (token) => {
    const result = await union.authenticateToken(token, apiAudiences);
    if (result.kind === "none") return { kind: "rejected", reason: INVALID_BEARER_TOKEN };
    if (result.kind === "rejected") return result;
    // A token meant for other audiences does not authenticate to this server.
    if (
      result.audiences !== undefined &&
      result.audiences.length > 0 &&
      apiAudiences.length > 0 &&
      !result.audiences.some((a) => apiAudiences.includes(a))
    ) {
      return { kind: "rejected", reason: "token audiences do not include this server" };
    }
    return result;
  };
}

/** Go's base64.RawURLEncoding alphabet, without padding; a length of 4n+1 cannot be decoded. */
const RAW_BASE64URL = /^[A-Za-z0-9_-]*$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The bearer token a browser puts in a WebSocket handshake's `Sec-WebSocket-Protocol` (it cannot
 * set Authorization), as upstream's protocol authenticator reads it: one
 * `base64url.bearer.authorization.k8s.io.<unpadded base64url token>` entry beside at least one
 * other subprotocol (the one echoed back). Not a WebSocket handshake, or no such entry: "none".
 */
export function webSocketProtocolAuthenticator(
  tokenAuthenticators: readonly TokenAuthenticator[],
  apiAudiences: readonly string[],
): Authenticator {
  const check = tokenChecker(tokenAuthenticators, apiAudiences);
  return {
    name: "websocket-protocol",
    async authenticate({ headers }) {
      const upgrade = firstHeader(headers.upgrade)?.toLowerCase();
      const connection = firstHeader(headers.connection)?.toLowerCase() ?? "";
      if (upgrade !== "websocket" || !/(^|.*,\s*)upgrade($|\s*,)/.test(connection)) return { kind: "none" };
      const header = headers["sec-websocket-protocol"];
      const lines = Array.isArray(header) ? header : header === undefined ? [] : [header];
      let token = "";
      let seen = false;
      let others = 0;
      for (const line of lines) {
        for (const entry of line.split(",")) {
          const protocol = entry.trim();
          if (!protocol.startsWith(clientNames.webSocketBearerProtocolPrefix)) {
            others++;
            continue;
          }
          if (seen)
            return { kind: "rejected", reason: "multiple base64.bearer.authorization tokens specified" };
          seen = true;
          const encoded = protocol.slice(clientNames.webSocketBearerProtocolPrefix.length);
          if (!RAW_BASE64URL.test(encoded) || encoded.length % 4 === 1)
            return { kind: "rejected", reason: "invalid base64.bearer.authorization token encoding" };
          try {
            token = utf8.decode(Buffer.from(encoded, "base64url"));
          } catch {
            return { kind: "rejected", reason: "invalid base64.bearer.authorization token" };
          }
        }
      }
      // The token's entry is never echoed back, so another must be there to answer with.
      if (token !== "" && others === 0) return { kind: "rejected", reason: "missing additional subprotocol" };
      if (token === "") return { kind: "none" };
      return check(token);
    },
  };
}
