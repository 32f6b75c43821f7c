// What the collector watches and how it finds an owner: the server's discovery documents. Every
// resource of a group's preferred version that can be listed, watched and deleted is watched;
// every served version's kinds resolve owner references. A group version whose document cannot
// be read is reported, so that what is known of it is kept rather than dropped.
import type { ControllerClient } from "../client.ts";
import type { ResourceInfo } from "./graph.ts";

interface ApiResource {
  name: string;
  kind: string;
  namespaced: boolean;
  verbs?: string[];
}

export interface Discovered {
  /** The resources to watch, keyed `<group>/<resource>`. */
  readonly watched: Map<string, ResourceInfo>;
  /** Every served resource by `<group>/<version>/<kind>`. */
  readonly kinds: Map<string, ResourceInfo>;
  /** Group versions whose document could not be read. */
  readonly failed: Set<string>;
}

export function kindKey(group: string, version: string, kind: string): string {
  return `${group}/${version}/${kind}`;
}

export async function discover(
  client: ControllerClient,
  ignored: (group: string, resource: string) => boolean,
): Promise<Discovered> {
  const watched = new Map<string, ResourceInfo>();
  const kinds = new Map<string, ResourceInfo>();
  const failed = new Set<string>();
  const versions: { group: string; version: string; base: string; preferred: boolean }[] = [];
  const core = await client.must("GET", "/api");
  for (const v of (core.body.versions ?? []) as string[])
    versions.push({ group: "", version: v, base: `/api/${v}`, preferred: v === "v1" });
  const groups = await client.must("GET", "/apis");
  for (const g of (groups.body.groups ?? []) as {
    name: string;
    versions: { version: string }[];
    preferredVersion?: { version: string };
  }[]) {
    for (const v of g.versions) {
      versions.push({
        group: g.name,
        version: v.version,
        base: `/apis/${g.name}/${v.version}`,
        preferred: v.version === (g.preferredVersion?.version ?? g.versions[0]?.version),
      });
    }
  }
  await Promise.all(
    versions.map(async (gv) => {
      const reply = await client.call("GET", gv.base).catch(() => undefined);
      if (reply?.status !== 200) {
        failed.add(`${gv.group}/${gv.version}`);
        return;
      }
      for (const r of (reply.body.resources ?? []) as ApiResource[]) {
        if (r.name.includes("/")) continue;
        const info: ResourceInfo = {
          group: gv.group,
          version: gv.version,
          resource: r.name,
          kind: r.kind,
          namespaced: r.namespaced,
          base: gv.base,
        };
        const key = kindKey(gv.group, gv.version, r.kind);
        if (!kinds.has(key)) kinds.set(key, info);
        const verbs = r.verbs ?? [];
        if (
          gv.preferred &&
          verbs.includes("list") &&
          verbs.includes("watch") &&
          verbs.includes("delete") &&
          !ignored(gv.group, r.name)
        )
          watched.set(`${gv.group}/${r.name}`, info);
      }
    }),
  );
  return { watched, kinds, failed };
}
