// Client certificates: a certificate that chains to the client CA authenticates its subject's
// CN as the user and each O as a group. One that does not chain is an invalid credential.
import type { Authenticator } from "../authenticator.ts";

export function x509Authenticator(): Authenticator {
  return {
    name: "x509",
    authenticate({ socket }) {
      const cert = socket.getPeerCertificate?.();
      if (!cert || Object.keys(cert).length === 0) return { kind: "none" };
      if (!socket.authorized) {
        return {
          kind: "rejected",
          reason: `client certificate not accepted: ${String(socket.authorizationError)}`,
        };
      }
      const subject = cert.subject as unknown as Record<string, string | string[] | undefined>;
      const cn = subject.CN;
      const username = Array.isArray(cn) ? cn[0] : cn;
      if (!username) return { kind: "rejected", reason: "client certificate has no common name" };
      const o = subject.O;
      const groups = o === undefined ? [] : Array.isArray(o) ? o : [o];
      return { kind: "user", user: { username, uid: "", groups, extra: {} } };
    },
  };
}
