// The checks upstream applies to a webhook's address (a URL or an in-cluster Service), used here
// for a CRD's conversion webhook. URLs are split the way Go's net/url reads them.
import { type FieldError, field } from "../registry/field-error.ts";
import { isDNS1123Subdomain } from "../validation/names.ts";
import { isValidPortNum } from "./dns.ts";

export interface GoURL {
  readonly scheme: string;
  /** The userinfo before '@' in the authority, if any. */
  readonly user: string | undefined;
  readonly host: string;
  readonly rawQuery: string;
  readonly fragment: string;
}

function isLetter(c: string): boolean {
  return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z");
}

/** Go's getScheme: the scheme before the first ':' if everything before it can be one. */
function splitScheme(raw: string): [string, string] | undefined {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charAt(i);
    if (isLetter(c)) continue;
    if ((c >= "0" && c <= "9") || c === "+" || c === "-" || c === ".") {
      if (i === 0) return ["", raw];
      continue;
    }
    if (c === ":") return i === 0 ? undefined : [raw.slice(0, i), raw.slice(i + 1)];
    return ["", raw];
  }
  return ["", raw];
}

/** Splits a URL as Go's url.Parse does; a string is returned for what it rejects. */
export function parseGoURL(raw: string): GoURL | string {
  const fail = (reason: string): string => `parse ${JSON.stringify(raw)}: ${reason}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: Go rejects control characters in URLs
  if (/[\x00-\x1f\x7f]/.test(raw)) return fail("net/url: invalid control character in URL");
  let rest = raw;
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  const split = splitScheme(rest);
  if (!split) return fail("missing protocol scheme");
  const scheme = split[0].toLowerCase();
  rest = split[1];
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let user: string | undefined;
  let host = "";
  if (rest.startsWith("//") && (scheme !== "" || !rest.startsWith("///"))) {
    const slash = rest.indexOf("/", 2);
    const authority = slash >= 0 ? rest.slice(2, slash) : rest.slice(2);
    const at = authority.lastIndexOf("@");
    host = at >= 0 ? authority.slice(at + 1) : authority;
    if (at >= 0) user = authority.slice(0, at);
    const colon = host.lastIndexOf(":");
    if (colon >= 0 && !host.endsWith("]") && !/^\d*$/.test(host.slice(colon + 1)))
      return fail(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
  } else if (scheme === "" && (rest.split("/")[0] ?? "").includes(":")) {
    return fail("first path segment in URL cannot contain colon");
  }
  return { scheme, user, host, rawQuery, fragment };
}

const FORM = "; desired format: https://host[/path]";

/** Upstream's checks of a webhook URL (https only, a host, no user, fragment or query). */
export function validateWebhookURL(path: string, raw: string, forceHttps: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const u = parseGoURL(raw);
  if (typeof u === "string") {
    errs.push(field.required(path, `url must be a valid URL: ${u}${FORM}`));
    return errs;
  }
  if (forceHttps && u.scheme !== "https")
    errs.push(field.invalid(path, u.scheme, `'https' is the only allowed URL scheme${FORM}`));
  if (u.host === "") errs.push(field.invalid(path, u.host, `host must be specified${FORM}`));
  if (u.user !== undefined)
    errs.push(field.invalid(path, u.user, "user information is not permitted in the URL"));
  if (u.fragment !== "") errs.push(field.invalid(path, u.fragment, "fragments are not permitted in the URL"));
  if (u.rawQuery !== "")
    errs.push(field.invalid(path, u.rawQuery, "query parameters are not permitted in the URL"));
  return errs;
}

/** Upstream's checks of a webhook Service reference. */
export function validateWebhookService(
  path: string,
  namespace: string,
  name: string,
  urlPath: string | undefined,
  port: number,
): FieldError[] {
  const errs: FieldError[] = [];
  if (name === "") errs.push(field.required(`${path}.name`, "service name is required"));
  if (namespace === "") errs.push(field.required(`${path}.namespace`, "service namespace is required"));
  const portErrs = isValidPortNum(port);
  if (portErrs.length > 0)
    errs.push(field.invalid(`${path}.port`, port, `port is not valid: ${portErrs.join(", ")}`));
  if (urlPath === undefined || urlPath === "/" || urlPath === "") return errs;
  const at = `${path}.path`;
  if (urlPath === "//") {
    errs.push(field.invalid(at, urlPath, "segment[0] may not be empty"));
    return errs;
  }
  if (!urlPath.startsWith("/")) errs.push(field.invalid(at, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith("/")) check = check.slice(0, -1);
  check.split("/").forEach((step, i) => {
    if (step === "") {
      errs.push(field.invalid(at, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step))
      errs.push(field.invalid(at, urlPath, `segment[${i}]: ${failure}`));
  });
  return errs;
}
