// Mutating and validating webhook configurations: hook names, rules, side effects, timeouts,
// where to call (a URL or a service) and the AdmissionReview versions a hook understands.

import { compileAdmission } from "../../../plugins/admission/cel/index.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isDNS1123Subdomain, isQualifiedName } from "../../validation/names.ts";
import { isValidPortNum } from "./pod-spec.ts";
import { validateLabelSelector } from "./selectors.ts";
import { arr, isDNS1035Label, type Json, num, obj, objOrEmpty, str, tooMany } from "./util.ts";

/** Upstream's bound on a webhook's matchConditions. */
const MAX_MATCH_CONDITIONS = 64;

/** Names are unique qualified names; expressions compile in the admission CEL environment to bool. */
function validateMatchConditions(errs: FieldError[], raw: unknown, path: string): void {
  const conditions = arr(raw);
  if (conditions.length > MAX_MATCH_CONDITIONS)
    errs.push(tooMany(path, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c, i) => {
    const condition = objOrEmpty(c);
    const at = `${path}[${i}]`;
    const name = str(condition.name);
    if (name === "") errs.push(field.required(`${at}.name`, ""));
    else {
      for (const msg of isQualifiedName(name)) errs.push(field.invalid(`${at}.name`, name, msg));
      if (names.has(name)) errs.push(field.duplicate(`${at}.name`, name));
      names.add(name);
    }
    const expression = str(condition.expression);
    if (expression.trim() === "") errs.push(field.required(`${at}.expression`, ""));
    else {
      const compiled = compileAdmission(expression, "bool");
      if (!compiled.ok) {
        const message = compiled.error.message;
        const detail = message.startsWith("compilation failed") ? message : `compilation failed: ${message}`;
        errs.push(field.invalid(`${at}.expression`, expression, detail));
      }
    }
  });
}

const REVIEW_VERSIONS = ["v1", "v1beta1"];
const NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const ALL_SIDE_EFFECTS = ["None", "NoneOnDryRun", "Some", "Unknown"];
const URL_FORM = "; desired format: https://host[/path]";

/** A name with at least three dot-separated DNS labels, as hook names must be. */
function validateFullyQualifiedName(errs: FieldError[], name: string, path: string): void {
  if (name === "") {
    errs.push(field.required(path));
    return;
  }
  const msgs = isDNS1123Subdomain(name);
  if (msgs.length > 0) {
    errs.push(field.invalid(path, name, msgs.join(",")));
    return;
  }
  if (name.split(".").length < 3)
    errs.push(field.invalid(path, name, "should be a domain with at least three segments separated by dots"));
}

function hasWildcard(list: readonly unknown[]): boolean {
  return list.includes("*");
}

function validateResources(errs: FieldError[], resources: readonly unknown[], path: string): void {
  if (resources.length === 0) errs.push(field.required(path));
  const withWildcardSub = new Set<string>();
  const subWithWildcardRes = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSub = false;
  for (let i = 0; i < resources.length; i++) {
    const r = str(resources[i]);
    if (r === "") {
      errs.push(field.required(`${path}[${i}]`));
      continue;
    }
    if (r === "*/*") doubleWildcard = true;
    if (r === "*") singleWildcard = true;
    const slash = r.indexOf("/");
    if (slash < 0) {
      withoutSub = r !== "*";
      continue;
    }
    const res = r.slice(0, slash);
    const sub = r.slice(slash + 1);
    if (withWildcardSub.has(res))
      errs.push(field.invalid(`${path}[${i}]`, r, `if '${res}/*' is present, must not specify ${r}`));
    if (subWithWildcardRes.has(sub))
      errs.push(field.invalid(`${path}[${i}]`, r, `if '*/${sub}' is present, must not specify ${r}`));
    if (sub === "*") withWildcardSub.add(res);
    if (res === "*") subWithWildcardRes.add(sub);
  }
  if (resources.length > 1 && doubleWildcard)
    errs.push(field.invalid(path, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSub)
    errs.push(
      field.invalid(
        path,
        resources,
        "if '*' is present, must not specify other resources without subresources",
      ),
    );
}

function validateRule(errs: FieldError[], rule: Json, path: string): void {
  const operations = arr(rule.operations);
  if (operations.length === 0) errs.push(field.required(`${path}.operations`));
  if (operations.length > 1 && hasWildcard(operations))
    errs.push(
      field.invalid(`${path}.operations`, operations, "if '*' is present, must not specify other operations"),
    );
  const groups = arr(rule.apiGroups);
  if (groups.length === 0) errs.push(field.required(`${path}.apiGroups`));
  if (groups.length > 1 && hasWildcard(groups))
    errs.push(
      field.invalid(`${path}.apiGroups`, groups, "if '*' is present, must not specify other API groups"),
    );
  const versions = arr(rule.apiVersions);
  if (versions.length === 0) errs.push(field.required(`${path}.apiVersions`));
  if (versions.length > 1 && hasWildcard(versions))
    errs.push(
      field.invalid(
        `${path}.apiVersions`,
        versions,
        "if '*' is present, must not specify other API versions",
      ),
    );
  for (let i = 0; i < versions.length; i++)
    if (str(versions[i]) === "") errs.push(field.required(`${path}.apiVersions[${i}]`));
  validateResources(errs, arr(rule.resources), `${path}.resources`);
}

interface ParsedURL {
  scheme: string;
  host: string;
  user?: string;
  query: string;
  fragment: string;
}

/** Enough of Go's url.Parse to answer the webhook URL checks, with its error texts. */
function parseURL(raw: string): ParsedURL | string {
  const quoted = JSON.stringify(raw);
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return `parse ${quoted}: net/url: invalid control character in URL`;
  }
  let rest = raw;
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let scheme = "";
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1]!.toLowerCase();
    rest = rest.slice(schemeMatch[0].length);
  } else if (rest.startsWith(":")) {
    return `parse ${quoted}: missing protocol scheme`;
  }
  let query = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = "";
  let user: string | undefined;
  if ((scheme !== "" || rest.startsWith("///") === false) && rest.startsWith("//")) {
    const authorityEnd = rest.indexOf("/", 2);
    let authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, authorityEnd);
    const at = authority.lastIndexOf("@");
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    const colon = authority.startsWith("[")
      ? authority.indexOf(":", authority.indexOf("]"))
      : authority.lastIndexOf(":");
    if (colon >= 0 && !/^[0-9]*$/.test(authority.slice(colon + 1)))
      return `parse ${quoted}: invalid port ${JSON.stringify(authority.slice(colon))} after host`;
    host = authority;
  }
  return user === undefined ? { scheme, host, query, fragment } : { scheme, host, user, query, fragment };
}

