// Owner kind → resource: built-in kinds from the catalog, custom kinds from the stored CRDs.
import { builtinKinds, builtinRbacKinds } from "../../../backends/builtin/index.ts";
import { objectOrEmpty as obj } from "../../../backends/common/json.ts";
import type { Naming } from "../../../backends/naming/index.ts";
import type { ObjectAccess } from "../../objects/index.ts";

export type KindResolver = (group: string, kind: string) => Promise<string | undefined>;

export function kindResolver(naming: Naming, objects: ObjectAccess): KindResolver {
  const builtin = new Map<string, string>();
  for (const k of [...builtinKinds(naming), ...builtinRbacKinds(naming)])
    builtin.set(`${k.schema.group}/${k.schema.kind}`, k.schema.plural);
  const crds = { group: naming.group("apiextensions"), resource: "customresourcedefinitions" };
  return async (group, kind) => {
    const known = builtin.get(`${group}/${kind}`);
    if (known) return known;
    const informer = objects.informer(crds);
    if (!informer) return undefined;
    await informer.synced;
    for (const crd of informer.list()) {
      const spec = obj(crd.spec);
      const names = obj(spec.names);
      if (spec.group === group && names.kind === kind && typeof names.plural === "string")
        return names.plural;
    }
    return undefined;
  };
}
