// Client certificates: a certificate that chains to the client CA authenticates its subject's
// CN as the user and each O as a group. One that does not chain is an invalid credential.
//
// The listener also trusts the authenticating proxy's CA (clients only offer a certificate whose
// issuer the server lists), so OpenSSL's verdict alone is not enough: given the client CA, the
// chain is checked against it here, once per connection.
import type { PeerCertificate, TLSSocket } from "node:tls";
import type { AuthenticationResult, Authenticator } from "../authenticator.ts";
import { parseCertificateBundle, verifyPeerChain } from "../request-header/verify-chain.ts";

function identity(cert: PeerCertificate): AuthenticationResult {
  const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
  const cn = subject.CN;
  const username = Array.isArray(cn) ? cn[0] : cn;
  if (!username) return { kind: "rejected", reason: "client certificate has no common name" };
  const o = subject.O;
  const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
  return { kind: "user", user: { username, uid: "", groups, extra: {} } };
}

/** `clientCaPem`: verify against this bundle; absent, trust the listener's own verification. */
export function x509Authenticator(clientCaPem?: string): Authenticator {
  const roots = clientCaPem === undefined ? undefined : parseCertificateBundle(clientCaPem);
  // A connection's certificate cannot change, and reading it costs tens of microseconds: the
  // answer is kept per connection.
  const answers = new WeakMap<TLSSocket, AuthenticationResult>();
  const decide = (socket: TLSSocket): AuthenticationResult => {
    const cert = socket.getPeerCertificate?.();
    if (!cert || Object.keys(cert).length === 0) return { kind: "none" };
    if (!socket.authorized) {
      return {
        kind: "rejected",
        reason: `client certificate not accepted: ${String(socket.authorizationError)}`,
      };
    }
    if (roots) {
      const verdict = verifyPeerChain(socket, roots);
      if (!verdict.ok)
        return { kind: "rejected", reason: `client certificate not accepted: ${verdict.reason}` };
    }
    return identity(cert);
  };
  return {
    name: "x509",
    authenticate({ socket }) {
      let answer = answers.get(socket);
      if (!answer) {
        answer = decide(socket);
        answers.set(socket, answer);
      }
      return answer;
    },
  };
}
