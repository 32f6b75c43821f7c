// `--runtime-config`: which group versions (or single resources) are served. Keys are
// `<group>/<version>` (`v1` or `api/v1` for the core group), `<group>/<version>/<resource>`,
// `api/all`, `api/ga`, `api/beta` and `api/alpha`; a key without a value means `true`.
// Alpha versions are off unless enabled; everything else is on unless disabled.

export class RuntimeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RuntimeConfigError";
  }
}

export type Level = "ga" | "beta" | "alpha";

export function versionLevel(version: string): Level {
  if (/alpha/.test(version)) return "alpha";
  if (/beta/.test(version)) return "beta";
  return "ga";
}

export interface ServedGroupVersion {
  readonly group: string;
  readonly version: string;
  readonly resources: readonly string[];
}

export type EnabledPredicate = (group: string, version: string, resource: string) => boolean;

function parseBool(key: string, value: string | undefined): boolean {
  if (value === undefined || value === "" || value === "true") return true;
  if (value === "false") return false;
  throw new RuntimeConfigError(
    `invalid value ${JSON.stringify(value)} for runtime-config key ${key}: must be true or false`,
  );
}

/** Build the predicate; keys naming nothing this server has fail, as a typo should. */
export function runtimeConfig(
  entries: readonly string[],
  served: readonly ServedGroupVersion[],
): EnabledPredicate {
  const levels: Record<Level, boolean> = { ga: true, beta: true, alpha: false };
  const groupVersions = new Map<string, boolean>();
  const resources = new Map<string, boolean>();
  const known = new Map(served.map((gv) => [`${gv.group}/${gv.version}`, gv]));
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    const rawKey = (eq < 0 ? entry : entry.slice(0, eq)).trim();
    const value = parseBool(rawKey, eq < 0 ? undefined : entry.slice(eq + 1).trim());
    const key = rawKey === "v1" || rawKey.startsWith("v1/") ? `api/${rawKey}` : rawKey;
    if (key === "api/all") {
      levels.ga = levels.beta = levels.alpha = value;
      continue;
    }
    if (key === "api/ga" || key === "api/beta" || key === "api/alpha") {
      levels[key.slice(4) as Level] = value;
      continue;
    }
    const parts = key.split("/");
    const group = parts[0] === "api" ? "" : (parts[0] ?? "");
    const version = parts[1] ?? "";
    const gv = known.get(`${group}/${version}`);
    if (!gv || parts.length > 3 || version === "") {
      throw new RuntimeConfigError(`unknown api group version in runtime-config: ${rawKey}`);
    }
    if (parts.length === 3) {
      const resource = parts[2] as string;
      if (!gv.resources.includes(resource))
        throw new RuntimeConfigError(`unknown resource in runtime-config: ${rawKey}`);
      resources.set(`${group}/${version}/${resource}`, value);
    } else {
      groupVersions.set(`${group}/${version}`, value);
    }
  }
  return (group, version, resource) => {
    const r = resources.get(`${group}/${version}/${resource}`);
    if (r !== undefined) return r;
    const g = groupVersions.get(`${group}/${version}`);
    if (g !== undefined) return g;
    return levels[versionLevel(version)];
  };
}