/** `name.namespace.svc` and `...svc.<cluster domain>`: names only the cluster's DNS answers. */
function isServiceHost(host: string): boolean {
  const name = host.startsWith("[")
    ? ""
    : host
        .replace(/:[0-9]*$/, "")
        .toLowerCase()
        .replace(/\.$/, "");
  return name.endsWith(".svc") || name.includes(".svc.");
}

function validateWebhookURL(errs: FieldError[], raw: string, path: string, rejectServiceHost: boolean): void {
  const u = parseURL(raw);
  if (typeof u === "string") {
    errs.push(field.required(path, `url must be a valid URL: ${u}${URL_FORM}`));
    return;
  }
  if (u.scheme !== "https")
    errs.push(field.invalid(path, u.scheme, `'https' is the only allowed URL scheme${URL_FORM}`));
  if (u.host === "") errs.push(field.invalid(path, u.host, `host must be provided${URL_FORM}`));
  // The spec forbids naming an in-cluster service by URL (upstream only advises against it).
  else if (rejectServiceHost && isServiceHost(u.host))
    errs.push(
      field.invalid(
        path,
        u.host,
        "host must not refer to a service in the cluster; use clientConfig.service instead",
      ),
    );
  if (u.user !== undefined)
    errs.push(field.invalid(path, u.user, "user information is not permitted in the URL"));
  if (u.fragment !== "") errs.push(field.invalid(path, u.fragment, "fragments are not permitted in the URL"));
  if (u.query !== "")
    errs.push(field.invalid(path, u.query, "query parameters are not permitted in the URL"));
}

function validateWebhookService(errs: FieldError[], service: Json, path: string): void {
  // Upstream hands the service's name and namespace over in swapped order, so an empty
  // namespace reads as a missing name and the other way round; kept for identical answers.
  // Absent ones are the schema's `Required value` (at their own paths).
  if (service.namespace === "") errs.push(field.required(`${path}.name`, "service name is required"));
  if (service.name === "") errs.push(field.required(`${path}.namespace`, "service namespace is required"));
  const port = num(service.port) ?? 443;
  if (!isValidPortNum(port))
    errs.push(
      field.invalid(`${path}.port`, port, "port is not valid: must be between 1 and 65535, inclusive"),
    );
  if (service.path == null) return;
  const urlPath = str(service.path);
  if (urlPath === "/" || urlPath === "") return;
  if (urlPath === "//") {
    errs.push(field.invalid(`${path}.path`, urlPath, "segment[0] may not be empty"));
    return;
  }
  if (!urlPath.startsWith("/")) errs.push(field.invalid(`${path}.path`, urlPath, "must start with a '/'"));
  let check = urlPath.slice(1);
  if (check.endsWith("/")) check = check.slice(0, -1);
  check.split("/").forEach((step, i) => {
    if (step === "") {
      errs.push(field.invalid(`${path}.path`, urlPath, `segment[${i}] may not be empty`));
      return;
    }
    for (const failure of isDNS1123Subdomain(step))
      errs.push(field.invalid(`${path}.path`, urlPath, `segment[${i}]: ${failure}`));
  });
}

