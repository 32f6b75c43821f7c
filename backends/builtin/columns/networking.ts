// Table columns of the networking group: Ingress, IngressClass and NetworkPolicy.
import type { TableColumn } from "../../schema/resource-schema.ts";
import {
  age,
  arr,
  asObject,
  col,
  formatLabelSelector,
  type GroupColumns,
  type JsonObject,
  loadBalancerIngress,
  obj,
  present,
  spec,
  str,
} from "./helpers.ts";

const HOSTS_SHOWN = 3;

/** The first hosts the rules match, `*` when no rule names one. */
function formatHosts(ingress: JsonObject): string {
  const rules = arr(ingress, "spec", "rules").map((r) => asObject(r) ?? {});
  const list: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (list.length === HOSTS_SHOWN) more = true;
    const host = str(rule, "host");
    if (!more && host !== "") list.push(host);
  }
  if (list.length === 0) return "*";
  // Upstream counts the remaining rules, with a host or without.
  return more ? `${list.join(",")} + ${rules.length - HOSTS_SHOWN} more...` : list.join(",");
}

const ingressColumns: TableColumn[] = [
  col("string", "Class", "The ingress class that handles the ingress.", (o) => {
    const s = spec(o);
    return present(s, "ingressClassName") ? str(s, "ingressClassName") : "<none>";
  }),
  col("string", "Hosts", "The host names the rules match.", formatHosts),
  col("string", "Address", "Where the load balancer serving the ingress is reachable.", (o) =>
    loadBalancerIngress(obj(o, "status", "loadBalancer")),
  ),
  col("string", "Ports", "The ports served: 80, and 443 when TLS is configured.", (o) =>
    arr(o, "spec", "tls").length > 0 ? "80, 443" : "80",
  ),
  age(),
];

const ingressClassColumns: TableColumn[] = [
  col("string", "Controller", "The controller that implements the class.", (o) =>
    str(o, "spec", "controller"),
  ),
  col("string", "Parameters", "The object holding the class's extra settings, as Kind[.group]/name.", (o) => {
    const params = asObject(spec(o).parameters);
    if (!params) return "<none>";
    const group = present(params, "apiGroup") ? `.${str(params, "apiGroup")}` : "";
    return `${str(params, "kind")}${group}/${str(params, "name")}`;
  }),
  age(),
];

const networkPolicyColumns: TableColumn[] = [
  col("string", "Pod-Selector", "The pods the policy applies to.", (o) =>
    formatLabelSelector(obj(o, "spec", "podSelector")),
  ),
  age(),
];

export function networkingColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([
    ["ingresses", ingressColumns],
    ["ingressclasses", ingressClassColumns],
    ["networkpolicies", networkPolicyColumns],
  ]);
}
