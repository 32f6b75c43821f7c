// DefaultIngressClass: an Ingress created without a class gets the one IngressClass marked default.
import type { AdmissionPlugin, JsonObject, PluginEnv, PluginRegistration } from "../index.ts";
import { forbidden, internalError } from "../index.ts";

function plugin(env: PluginEnv): AdmissionPlugin {
  const group = env.naming.group("networking");
  // The legacy class annotation, in the naming domain as the registry's Ingress validation spells it.
  const legacyClass = env.naming.label("ingress.class");
  const isDefault = env.naming.label("is-default-class", "ingressclass");
  const classes = env.objects.informer({ group, resource: "ingressclasses" });
  return {
    name: "DefaultIngressClass",
    async admit(a) {
      if (a.operation !== "CREATE" || a.resource.group !== group) return;
      if (a.resource.resource !== "ingresses" || a.subresource !== "") return;
      const ingress = a.object;
      if (!ingress) return;
      const spec = (ingress.spec ?? {}) as JsonObject;
      if (spec.ingressClassName !== undefined && spec.ingressClassName !== null) return;
      const annotations = (ingress.metadata as JsonObject | undefined)?.annotations as JsonObject | undefined;
      if (annotations && legacyClass in annotations) return;
      if (!classes) throw internalError("ingressclasses are not served");
      await classes.synced;
      const defaults = classes
        .list()
        .filter((c) => (c.metadata as JsonObject | undefined)?.annotations?.[isDefault as never] === "true");
      if (defaults.length === 0) return;
      if (defaults.length > 1) {
        // Upstream 1.27 refuses rather than choosing one (storage classes pick the newest).
        throw forbidden(
          a,
          `Internal error occurred: ${defaults.length} default IngressClasses were found, only 1 allowed`,
        );
      }
      ingress.spec = { ...spec, ingressClassName: (defaults[0]?.metadata as JsonObject | undefined)?.name };
    },
  };
}

export const registration: PluginRegistration = { name: "DefaultIngressClass", factory: plugin };
