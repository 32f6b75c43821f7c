// Reading the impersonation headers into the list of things the caller asks to act as, in the
// order they are checked: the user (or service account), each group, each extra value, the UID.
import type { Naming } from "../../backends/naming/index.ts";
import { isDNS1123Label, isDNS1123Subdomain } from "../../backends/validation/names.ts";
import { errors } from "../request/api-error.ts";

export const IMPERSONATE_USER = "impersonate-user";
export const IMPERSONATE_GROUP = "impersonate-group";
export const IMPERSONATE_UID = "impersonate-uid";
export const IMPERSONATE_EXTRA_PREFIX = "impersonate-extra-";

const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

export type ImpersonationRequest =
  | { readonly kind: "User"; readonly name: string }
  | { readonly kind: "ServiceAccount"; readonly namespace: string; readonly name: string }
  | { readonly kind: "Group"; readonly name: string }
  | { readonly kind: "UserExtra"; readonly key: string; readonly value: string }
  | { readonly kind: "UID"; readonly uid: string };

/** Header values line by line (lowercase names), as the client sent them. */
export type DistinctHeaders = Readonly<Record<string, readonly string[] | undefined>>;

/** `system:serviceaccount:<ns>:<name>` with a valid namespace and name, else undefined. */
export function splitServiceAccountUsername(
  username: string,
): { namespace: string; name: string } | undefined {
  if (!username.startsWith(SERVICE_ACCOUNT_PREFIX)) return undefined;
  const parts = username.slice(SERVICE_ACCOUNT_PREFIX.length).split(":");
  if (parts.length !== 2) return undefined;
  const [namespace = "", name = ""] = parts;
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined;
  return { namespace, name };
}

/** The groups every token of a service account in `namespace` carries. */
export function serviceAccountGroups(namespace: string): string[] {
  return ["system:serviceaccounts", `system:serviceaccounts:${namespace}`];
}

/**
 * Percent escapes undone as Go's url.PathUnescape does; a malformed escape leaves the key as
 * sent (upstream records such keys literally rather than refusing them).
 */
function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes("%")) return encoded;
  const bytes: number[] = [];
  for (let i = 0; i < encoded.length; ) {
    if (encoded.charCodeAt(i) === 0x25) {
      const hex = encoded.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return encoded;
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
    } else {
      const ch = String.fromCodePoint(encoded.codePointAt(i) ?? 0);
      bytes.push(...new TextEncoder().encode(ch));
      i += ch.length;
    }
  }
  return new TextDecoder().decode(Uint8Array.from(bytes));
}

/** Go's `%v` of the object references upstream builds, for the 400 message. */
function describe(requests: readonly ImpersonationRequest[], authenticationGroupVersion: string): string {
  const ref = (kind: string, namespace: string, name: string, apiVersion: string, fieldPath: string) =>
    `{${[kind, namespace, name, "", apiVersion, "", fieldPath].join(" ")}}`;
  const shown = requests.map((r): string => {
    if (r.kind === "ServiceAccount") return ref(r.kind, r.namespace, r.name, "", "");
    if (r.kind === "UserExtra") return ref(r.kind, "", r.value, authenticationGroupVersion, r.key);
    if (r.kind === "UID") return ref(r.kind, "", r.uid, authenticationGroupVersion, "");
    return ref(r.kind, "", r.name, "", "");
  });
  return `[${shown.join(" ")}]`;
}

/** Whether any header asks for impersonation: a cheap look at Node's parsed header names. */
export function asksImpersonation(headers: Readonly<Record<string, unknown>>): boolean {
  for (const name in headers) if (name.startsWith("impersonate-")) return true;
  return false;
}

/**
 * The impersonation the headers ask for; empty when they ask for none. Groups, extras or a UID
 * without `Impersonate-User` are a 400.
 */
export function impersonationRequests(headers: DistinctHeaders, naming: Naming): ImpersonationRequest[] {
  const requests: ImpersonationRequest[] = [];
  const user = headers[IMPERSONATE_USER]?.[0] ?? "";
  if (user !== "") {
    const sa = splitServiceAccountUsername(user);
    requests.push(sa ? { kind: "ServiceAccount", ...sa } : { kind: "User", name: user });
  }
  const groups = headers[IMPERSONATE_GROUP] ?? [];
  for (const name of groups) requests.push({ kind: "Group", name });
  let extras = false;
  for (const [header, values] of Object.entries(headers)) {
    if (!header.startsWith(IMPERSONATE_EXTRA_PREFIX) || !values) continue;
    extras = true;
    const key = unescapeExtraKey(header.slice(IMPERSONATE_EXTRA_PREFIX.length).toLowerCase());
    for (const value of values) requests.push({ kind: "UserExtra", key, value });
  }
  const uid = headers[IMPERSONATE_UID]?.[0] ?? "";
  if (uid !== "") requests.push({ kind: "UID", uid });
  if (user === "" && (groups.length > 0 || extras || uid !== "")) {
    const gv = `${naming.group("authentication")}/v1`;
    throw errors.badRequest(`requested ${describe(requests, gv)} without impersonating a user`);
  }
  return requests;
}

/**
 * Header lines as sent, one entry per line: Node joins repeated headers with ", " in
 * `headers`, which would merge two `Impersonate-Group` lines into one group.
 */
export function distinctHeaders(raw: {
  readonly headersDistinct?: Record<string, string[] | undefined>;
  readonly rawHeaders?: readonly string[];
  readonly headers: Record<string, string | string[] | undefined>;
}): DistinctHeaders {
  if (raw.headersDistinct) return raw.headersDistinct;
  if (raw.rawHeaders) {
    const out: Record<string, string[]> = {};
    for (let i = 0; i + 1 < raw.rawHeaders.length; i += 2) {
      const name = (raw.rawHeaders[i] as string).toLowerCase();
      out[name] = [...(out[name] ?? []), raw.rawHeaders[i + 1] as string];
    }
    return out;
  }
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(raw.headers)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value : [value];
  }
  return out;
}
