// The names OpenAPI documents use: group-version paths (`api/v1`, `apis/<g>/<v>`), operation IDs
// and tags (`readCoreV1NamespacedConfigMap`, `core_v1`) and definition names.
//
// Definition names follow the reference server's reverse-domain scheme, with the product's domain
// taken from the naming preset's group suffix (`k8s.io` gives `io.k8s`, `cluster.io` gives
// `io.cluster`), so the `kubernetes` preset yields upstream's names exactly:
// - meta types:              `<R>.apimachinery.pkg.apis.meta.v1.ObjectMeta`
// - the core group:          `<R>.api.core.<v>.<Kind>`
// - one-word groups (`apps`): `<R>.api.<group>.<v>.<Kind>`
// - product groups:          `<R>.api.<first label of the prefix>.<v>.<Kind>`
//                            (`rbac.authorization.<suffix>` → `<R>.api.rbac.v1.Role`), with the
//                            two upstream exceptions (apiextensions, internal.apiserver)
// - any other group:         the group reversed, `<reversed group>.<v>.<Kind>`
//                            (`stable.example.com` → `com.example.stable.v1.CronTab`), as upstream
//                            names custom resources.
// Where two group versions of one document would get the same prefix, the later one (in sorted
// order) falls back to the reversed-group form; see `definitionPrefixes`.
import type { Naming } from "../../backends/naming/index.ts";
import type { GroupVersionKind } from "./model.ts";

/** `api/v1` or `apis/<group>/<version>`: the key of a group version in the v3 index. */
export function groupVersionPath(group: string, version: string): string {
  return group === "" ? `api/${version}` : `apis/${group}/${version}`;
}

/** `a.b.c` → `c.b.a`. */
export function reverseDomain(domain: string): string {
  return domain.split(".").reverse().join(".");
}

/** The reverse-domain root of the product's definitions: `io.k8s` or `io.cluster`. */
export function definitionRoot(naming: Naming): string {
  return reverseDomain(naming.groupSuffix);
}

/** Meta types (ObjectMeta, ListMeta, Status, ...) live in one package. */
export function metaDefinition(naming: Naming, name: string): string {
  return `${definitionRoot(naming)}.apimachinery.pkg.apis.meta.v1.${name}`;
}

// Product groups whose Go package is not `api/<first label>` upstream.
const packageExceptions: Readonly<Record<string, string>> = {
  apiextensions: "apiextensions-apiserver.pkg.apis.apiextensions",
  "internal.apiserver": "api.apiserverinternal",
};

/** The preferred definition prefix of a group version, without the kind: `io.k8s.api.core.v1`. */
export function preferredDefinitionPrefix(naming: Naming, group: string, version: string): string {
  const root = definitionRoot(naming);
  if (group === "") return `${root}.api.core.${version}`;
  if (!group.includes(".")) return `${root}.api.${group}.${version}`;
  const suffix = `.${naming.groupSuffix}`;
  if (group.endsWith(suffix)) {
    const prefix = group.slice(0, -suffix.length);
    const pkg = packageExceptions[prefix] ?? `api.${prefix.split(".")[0]}`;
    return `${root}.${pkg}.${version}`;
  }
  return `${reverseDomain(group)}.${version}`;
}

/** The fallback prefix, unique per group version: the group reversed (or `core`). */
function fallbackDefinitionPrefix(group: string, version: string): string {
  return `${group === "" ? "core" : reverseDomain(group)}.${version}`;
}

/**
 * Definition prefixes for a set of group versions (`group/version` keys, "" group for core),
 * unique across the set: the preferred prefix, or the reversed group when another group version
 * already took it.
 */
export function definitionPrefixes(
  naming: Naming,
  groupVersions: readonly { readonly group: string; readonly version: string }[],
): Map<string, string> {
  const sorted = [...groupVersions].sort((a, b) =>
    a.group === b.group ? compare(a.version, b.version) : compare(a.group, b.group),
  );
  const taken = new Set<string>();
  const result = new Map<string, string>();
  for (const gv of sorted) {
    const key = `${gv.group}/${gv.version}`;
    if (result.has(key)) continue;
    let prefix = preferredDefinitionPrefix(naming, gv.group, gv.version);
    if (taken.has(prefix)) prefix = fallbackDefinitionPrefix(gv.group, gv.version);
    taken.add(prefix);
    result.set(key, prefix);
  }
  return result;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * Upstream's operation-ID sanitizer: keeps letters, `_`, and digits after the first position;
 * anything else is dropped and capitalizes the next kept character.
 */
export function toValidOperationId(s: string, capitalizeFirst: boolean): string {
  let out = "";
  let capitalize = capitalizeFirst;
  let i = 0;
  for (const ch of s) {
    if (/\p{L}/u.test(ch) || ch === "_" || (i !== 0 && /\p{Nd}/u.test(ch))) {
      out += capitalize ? ch.toUpperCase() : ch;
      capitalize = false;
    } else {
      capitalize = true;
    }
    i += ch.length;
  }
  return out;
}

/** The group as operation IDs spell it: `core` for "", the product suffix trimmed. */
function operationGroup(naming: Naming, group: string): string {
  if (group === "") return "core";
  const suffix = `.${naming.groupSuffix}`;
  return group.endsWith(suffix) ? group.slice(0, -suffix.length) : group;
}

/** `read` + `CoreV1` + `NamespacedConfigMap` → `readCoreV1NamespacedConfigMap`. */
export function operationId(
  naming: Naming,
  gvk: Pick<GroupVersionKind, "group" | "version">,
  verbPrefix: string,
  rest: string,
): string {
  const group = toValidOperationId(operationGroup(naming, gvk.group), true);
  const version = toValidOperationId(gvk.version, true);
  return `${verbPrefix}${group}${version}${toValidOperationId(rest, true)}`;
}

/** The operation tag of a group version: `core_v1`, `rbacAuthorization_v1`. */
export function operationTag(naming: Naming, group: string, version: string): string {
  return `${toValidOperationId(operationGroup(naming, group), false)}_${toValidOperationId(version, false)}`;
}
