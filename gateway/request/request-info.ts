// Classifies an incoming request the way kube-apiserver 1.27 does before authorization: is it
// a resource request, and if so which service verb, group, version, namespace, resource,
// subresource and name it addresses. Classification only: nothing is rejected here, and shapes
// that are not resource paths come back as non-resource requests whose verb is the lowercased
// HTTP method. Authorization (RBAC rules, resourceNames), audit and the long-running checks all
// read this record, so its quirks are kept exactly as upstream has them (see the notes below).
import { parseLabelSelector } from "../../backends/selection/index.ts";

export interface RequestInfo {
  readonly isResourceRequest: boolean;
  /** The decoded URL path (percent escapes undone), without the query. */
  readonly path: string;
  /**
   * Lowercase service verb: get, list, watch, create, update, patch, delete, deletecollection,
   * proxy; for non-resource requests the lowercased HTTP method (get, post, put, patch, delete,
   * head, options). A resource request made with a method that has no service verb (OPTIONS,
   * CONNECT, TRACE, or a method not spelled in upper case) gets the empty string, as upstream.
   */
  readonly verb: string;
  /**
   * "api" | "apis" for resource requests. Upstream already records "apis" for the
   * group-version discovery path `/apis/<g>/<v>` although that is not a resource request; every
   * other non-resource request has "".
   */
  readonly apiPrefix: string;
  /** "" for core. */
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** "" when none. For the namespaces resource itself, the namespace's own name. */
  readonly namespace: string;
  /**
   * Whether the path put the resource inside a namespace (`namespaces/<ns>/<resource>...`).
   * False for cluster-wide paths, including `namespaces/<name>[/status|/finalize]`, where
   * `namespace` is only the Namespace's own name. Routing needs this to tell
   * `namespaces/a/namespaces/a` from `namespaces/a`: both classify alike otherwise.
   */
  readonly inNamespace: boolean;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** Path segments from the resource on: resource, name, subresource, anything further. */
  readonly parts: readonly string[];
  /**
   * Set when upstream's parser fails: a `watch` or `proxy` segment with nothing after it
   * (`/api/v1/watch`). kube-apiserver answers such requests with a 500 whose message is
   * "failed to create RequestInfo: " followed by this text; the gateway sends that text in a 404.
   */
  readonly parseError?: string;
}

// Prefixes under which resources live, and those of them that carry no group segment.
const API_PREFIXES: ReadonlySet<string> = new Set(["api", "apis"]);
const GROUPLESS_API_PREFIXES: ReadonlySet<string> = new Set(["api"]);

// Path segments right after the version that name the verb themselves (legacy forms).
const SPECIAL_VERBS: ReadonlySet<string> = new Set(["proxy", "watch"]);
// Of those, the ones after which nothing is read as a subresource.
const VERBS_WITHOUT_SUBRESOURCES: ReadonlySet<string> = new Set(["proxy"]);

/**
 * Subresources of a Namespace object. After `namespaces/<name>/`, these mean the namespace
 * itself; anything else there is a namespaced resource type.
 */
export const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(["status", "finalize"]);

const NO_PARTS: readonly string[] = Object.freeze([]);

/**
 * Classify a request. `path` is the request path as sent (percent-encoded; a `?query` tail, if
 * present, is ignored) and `query` its parsed query string. `method` is the HTTP method as sent.
 */
