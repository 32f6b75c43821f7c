// Services and Endpoints: ports, types, cluster IPs and their families, session affinity, traffic
// policies; the addresses and ports of Endpoints.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import { validateLabelMap } from "./fast.ts";
import {
  isIPv6String,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isUnspecified,
  parseCIDR,
  parseIP,
} from "./net.ts";
import { INVALID_IP, isValidPortNum, PORT_RANGE, validatePortNumOrName } from "./pod-spec.ts";
import {
  arr,
  dnsLabel,
  dnsSubdomain,
  type Json,
  num,
  obj,
  objOrEmpty,
  qualifiedName,
  semanticEqual,
  str,
} from "./util.ts";

const MAX_CLIENT_IP_AFFINITY_SECONDS = 86400;

/** Addresses that make no sense for a service endpoint: unspecified, loopback, link-local. */
export function validateNonSpecialIP(errs: FieldError[], address: string, path: string): void {
  const ip = parseIP(address);
  if (!ip) {
    errs.push(field.invalid(path, address, "must be a valid IP address"));
    return;
  }
  if (isUnspecified(ip)) errs.push(field.invalid(path, address, `may not be unspecified (${address})`));
  if (isLoopback(ip))
    errs.push(field.invalid(path, address, "may not be in the loopback range (127.0.0.0/8, ::1/128)"));
  if (isLinkLocalUnicast(ip))
    errs.push(field.invalid(path, address, "may not be in the link-local range (169.254.0.0/16, fe80::/10)"));
  if (isLinkLocalMulticast(ip))
    errs.push(
      field.invalid(path, address, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"),
    );
}

/** The cluster IPs a Service stands for once the singular field has been copied to the plural. */
function clusterIPsOf(spec: Json): string[] {
  const ips = arr(spec.clusterIPs).map(str);
  if (ips.length === 0 && str(spec.clusterIP) !== "") return [str(spec.clusterIP)];
  return ips;
}

function isHeadless(spec: Json): boolean {
  const ips = clusterIPsOf(spec);
  return ips.length === 1 && ips[0] === "None";
}

function validateServicePort(
  errs: FieldError[],
  port: Json,
  requireName: boolean,
  names: Set<string>,
  path: string,
): void {
  const name = str(port.name);
  if (requireName && name === "") errs.push(field.required(`${path}.name`));
  else if (name !== "") {
    dnsLabel(errs, name, `${path}.name`);
    if (names.has(name)) errs.push(field.duplicate(`${path}.name`, name));
    else names.add(name);
  }
  const p = num(port.port);
  if (p !== undefined && !isValidPortNum(p)) errs.push(field.invalid(`${path}.port`, p, PORT_RANGE));
  if (port.targetPort !== undefined && port.targetPort !== null)
    validatePortNumOrName(errs, port.targetPort, `${path}.targetPort`);
  if (port.appProtocol != null) qualifiedName(errs, str(port.appProtocol), `${path}.appProtocol`);
}

function validateClusterIPsRelatedFields(errs: FieldError[], spec: Json): void {
  if (str(spec.type) === "ExternalName") return;
  const clusterIP = str(spec.clusterIP);
  const ips = clusterIPsOf(spec);
  const families = arr(spec.ipFamilies).map(str);
  if (clusterIP !== "") {
    if (ips[0] !== clusterIP)
      errs.push(field.invalid("spec.clusterIPs", ips, "first value must match `clusterIP`"));
  } else if (ips.length !== 0) {
    errs.push(field.invalid("spec.clusterIPs", ips, "must be empty when `clusterIP` is not specified"));
  }
  const seen = new Set<string>();
  families.forEach((family, i) => {
    if (seen.has(family)) errs.push(field.duplicate(`spec.ipFamilies[${i}]`, family));
    seen.add(family);
  });
  let invalidIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === "None") {
      if (ips.length > 1) {
        invalidIPs = true;
        errs.push(field.invalid("spec.clusterIPs", ips, "'None' must be the first and only value"));
      }
      return;
    }
    if (!parseIP(ip)) {
      invalidIPs = true;
      errs.push(field.invalid(`spec.clusterIPs[${i}]`, ip, INVALID_IP));
    }
  });
  if (ips.length > 2) errs.push(field.invalid("spec.clusterIPs", ips, "may only hold up to 2 values"));
  if (invalidIPs) return;
  if (ips.length > 1 && isIPv6String(ips[0]!) === isIPv6String(ips[1]!)) {
    errs.push(field.invalid("spec.clusterIPs", ips, "may specify no more than one IP for each IP family"));
  }
  if (!isHeadless(spec) && ips.length > 0 && families.length > 0) {
    for (let i = 0; i < ips.length && i < families.length; i++) {
      const v6 = isIPv6String(ips[i]!);
      if (families[i] === "IPv4" && v6)
        errs.push(
          field.invalid(
            `spec.clusterIPs[${i}]`,
            ips[i],
            `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
      if (families[i] === "IPv6" && !v6)
        errs.push(
          field.invalid(
            `spec.clusterIPs[${i}]`,
            ips[i],
            `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``,
          ),
        );
    }
  }
  if (str(spec.ipFamilyPolicy) === "SingleStack") {
    if (ips.length === 2)
      errs.push(
        field.invalid(
          "spec.ipFamilyPolicy",
          "SingleStack",
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified",
        ),
      );
    if (families.length === 2)
      errs.push(
        field.invalid(
          "spec.ipFamilyPolicy",
          "SingleStack",
          "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified",
        ),
      );
  }
}

