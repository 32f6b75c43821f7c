// The claims of service-account tokens, in upstream's shapes so that tokens and the tools that
// read them carry over: bound tokens keep their binding under one private claim named by the
// label domain; legacy (Secret-based) tokens use flat `<domain>/serviceaccount/...` claims and a
// fixed issuer.

import { asString as str } from "../../../backends/common/json.ts";
import type { Naming } from "../../../backends/naming/index.ts";
import type { UserInfo } from "../../../gateway/pipeline/index.ts";

export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** What a token names: the account, and the object a bound token is tied to. */
export interface ServiceAccountClaims {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
}

const USER_PREFIX = "system:serviceaccount:";

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${USER_PREFIX}${namespace}:${name}`;
}

/** `[namespace, name]` of a service-account user name; undefined for any other name. */
export function splitServiceAccountUsername(username: string): [string, string] | undefined {
  if (!username.startsWith(USER_PREFIX)) return undefined;
  const parts = username.slice(USER_PREFIX.length).split(":");
  if (parts.length !== 2 || !parts[0] || !parts[1]) return undefined;
  return [parts[0], parts[1]];
}

/** The issuer of Secret-based tokens (upstream: `kubernetes/serviceaccount`). */
export function legacyIssuer(naming: Naming): string {
  return `${naming.productName}/serviceaccount`;
}

/** The issuer used when `--service-account-issuer` is not given (kubeadm's choice upstream). */
export function defaultServiceAccountIssuer(naming: Naming): string {
  return `https://${naming.productName}.default.svc.cluster.local`;
}

export interface BoundTokenInput extends ServiceAccountClaims {
  readonly issuer: string;
  readonly audiences: readonly string[];
  /** Seconds since the epoch. */
  readonly issuedAt: number;
  readonly expirationSeconds: number;
}

/** The payload of a bound (TokenRequest) token. */
export function boundTokenClaims(naming: Naming, input: BoundTokenInput): Record<string, unknown> {
  const binding: Record<string, unknown> = {
    namespace: input.namespace,
    serviceaccount: { name: input.serviceAccount.name, uid: input.serviceAccount.uid },
  };
  if (input.pod) binding.pod = { name: input.pod.name, uid: input.pod.uid };
  else if (input.secret) binding.secret = { name: input.secret.name, uid: input.secret.uid };
  return {
    aud: [...input.audiences],
    exp: input.issuedAt + input.expirationSeconds,
    iat: input.issuedAt,
    iss: input.issuer,
    [naming.labelDomain]: binding,
    nbf: input.issuedAt,
    sub: serviceAccountUsername(input.namespace, input.serviceAccount.name),
  };
}

function legacyClaimNames(naming: Naming) {
  const prefix = `${naming.labelDomain}/serviceaccount`;
  return {
    namespace: `${prefix}/namespace`,
    secretName: `${prefix}/secret.name`,
    serviceAccountName: `${prefix}/service-account.name`,
    serviceAccountUid: `${prefix}/service-account.uid`,
  };
}

/** The payload of a legacy token kept in a service-account token Secret; it never expires. */
export function legacyTokenClaims(
  naming: Naming,
  serviceAccount: { readonly namespace: string; readonly name: string; readonly uid: string },
  secretName: string,
): Record<string, unknown> {
  const names = legacyClaimNames(naming);
  return {
    iss: legacyIssuer(naming),
    [names.namespace]: serviceAccount.namespace,
    [names.secretName]: secretName,
    [names.serviceAccountName]: serviceAccount.name,
    [names.serviceAccountUid]: serviceAccount.uid,
    sub: serviceAccountUsername(serviceAccount.namespace, serviceAccount.name),
  };
}

function ref(value: unknown): ObjectRef | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  return { name: str(v.name), uid: str(v.uid) };
}

/** The binding of a verified bound token, or a reason it has none. */
export function readBoundClaims(
  naming: Naming,
  payload: Record<string, unknown>,
): ServiceAccountClaims | string {
  const binding = payload[naming.labelDomain];
  if (typeof binding !== "object" || binding === null) return "service account token has no binding claim";
  const b = binding as Record<string, unknown>;
  const namespace = str(b.namespace);
  const serviceAccount = ref(b.serviceaccount);
  if (!namespace || !serviceAccount?.name) return "service account token names no service account";
  const pod = ref(b.pod);
  const secret = ref(b.secret);
  return {
    namespace,
    serviceAccount,
    ...(pod ? { pod } : {}),
    ...(secret ? { secret } : {}),
  };
}

/** The claims of a verified legacy token, checked as upstream checks them, or the reason not. */
export function readLegacyClaims(
  naming: Naming,
  payload: Record<string, unknown>,
): (ServiceAccountClaims & { readonly secret: ObjectRef }) | string {
  const names = legacyClaimNames(naming);
  const subject = str(payload.sub);
  if (!subject) return "sub claim is missing";
  const namespace = str(payload[names.namespace]);
  if (!namespace) return "namespace claim is missing";
  const secretName = str(payload[names.secretName]);
  if (!secretName) return "secretName claim is missing";
  const name = str(payload[names.serviceAccountName]);
  if (!name) return "serviceAccountName claim is missing";
  const uid = str(payload[names.serviceAccountUid]);
  if (!uid) return "serviceAccountUID claim is missing";
  const split = splitServiceAccountUsername(subject);
  if (!split || split[0] !== namespace || split[1] !== name) return "sub claim is invalid";
  return { namespace, serviceAccount: { name, uid }, secret: { name: secretName, uid: "" } };
}

/** The user a service-account token authenticates as. */
export function serviceAccountUser(naming: Naming, claims: ServiceAccountClaims): UserInfo {
  const extra: Record<string, string[]> = {};
  if (claims.pod) {
    extra[naming.label("pod-name", "authentication")] = [claims.pod.name];
    extra[naming.label("pod-uid", "authentication")] = [claims.pod.uid];
  }
  return {
    username: serviceAccountUsername(claims.namespace, claims.serviceAccount.name),
    uid: claims.serviceAccount.uid,
    groups: ["system:serviceaccounts", `system:serviceaccounts:${claims.namespace}`],
    extra,
  };
}
