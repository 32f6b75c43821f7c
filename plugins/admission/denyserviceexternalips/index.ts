// DenyServiceExternalIPs: no new Service externalIPs may be added; removing them is allowed.
import type { AdmissionPlugin, JsonObject, PluginRegistration } from "../index.ts";
import { forbidden } from "../index.ts";

function externalIPs(o: JsonObject | undefined): unknown[] {
  const ips = (o?.spec as JsonObject | undefined)?.externalIPs;
  return Array.isArray(ips) ? ips : [];
}

function plugin(): AdmissionPlugin {
  return {
    name: "DenyServiceExternalIPs",
    validate(a) {
      if (a.resource.group !== "" || a.resource.resource !== "services" || a.subresource !== "") return;
      if (a.operation !== "CREATE" && a.operation !== "UPDATE") return;
      const now = externalIPs(a.object);
      const before = new Set(a.operation === "UPDATE" ? externalIPs(a.oldObject) : []);
      if (now.some((ip) => !before.has(ip)))
        throw forbidden(a, "use of external IPs is denied by admission control");
    },
  };
}

export const registration: PluginRegistration = { name: "DenyServiceExternalIPs", factory: plugin };