function validateSourceRanges(errs: FieldError[], object: Json, spec: Json, naming: Naming): void {
  const ranges = arr(spec.loadBalancerSourceRanges).map(str);
  const annotationKey = naming.label("load-balancer-source-ranges", "service.beta");
  const annotations = objOrEmpty(objOrEmpty(object.metadata).annotations);
  const fromAnnotation = ranges.length === 0 && Object.hasOwn(annotations, annotationKey);
  if (ranges.length === 0 && !fromAnnotation) return;
  const path = ranges.length > 0 ? "spec.LoadBalancerSourceRanges" : `metadata.annotations[${annotationKey}]`;
  const shown = ranges.length > 0 ? `[${ranges.join(" ")}]` : str(annotations[annotationKey]);
  if (str(spec.type) !== "LoadBalancer")
    errs.push(field.forbidden(path, "may only be used when `type` is 'LoadBalancer'"));
  let list = ranges;
  if (fromAnnotation) {
    const value = str(annotations[annotationKey]).trim();
    list = value === "" ? [] : value.split(",");
  }
  if (list.some((r) => !parseCIDR(r.trim())))
    errs.push(
      field.invalid(path, shown, "must be a list of IP ranges. For example, 10.240.0.0/24,10.250.0.0/24 "),
    );
}