export function parseRequestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const rawPath = stripQuery(path);
  const decoded = unescapePath(rawPath) ?? rawPath;
  const nonResource: RequestInfo = {
    isResourceRequest: false,
    path: decoded,
    verb: method.toLowerCase(),
    apiPrefix: "",
    apiGroup: "",
    apiVersion: "",
    namespace: "",
    inNamespace: false,
    resource: "",
    subresource: "",
    name: "",
    parts: NO_PARTS,
  };

  let segments = splitPath(decoded);
  const apiPrefix = segments[0] ?? "";
  if (segments.length < 3 || !API_PREFIXES.has(apiPrefix)) return nonResource;
  segments = segments.slice(1);

  let apiGroup = "";
  if (!GROUPLESS_API_PREFIXES.has(apiPrefix)) {
    // Upstream has consumed the prefix before it finds the group path too short, so the
    // prefix stays on the (non-resource) result.
    if (segments.length < 3) return { ...nonResource, apiPrefix };
    apiGroup = segments[0] ?? "";
    segments = segments.slice(1);
  }
  const apiVersion = segments[0] ?? "";
  segments = segments.slice(1);

  let verb: string;
  const first = segments[0] ?? "";
  if (SPECIAL_VERBS.has(first)) {
    if (segments.length < 2) {
      const shown = query.size > 0 ? `${rawPath}?${query.toString()}` : rawPath;
      return {
        ...nonResource,
        isResourceRequest: true,
        apiPrefix,
        apiGroup,
        apiVersion,
        parseError: `unable to determine kind and namespace from url, ${shown}`,
      };
    }
    verb = first;
    segments = segments.slice(1);
  } else {
    verb = verbForMethod(method);
  }

  let namespace = "";
  let inNamespace = false;
  if (segments[0] === "namespaces" && segments.length > 1) {
    namespace = segments[1] ?? "";
    const next = segments[2];
    if (next !== undefined && !NAMESPACE_SUBRESOURCES.has(next)) {
      segments = segments.slice(2);
      inNamespace = true;
    }
  }

  const parts = Object.freeze(segments);
  const resource = parts[0] ?? "";
  let name = parts.length >= 2 ? (parts[1] ?? "") : "";
  const subresource = parts.length >= 3 && !VERBS_WITHOUT_SUBRESOURCES.has(verb) ? (parts[2] ?? "") : "";

  // A GET without a name is a list, or a watch when the query asks for one. Only here (not for
  // `/watch/` paths, not for named requests) may a field selector pinning metadata.name supply
  // the name.
  if (name === "" && verb === "get") {
    const list = readListQuery(query);
    verb = list.watch ? "watch" : "list";
    if (list.pinnedName !== undefined && isValidPathSegmentName(list.pinnedName)) name = list.pinnedName;
  }
  if (name === "" && verb === "delete") verb = "deletecollection";

  return {
    isResourceRequest: true,
    path: decoded,
    verb,
    apiPrefix,
    apiGroup,
    apiVersion,
    namespace,
    inNamespace,
    resource,
    subresource,
    name,
    parts,
  };
}

/** The service verb an HTTP method stands for on a resource path (method names are case-sensitive). */
function verbForMethod(method: string): string {
  switch (method) {
    case "GET":
    case "HEAD":
      return "get";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return "delete";
    default:
      return "";
  }
}

function stripQuery(path: string): string {
  const q = path.indexOf("?");
  return q >= 0 ? path.slice(0, q) : path;
}

/** Leading and trailing slashes go; inner empty segments (from `//`) stay, as upstream. */
function splitPath(path: string): string[] {
  let start = 0;
  let end = path.length;
  while (start < end && path.charCodeAt(start) === 0x2f) start++;
  while (end > start && path.charCodeAt(end - 1) === 0x2f) end--;
  if (start === end) return [];
  return path.slice(start, end).split("/");
}

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8");

/**
 * Undo percent escapes over the whole path, before it is split: an escaped slash (`%2F`)
 * separates segments just like a literal one, as it does upstream. `+` stays `+`. Returns
 * undefined for a malformed escape (Go's server refuses such a request line with 400 before any
 * handler runs; here the raw path is classified instead).
 */
function unescapePath(raw: string): string | undefined {
  if (!raw.includes("%")) return raw;
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; ) {
    if (raw.charCodeAt(i) === 0x25) {
      const hex = raw.slice(i + 1, i + 3);
      if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return undefined;
      bytes.push(Number.parseInt(hex, 16));
      i += 3;
    } else {
      const cp = raw.codePointAt(i) ?? 0;
      const ch = String.fromCodePoint(cp);
      for (const b of utf8.encode(ch)) bytes.push(b);
      i += ch.length;
    }
  }
  return utf8Decoder.decode(Uint8Array.from(bytes));
}

interface ListQuery {
  readonly watch: boolean;
  /** The value a field selector requires metadata.name to equal, if it does. */
  readonly pinnedName: string | undefined;
}