function validateReviewVersions(
  errs: FieldError[],
  versions: readonly unknown[],
  present: boolean,
  requireKnown: boolean,
  path: string,
): void {
  if (versions.length < 1) {
    if (present) errs.push(field.required(path, `must specify one of ${REVIEW_VERSIONS.join(", ")}`));
    return;
  }
  const seen = new Set<string>();
  let known = false;
  for (let i = 0; i < versions.length; i++) {
    const v = str(versions[i]);
    if (seen.has(v)) {
      errs.push(field.invalid(`${path}[${i}]`, v, "duplicate version"));
      continue;
    }
    seen.add(v);
    for (const msg of isDNS1035Label(v)) errs.push(field.invalid(`${path}[${i}]`, v, msg));
    if (REVIEW_VERSIONS.includes(v)) known = true;
  }
  if (requireKnown && !known)
    errs.push(field.invalid(path, versions, `must include at least one of ${REVIEW_VERSIONS.join(", ")}`));
}

interface WebhookRules {
  readonly requireNoSideEffects: boolean;
  readonly requireKnownReviewVersion: boolean;
  readonly requireUniqueNames: boolean;
  readonly rejectServiceHosts: boolean;
}

const CREATE_RULES: WebhookRules = {
  requireNoSideEffects: true,
  requireKnownReviewVersion: true,
  requireUniqueNames: true,
  rejectServiceHosts: true,
};

function validateWebhook(errs: FieldError[], hook: Json, rules: WebhookRules, path: string): void {
  if (hook.name !== undefined) validateFullyQualifiedName(errs, str(hook.name), `${path}.name`);
  const hookRules = arr(hook.rules);
  for (let i = 0; i < hookRules.length; i++)
    validateRule(errs, objOrEmpty(hookRules[i]), `${path}.rules[${i}]`);
  // sideEffects is required and one of four (the schema's checks); on create only the two
  // side-effect-free values are accepted.
  const sideEffects = str(hook.sideEffects);
  if (
    rules.requireNoSideEffects &&
    ALL_SIDE_EFFECTS.includes(sideEffects) &&
    !NO_SIDE_EFFECTS.includes(sideEffects)
  )
    errs.push(field.notSupported(`${path}.sideEffects`, sideEffects, NO_SIDE_EFFECTS));
  const timeout = num(hook.timeoutSeconds);
  if (timeout !== undefined && (timeout > 30 || timeout < 1))
    errs.push(
      field.invalid(`${path}.timeoutSeconds`, timeout, "the timeout value must be between 1 and 30 seconds"),
    );
  if (hook.namespaceSelector != null)
    validateLabelSelector(errs, hook.namespaceSelector, `${path}.namespaceSelector`);
  if (hook.objectSelector != null) validateLabelSelector(errs, hook.objectSelector, `${path}.objectSelector`);
  if (hook.matchConditions != null)
    validateMatchConditions(errs, hook.matchConditions, `${path}.matchConditions`);
  if (hook.clientConfig === undefined) return;
  const config = objOrEmpty(hook.clientConfig);
  const hasURL = config.url != null;
  const service = obj(config.service);
  if (hasURL === (service !== undefined))
    errs.push(field.required(`${path}.clientConfig`, "exactly one of url or service is required"));
  else if (hasURL)
    validateWebhookURL(errs, str(config.url), `${path}.clientConfig.url`, rules.rejectServiceHosts);
  else if (service) validateWebhookService(errs, service, `${path}.clientConfig.service`);
}

function validateConfiguration(object: Json, rules: WebhookRules): FieldError[] {
  const errs: FieldError[] = [];
  const hooks = arr(object.webhooks);
  const names = new Set<string>();
  for (let i = 0; i < hooks.length; i++) {
    const hook = objOrEmpty(hooks[i]);
    const path = `webhooks[${i}]`;
    validateWebhook(errs, hook, rules, path);
    validateReviewVersions(
      errs,
      arr(hook.admissionReviewVersions),
      hook.admissionReviewVersions !== undefined,
      rules.requireKnownReviewVersion,
      `${path}.admissionReviewVersions`,
    );
    const name = str(hook.name);
    if (rules.requireUniqueNames && name !== "") {
      if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
      else names.add(name);
    }
  }
  return errs;
}

/** Both webhook configuration kinds on create. */
export function validateWebhookConfiguration(object: Json): FieldError[] {
  return validateConfiguration(object, CREATE_RULES);
}

/** On update, rules that the stored object already breaks are not enforced on it again. */
export function validateWebhookConfigurationUpdate(object: Json, old: Json): FieldError[] {
  const oldHooks = arr(old.webhooks).map(objOrEmpty);
  const names = oldHooks.map((h) => str(h.name));
  return validateConfiguration(object, {
    requireNoSideEffects: oldHooks.every((h) => NO_SIDE_EFFECTS.includes(str(h.sideEffects))),
    requireKnownReviewVersion: oldHooks.every((h) => {
      const versions = arr(h.admissionReviewVersions).map(str);
      return versions.length === 0 || versions.some((v) => REVIEW_VERSIONS.includes(v));
    }),
    requireUniqueNames: new Set(names).size === names.length,
    rejectServiceHosts: oldHooks.every((h) => {
      const url = obj(h.clientConfig)?.url;
      const parsed = typeof url === "string" ? parseURL(url) : undefined;
      return typeof parsed !== "object" || !isServiceHost(parsed.host);
    }),
  });
}