export function validateService(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const type = str(spec.type) || "ClusterIP";
  const ports = arr(spec.ports);
  const headless = isHeadless(spec);
  const ips = clusterIPsOf(spec);
  if (ports.length === 0 && !headless && type !== "ExternalName") errs.push(field.required("spec.ports"));
  if ((type === "LoadBalancer" || type === "NodePort") && headless)
    errs.push(field.invalid("spec.clusterIPs[0]", ips[0], `may not be set to 'None' for ${type} services`));
  if (type === "ExternalName") {
    if (ips.length > 0)
      errs.push(field.forbidden("spec.clusterIPs", "may not be set for ExternalName services"));
    if (arr(spec.ipFamilies).length > 0)
      errs.push(field.forbidden("spec.ipFamilies", "may not be set for ExternalName services"));
    if (spec.ipFamilyPolicy != null)
      errs.push(field.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services"));
    const cname = str(spec.externalName).replace(/\.$/, "");
    if (cname !== "") dnsSubdomain(errs, cname, "spec.externalName");
    else errs.push(field.required("spec.externalName"));
  }
  const names = new Set<string>();
  for (let i = 0; i < ports.length; i++)
    validateServicePort(errs, objOrEmpty(ports[i]), ports.length > 1, names, `spec.ports[${i}]`);
  if (spec.selector != null) validateLabelMap(errs, spec.selector, "spec.selector");
  const affinity = str(spec.sessionAffinity);
  if (affinity === "ClientIP") {
    const config = obj(spec.sessionAffinityConfig);
    const why = "when session affinity type is ClientIP";
    const clientIP = obj(config?.clientIP);
    if (!config) errs.push(field.required("spec.sessionAffinityConfig", why));
    else if (!clientIP) errs.push(field.required("spec.sessionAffinityConfig.clientIP", why));
    else if (clientIP.timeoutSeconds == null)
      errs.push(field.required("spec.sessionAffinityConfig.clientIP.timeoutSeconds", why));
    else {
      const timeout = num(clientIP.timeoutSeconds) ?? 0;
      if (timeout <= 0 || timeout > MAX_CLIENT_IP_AFFINITY_SECONDS)
        errs.push(
          field.invalid(
            "spec.sessionAffinityConfig.clientIP.timeoutSeconds",
            timeout,
            `must be greater than 0 and less than ${MAX_CLIENT_IP_AFFINITY_SECONDS}`,
          ),
        );
    }
  } else if (affinity === "None" && spec.sessionAffinityConfig != null) {
    errs.push(field.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None"));
  }
  validateClusterIPsRelatedFields(errs, spec);
  const externalIPs = arr(spec.externalIPs);
  for (let i = 0; i < externalIPs.length; i++) {
    const ip = str(externalIPs[i]);
    const p = `spec.externalIPs[${i}]`;
    if (!parseIP(ip)) errs.push(field.invalid(p, ip, INVALID_IP));
    else validateNonSpecialIP(errs, ip, p);
  }
  if (type === "ClusterIP") {
    for (let i = 0; i < ports.length; i++) {
      if ((num(objOrEmpty(ports[i]).nodePort) ?? 0) !== 0)
        errs.push(field.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
    }
  }
  const nodePorts = new Set<string>();
  const portKeys = new Set<string>();
  for (let i = 0; i < ports.length; i++) {
    const port = objOrEmpty(ports[i]);
    const protocol = str(port.protocol) || "TCP";
    const nodePort = num(port.nodePort) ?? 0;
    if (nodePort !== 0) {
      const key = `${protocol}/${nodePort}`;
      if (nodePorts.has(key)) errs.push(field.duplicate(`spec.ports[${i}].nodePort`, nodePort));
      nodePorts.add(key);
    }
  }
  for (let i = 0; i < ports.length; i++) {
    const port = objOrEmpty(ports[i]);
    const protocol = str(port.protocol) || "TCP";
    const key = `${protocol}/${num(port.port) ?? 0}`;
    if (portKeys.has(key))
      errs.push(field.duplicate(`spec.ports[${i}]`, { port: num(port.port) ?? 0, protocol }));
    portKeys.add(key);
  }
  validateSourceRanges(errs, object, spec, naming);
  if (spec.allocateLoadBalancerNodePorts != null && type !== "LoadBalancer")
    errs.push(
      field.forbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"),
    );
  if (spec.loadBalancerClass != null) {
    if (type === "LoadBalancer") {
      const cls = str(spec.loadBalancerClass);
      qualifiedName(errs, cls, "spec.loadBalancerClass");
    } else {
      errs.push(field.forbidden("spec.loadBalancerClass", "may only be used when `type` is 'LoadBalancer'"));
    }
  }
  const healthCheckNodePort = num(spec.healthCheckNodePort) ?? 0;
  if (healthCheckNodePort < 0)
    errs.push(
      field.invalid(
        "spec.healthCheckNodePort",
        healthCheckNodePort,
        "HealthCheckNodePort must be not less than 0",
      ),
    );
  const trafficPolicy = str(spec.externalTrafficPolicy);
  if (type !== "LoadBalancer" && type !== "NodePort" && trafficPolicy !== "")
    errs.push(
      field.invalid(
        "spec.externalTrafficPolicy",
        trafficPolicy,
        "ExternalTrafficPolicy can only be set on NodePort and LoadBalancer service",
      ),
    );
  if (!(type === "LoadBalancer" && trafficPolicy === "Local") && healthCheckNodePort !== 0)
    errs.push(
      field.invalid(
        "spec.healthCheckNodePort",
        healthCheckNodePort,
        "HealthCheckNodePort can only be set on LoadBalancer service with ExternalTrafficPolicy=Local",
      ),
    );
  return errs;
}

function validateUpgradeDowngradeClusterIPs(errs: FieldError[], spec: Json, oldSpec: Json): void {
  if (str(spec.type) === "ExternalName" || str(oldSpec.type) === "ExternalName") return;
  if (isHeadless(spec) && isHeadless(oldSpec)) return;
  const now = clusterIPsOf(spec);
  const before = clusterIPsOf(oldSpec);
  if (before.length === now.length) {
    before.forEach((ip, i) => {
      if (ip !== now[i]) errs.push(field.invalid(`spec.clusterIPs[${i}]`, now, "may not change once set"));
    });
  } else if (before.length > now.length) {
    if (now.length === 0)
      errs.push(field.invalid("spec.clusterIPs[0]", now, "primary clusterIP can not be unset"));
    if (before.length > 0 && now.length > 0 && now[0] !== before[0])
      errs.push(field.invalid("spec.clusterIPs[0]", now, "may not change once set"));
    if (now.length === 1 && str(spec.ipFamilyPolicy) !== "SingleStack")
      errs.push(
        field.invalid(
          "spec.ipFamilyPolicy",
          spec.ipFamilyPolicy ?? null,
          "must be set to 'SingleStack' when releasing the secondary clusterIP",
        ),
      );
  } else if (before.length > 0 && now[0] !== before[0]) {
    errs.push(field.invalid("spec.clusterIPs[0]", now, "may not change once set"));
  }
}

function validateUpgradeDowngradeIPFamilies(errs: FieldError[], spec: Json, oldSpec: Json): void {
  if (str(spec.type) === "ExternalName" || str(oldSpec.type) === "ExternalName") return;
  if (isHeadless(spec) !== isHeadless(oldSpec) || isHeadless(spec)) return;
  const now = arr(spec.ipFamilies).map(str);
  const before = arr(oldSpec.ipFamilies).map(str);
  const ips = clusterIPsOf(spec);
  if (before.length === now.length) {
    before.forEach((family, i) => {
      if (family !== now[i]) errs.push(field.invalid("spec.ipFamilies[0]", now, "may not change once set"));
    });
  } else if (before.length > now.length) {
    if (ips.length === 0)
      errs.push(field.invalid("spec.ipFamilies[0]", now, "primary ipFamily can not be unset"));
    if (now.length > 0 && now[0] !== before[0])
      errs.push(field.invalid("spec.ipFamilies[0]", ips, "may not change once set"));
    if (now.length === 1 && str(spec.ipFamilyPolicy) !== "SingleStack")
      errs.push(
        field.invalid(
          "spec.ipFamilyPolicy",
          spec.ipFamilyPolicy ?? null,
          "must be set to 'SingleStack' when releasing the secondary ipFamily",
        ),
      );
  } else if (before.length > 0 && now.length > 0 && now[0] !== before[0]) {
    errs.push(field.invalid("spec.ipFamilies[0]", ips, "may not change once set"));
  }
}

export function validateServiceUpdate(object: Json, old: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const oldSpec = objOrEmpty(old.spec);
  validateUpgradeDowngradeClusterIPs(errs, spec, oldSpec);
  validateUpgradeDowngradeIPFamilies(errs, spec, oldSpec);
  if (str(spec.type) === "LoadBalancer" && str(oldSpec.type) === "LoadBalancer") {
    if ((spec.loadBalancerClass ?? null) !== (oldSpec.loadBalancerClass ?? null))
      errs.push(
        field.invalid("spec.loadBalancerClass", spec.loadBalancerClass ?? null, "may not change once set"),
      );
  }
  // The health check port is allocated once; a Service that keeps needing it keeps it.
  if (
    needsHealthCheckNodePort(spec) &&
    needsHealthCheckNodePort(oldSpec) &&
    (num(spec.healthCheckNodePort) ?? 0) !== (num(oldSpec.healthCheckNodePort) ?? 0)
  )
    errs.push(field.forbidden("spec.healthCheckNodePort", "field is immutable"));
  errs.push(...validateService(object, naming));
  return errs;
}

const typeOf = (spec: Json): string => str(spec.type) || "ClusterIP";
const needsNodePorts = (spec: Json): boolean =>
  typeOf(spec) === "NodePort" || typeOf(spec) === "LoadBalancer";

/** Whether a Service has a health check node port: a LoadBalancer with the Local traffic policy. */
function needsHealthCheckNodePort(spec: Json): boolean {
  return typeOf(spec) === "LoadBalancer" && str(spec.externalTrafficPolicy) === "Local";
}

function nonZeroNodePorts(spec: Json): Set<number> {
  return new Set(
    arr(spec.ports)
      .map((p) => num(objOrEmpty(p).nodePort) ?? 0)
      .filter((n) => n !== 0),
  );
}

/**
 * Upstream's Service strategy on update: a type change drops the fields that only the old type
 * uses (cluster IPs and families, node ports, the health check port, the load balancer's
 * fields, the external traffic policy) when the request left them as they were, so that a
 * client changing only `type` is not refused for values the server filled in; what they held is
 * free once the Service is stored without them. A value the request changed is kept, and
 * validation judges it. Mutates the object.
 */
function dropTypeDependentFields(service: Json, spec: Json, oldSpec: Json): void {
  const external = (s: Json) => typeOf(s) === "ExternalName";
  if (!external(oldSpec) && external(spec)) {
    const sameIPs =
      str(spec.clusterIP) === str(oldSpec.clusterIP) && semanticEqual(spec.clusterIPs, oldSpec.clusterIPs);
    if (sameIPs) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (semanticEqual(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (str(spec.ipFamilyPolicy) === str(oldSpec.ipFamilyPolicy)) delete spec.ipFamilyPolicy;
  }
  if (needsNodePorts(oldSpec) && !needsNodePorts(spec)) {
    const before = nonZeroNodePorts(oldSpec);
    // Ports may be added, removed or changed, as long as no node port is new.
    if ([...nonZeroNodePorts(spec)].every((p) => before.has(p)))
      for (const p of arr(spec.ports)) {
        const port = obj(p);
        if (port) delete port.nodePort;
      }
  }
  if (
    needsHealthCheckNodePort(oldSpec) &&
    !needsHealthCheckNodePort(spec) &&
    (num(spec.healthCheckNodePort) ?? 0) === (num(oldSpec.healthCheckNodePort) ?? 0)
  )
    delete spec.healthCheckNodePort;
  const loadBalancer = (s: Json) => typeOf(s) === "LoadBalancer";
  if (loadBalancer(oldSpec) && !loadBalancer(spec)) {
    const allocate = spec.allocateLoadBalancerNodePorts;
    if (allocate != null && oldSpec.allocateLoadBalancerNodePorts != null)
      if (allocate === oldSpec.allocateLoadBalancerNodePorts) delete spec.allocateLoadBalancerNodePorts;
    if ((spec.loadBalancerClass ?? null) === (oldSpec.loadBalancerClass ?? null))
      delete spec.loadBalancerClass;
  }
  if (
    needsNodePorts(oldSpec) &&
    !needsNodePorts(spec) &&
    str(spec.externalTrafficPolicy) === str(oldSpec.externalTrafficPolicy)
  )
    delete spec.externalTrafficPolicy;
  // A load balancer's status goes with the type, though its teardown takes longer.
  const status = obj(service.status);
  if (!loadBalancer(spec) && status && status.loadBalancer != null) status.loadBalancer = {};
}

/**
 * What upstream's Service strategy does before validating a create: a client that sets only the
 * singular clusterIP gets the plural list too. Mutates the object.
 */
export function prepareServiceForCreate(service: Json): void {
  const spec = obj(service.spec);
  if (!spec) return;
  if (str(spec.clusterIP) !== "" && arr(spec.clusterIPs).length === 0) spec.clusterIPs = [spec.clusterIP];
}

/**
 * What upstream's Service strategy does before validating an update: allocated values the request
 * leaves out (cluster IPs, node ports) are kept, and the singular and plural cluster IP fields are
 * reconciled. Mutates the object.
 */
export function prepareServiceForUpdate(service: Json, old: Json): void {
  const spec = obj(service.spec);
  const oldSpec = objOrEmpty(old.spec);
  if (!spec) return;
  const type = str(spec.type) || "ClusterIP";
  const oldType = str(oldSpec.type) || "ClusterIP";
  if (type !== "ExternalName" && oldType !== "ExternalName") {
    if (str(spec.clusterIP) === "" && oldSpec.clusterIP !== undefined) spec.clusterIP = oldSpec.clusterIP;
    if (arr(spec.clusterIPs).length === 0 && arr(oldSpec.clusterIPs).length > 0)
      spec.clusterIPs = [...arr(oldSpec.clusterIPs)];
  }
  const needsNodePort = (t: string) => t === "NodePort" || t === "LoadBalancer";
  if (needsNodePort(type) && needsNodePort(oldType)) {
    const used = (ports: readonly unknown[]) =>
      new Set(ports.map((p) => num(objOrEmpty(p).nodePort) ?? 0).filter((n) => n !== 0));
    const newPorts = arr(spec.ports);
    const oldUsed = used(arr(oldSpec.ports));
    const newUsed = used(newPorts);
    const taken = new Set([...oldUsed].filter((n) => newUsed.has(n)));
    const byName = new Map<string, number>();
    for (const p of arr(oldSpec.ports)) byName.set(str(objOrEmpty(p).name), num(objOrEmpty(p).nodePort) ?? 0);
    for (const p of newPorts) {
      const port = obj(p);
      if (!port || (num(port.nodePort) ?? 0) !== 0) continue;
      const previous = byName.get(str(port.name)) ?? 0;
      if (previous !== 0 && !taken.has(previous)) port.nodePort = previous;
    }
  }
  if (needsHealthCheckNodePort(spec) && needsHealthCheckNodePort(oldSpec)) {
    if ((num(spec.healthCheckNodePort) ?? 0) === 0 && oldSpec.healthCheckNodePort !== undefined)
      spec.healthCheckNodePort = oldSpec.healthCheckNodePort;
  }
  // A client that changes only the singular clusterIP is taken at its word.
  const ips = arr(spec.clusterIPs).map(str);
  const oldIPs = arr(oldSpec.clusterIPs).map(str);
  const sameIPs = ips.length === oldIPs.length && ips.every((ip, i) => ip === oldIPs[i]);
  if (str(oldSpec.clusterIP) !== str(spec.clusterIP) && sameIPs) {
    if (str(spec.clusterIP) === "") delete spec.clusterIPs;
    else spec.clusterIPs = [spec.clusterIP];
  }
  dropTypeDependentFields(service, spec, oldSpec);
}

// ---- Endpoints --------------------------------------------------------------------------------

function validateEndpointAddress(errs: FieldError[], address: Json, path: string): void {
  // An absent ip is the schema's `Required value`.
  const hasIP = address.ip !== undefined;
  const ip = str(address.ip);
  if (hasIP && !parseIP(ip)) errs.push(field.invalid(`${path}.ip`, ip, INVALID_IP));
  const hostname = str(address.hostname);
  if (hostname !== "") dnsLabel(errs, hostname, `${path}.hostname`);
  if (address.nodeName != null) dnsSubdomain(errs, str(address.nodeName), `${path}.nodeName`);
  if (hasIP) validateNonSpecialIP(errs, ip, `${path}.ip`);
}

export function validateEndpoints(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const subsets = arr(object.subsets);
  for (let i = 0; i < subsets.length; i++) {
    const ss = objOrEmpty(subsets[i]);
    const p = `subsets[${i}]`;
    const addresses = arr(ss.addresses);
    const notReady = arr(ss.notReadyAddresses);
    if (addresses.length === 0 && notReady.length === 0)
      errs.push(field.required(p, "must specify `addresses` or `notReadyAddresses`"));
    for (let j = 0; j < addresses.length; j++)
      validateEndpointAddress(errs, objOrEmpty(addresses[j]), `${p}.addresses[${j}]`);
    for (let j = 0; j < notReady.length; j++)
      validateEndpointAddress(errs, objOrEmpty(notReady[j]), `${p}.notReadyAddresses[${j}]`);
    const ports = arr(ss.ports);
    for (let j = 0; j < ports.length; j++) {
      const port = objOrEmpty(ports[j]);
      const pp = `${p}.ports[${j}]`;
      const name = str(port.name);
      if (ports.length > 1 && name === "") errs.push(field.required(`${pp}.name`));
      else if (name !== "") dnsLabel(errs, name, `${pp}.name`);
      const n = num(port.port);
      if (n !== undefined && !isValidPortNum(n)) errs.push(field.invalid(`${pp}.port`, n, PORT_RANGE));
      if (port.appProtocol != null) qualifiedName(errs, str(port.appProtocol), `${pp}.appProtocol`);
    }
  }
  return errs;
}