/**
 * Read the list options upstream decodes from the query. When any of them fails to decode (a
 * malformed label or field selector, a non-integer limit or timeoutSeconds) the options are
 * dropped: the request is a list unless `watch` says otherwise, and no name is taken.
 */
function readListQuery(query: URLSearchParams): ListQuery {
  if (query.size === 0) return { watch: false, pinnedName: undefined };
  try {
    const labelSelector = query.get("labelSelector");
    if (labelSelector !== null) parseLabelSelector(labelSelector);
    for (const key of ["timeoutSeconds", "limit"]) {
      const value = query.get(key);
      if (value !== null && !isInt64(value)) throw new Error(`invalid ${key}`);
    }
    const fieldSelector = query.get("fieldSelector");
    const pinnedName =
      fieldSelector !== null ? fieldSelectorExactMatch(fieldSelector, "metadata.name") : undefined;
    const watch = query.get("watch");
    return { watch: watch !== null && !isFalseWord(watch), pinnedName };
  } catch {
    const watch = query.get("watch");
    const lowered = watch?.toLowerCase();
    return { watch: watch !== null && lowered !== "false" && lowered !== "0", pinnedName: undefined };
  }
}

/**
 * Upstream's query booleans: "0", or "false" compared with Unicode simple case folding (so
 * "FALSE", and "falſe" with U+017F LONG S, count too). Anything else is true.
 */
function isFalseWord(value: string): boolean {
  if (value === "0") return true;
  return value.replace(/\u017f/g, "s").toLowerCase() === "false";
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Decimal int64 with an optional sign, as strconv.ParseInt(s, 10, 64) accepts. */
function isInt64(value: string): boolean {
  if (!/^[+-]?[0-9]+$/.test(value)) return false;
  const n = BigInt(value.startsWith("+") ? value.slice(1) : value);
  return n >= INT64_MIN && n <= INT64_MAX;
}

/**
 * Parse a field selector as upstream does for list options (any field name is accepted at this
 * stage) and return the value the first `field=value` / `field==value` term on `field` requires,
 * terms taken in byte order as upstream sorts them. Throws on a malformed selector.
 */
function fieldSelectorExactMatch(selector: string, field: string): string | undefined {
  const terms = splitSelectorTerms(selector).sort(compareUtf8);
  let found: string | undefined;
  for (const term of terms) {
    if (term === "") continue;
    const split = splitSelectorTerm(term);
    if (split === undefined) throw new Error(`invalid selector: '${selector}'; can't understand '${term}'`);
    const value = unescapeSelectorValue(split.rhs);
    if (found === undefined && split.op !== "!=" && split.lhs === field) found = value;
  }
  return found;
}

/** Split on commas not preceded by a backslash escape; escapes are kept in the terms. */
function splitSelectorTerms(selector: string): string[] {
  if (selector === "") return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector[i];
    if (escaped) escaped = false;
    else if (c === "\\") escaped = true;
    else if (c === ",") {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

const TERM_OPERATORS = ["!=", "==", "="] as const;

/** The first operator occurrence splits the term; the left side has no escaping. */
function splitSelectorTerm(term: string): { lhs: string; op: string; rhs: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { lhs: term.slice(0, i), op, rhs: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/** `\\`, `\,` and `\=` are the only escapes; a bare `,` or `=` or a dangling `\` is an error. */
function unescapeSelectorValue(value: string): string {
  let out = "";
  let escaped = false;
  for (const c of value) {
    if (escaped) {
      if (c !== "\\" && c !== "," && c !== "=") throw new Error(`invalid escape sequence: \\${c}`);
      out += c;
      escaped = false;
    } else if (c === "\\") {
      escaped = true;
    } else if (c === "," || c === "=") {
      throw new Error(`unescaped character in value: ${c}`);
    } else {
      out += c;
    }
  }
  if (escaped) throw new Error("invalid escape sequence: \\");
  return out;
}

function compareUtf8(a: string, b: string): number {
  return Buffer.compare(utf8.encode(a), utf8.encode(b));
}

/** A name usable as one path segment: not "." or "..", and free of "/" and "%". */
function isValidPathSegmentName(name: string): boolean {
  return name !== "." && name !== ".." && !name.includes("/") && !name.includes("%");
}
