// Networking and discovery kinds: Ingress, IngressClass, NetworkPolicy and EndpointSlice.
import type { Naming } from "../../naming/naming.ts";
import { type FieldError, field } from "../../registry/field-error.ts";
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  regexError,
} from "../../validation/names.ts";
import { validateLabelMap } from "./fast.ts";
import { cidrContains, isV4, parseCIDR, parseIP } from "./net.ts";
import { isValidPortName, isValidPortNum, PORT_RANGE } from "./pod-spec.ts";
import { validateLabelSelector } from "./selectors.ts";
import { validateNonSpecialIP } from "./service.ts";
import {
  arr,
  dnsLabel,
  dnsSubdomain,
  immutable,
  isDNS1035Label,
  type Json,
  labelValue,
  num,
  obj,
  objOrEmpty,
  qualifiedName,
  requiredIfPresent,
  str,
  tooMany,
} from "./util.ts";

const WILDCARD_FMT = "\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const WILDCARD = new RegExp(`^${WILDCARD_FMT}$`);
const WILDCARD_MSG =
  "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character";

function isWildcardSubdomain(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push("must be no more than 253 characters");
  if (!WILDCARD.test(value)) errs.push(regexError(WILDCARD_MSG, WILDCARD_FMT, "*.example.com"));
  return errs;
}

function validateHost(errs: FieldError[], host: string, path: string): void {
  const msgs = host.includes("*") ? isWildcardSubdomain(host) : isDNS1123Subdomain(host);
  for (const msg of msgs) errs.push(field.invalid(path, host, msg));
}

function validateTypedReference(errs: FieldError[], ref: Json, path: string): void {
  if (ref.apiGroup != null) dnsSubdomain(errs, str(ref.apiGroup), `${path}.apiGroup`);
  for (const key of ["kind", "name"] as const) {
    const value = str(ref[key]);
    if (value === "") requiredIfPresent(errs, ref[key], `${path}.${key}`);
    else
      for (const msg of isValidPathSegmentName(value)) errs.push(field.invalid(`${path}.${key}`, value, msg));
  }
}

function validateIngressBackend(errs: FieldError[], backend: Json, path: string): void {
  const resource = obj(backend.resource);
  const service = obj(backend.service);
  if (resource && service) {
    errs.push(field.invalid(path, "", "cannot set both resource and service backends"));
    return;
  }
  if (resource) {
    validateTypedReference(errs, resource, `${path}.resource`);
    return;
  }
  if (!service) {
    errs.push(field.invalid(path, "", "resource or service backend is required"));
    return;
  }
  const name = str(service.name);
  if (name === "") requiredIfPresent(errs, service.name, `${path}.service.name`);
  else for (const msg of isDNS1035Label(name)) errs.push(field.invalid(`${path}.service.name`, name, msg));
  const port = objOrEmpty(service.port);
  const portName = str(port.name);
  const portNumber = num(port.number) ?? 0;
  if (portName !== "" && portNumber !== 0) {
    errs.push(field.invalid(path, "", "cannot set both port name & port number"));
  } else if (portName !== "") {
    for (const msg of isValidPortName(portName))
      errs.push(field.invalid(`${path}.service.port.name`, portName, msg));
  } else if (portNumber !== 0) {
    if (!isValidPortNum(portNumber))
      errs.push(field.invalid(`${path}.service.port.number`, portNumber, PORT_RANGE));
  } else {
    errs.push(field.required(path, "port name or number is required"));
  }
}

const INVALID_SEQUENCES = ["//", "/./", "/../", "%2f", "%2F"];
const INVALID_SUFFIXES = ["/..", "/."];

function validateIngressPath(errs: FieldError[], p: Json, path: string): void {
  // An absent pathType or backend is the schema's `Required value`; upstream checks nothing
  // further without a pathType.
  const pathType = p.pathType;
  if (pathType === undefined || pathType === null) return;
  const value = str(p.path);
  switch (pathType) {
    case "Exact":
    case "Prefix":
      if (!value.startsWith("/")) errs.push(field.invalid(`${path}.path`, value, "must be an absolute path"));
      if (value !== "") {
        for (const seq of INVALID_SEQUENCES)
          if (value.includes(seq))
            errs.push(field.invalid(`${path}.path`, value, `must not contain '${seq}'`));
        for (const suffix of INVALID_SUFFIXES)
          if (value.endsWith(suffix))
            errs.push(field.invalid(`${path}.path`, value, `cannot end with '${suffix}'`));
      }
      break;
    case "ImplementationSpecific":
      if (value !== "" && !value.startsWith("/"))
        errs.push(field.invalid(`${path}.path`, value, "must be an absolute path"));
      break;
  }
  if (p.backend !== undefined) validateIngressBackend(errs, objOrEmpty(p.backend), `${path}.backend`);
}

function validateIngressSpec(errs: FieldError[], spec: Json): void {
  const rules = arr(spec.rules);
  const defaultBackend = obj(spec.defaultBackend);
  if (rules.length === 0 && !defaultBackend)
    errs.push(
      field.invalid("spec", spec.rules ?? null, "either `defaultBackend` or `rules` must be specified"),
    );
  if (defaultBackend) validateIngressBackend(errs, defaultBackend, "spec.defaultBackend");
  for (let i = 0; i < rules.length; i++) {
    const rule = objOrEmpty(rules[i]);
    const p = `spec.rules[${i}]`;
    const host = str(rule.host);
    if (host !== "") {
      if (parseIP(host)) errs.push(field.invalid(`${p}.host`, host, "must be a DNS name, not an IP address"));
      validateHost(errs, host, `${p}.host`);
    }
    const http = obj(rule.http);
    if (http) {
      const paths = arr(http.paths);
      if (paths.length === 0) requiredIfPresent(errs, http.paths, `${p}.http.paths`);
      for (let j = 0; j < paths.length; j++)
        validateIngressPath(errs, objOrEmpty(paths[j]), `${p}.http.paths[${j}]`);
    }
  }
  const tls = arr(spec.tls);
  for (let i = 0; i < tls.length; i++) {
    const entry = objOrEmpty(tls[i]);
    const hosts = arr(entry.hosts);
    for (let j = 0; j < hosts.length; j++) validateHost(errs, str(hosts[j]), `spec.tls[${i}].hosts[${j}]`);
    const secret = str(entry.secretName);
    if (secret !== "") dnsSubdomain(errs, secret, `spec.tls[${i}].secretName`);
  }
  if (spec.ingressClassName != null) dnsSubdomain(errs, str(spec.ingressClassName), "spec.ingressClassName");
}

export function validateIngress(object: Json, naming: Naming): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  validateIngressSpec(errs, spec);
  const key = naming.label("ingress.class");
  const annotations = objOrEmpty(objOrEmpty(object.metadata).annotations);
  if (
    Object.hasOwn(annotations, key) &&
    spec.ingressClassName != null &&
    annotations[key] !== spec.ingressClassName
  )
    errs.push(
      field.invalid(
        `annotations.${key}`,
        str(annotations[key]),
        "must match `ingressClassName` when both are specified",
      ),
    );
  return errs;
}

export function validateIngressUpdate(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  validateIngressSpec(errs, objOrEmpty(object.spec));
  return errs;
}

const HTTP_PATH_FMT = "[A-Za-z0-9/\\-._~%!$&'()*+,;=:]+";
const HTTP_PATH = new RegExp(`^${HTTP_PATH_FMT}$`);

function validateDomainPrefixedPath(errs: FieldError[], value: string, path: string): void {
  if (value === "") {
    errs.push(field.required(path));
    return;
  }
  const slash = value.indexOf("/");
  const host = slash < 0 ? value : value.slice(0, slash);
  const rest = slash < 0 ? "" : value.slice(slash + 1);
  if (slash < 0 || host === "" || rest === "") {
    errs.push(field.invalid(path, value, 'must be a domain-prefixed path (such as "acme.io/foo")'));
    return;
  }
  for (const msg of isDNS1123Subdomain(host)) errs.push(field.invalid(path, host, msg));
  if (!HTTP_PATH.test(rest)) errs.push(field.invalid(path, rest, regexError("Invalid path", HTTP_PATH_FMT)));
}

export function validateIngressClass(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const controller = str(spec.controller);
  if (controller === "") errs.push(field.required("spec.controller"));
  else {
    if (controller.length > 250) errs.push(field.tooLong("spec.controller", 250));
    validateDomainPrefixedPath(errs, controller, "spec.controller");
  }
  const params = obj(spec.parameters);
  if (params) {
    const p = "spec.parameters";
    validateTypedReference(errs, params, p);
    const scope = params.scope;
    if (scope != null) {
      const s = str(scope);
      if (s !== "Namespace" && s !== "Cluster")
        errs.push(field.notSupported(`${p}.scope`, s, ["Cluster", "Namespace"]));
      else if (s === "Namespace") {
        if (params.namespace == null)
          errs.push(field.required(`${p}.namespace`, "`parameters.scope` is set to 'Namespace'"));
        else dnsLabel(errs, str(params.namespace), `${p}.namespace`);
      } else if (params.namespace != null) {
        errs.push(field.forbidden(`${p}.namespace`, "`parameters.scope` is set to 'Cluster'"));
      }
    } else if (params.namespace != null) {
      errs.push(field.forbidden(`${p}.namespace`, "`parameters.scope` is set to 'Cluster'"));
    }
  }
  return errs;
}

export function validateIngressClassUpdate(object: Json, old: Json): FieldError[] {
  const errs: FieldError[] = [];
  immutable(errs, objOrEmpty(object.spec).controller, objOrEmpty(old.spec).controller, "spec.controller");
  errs.push(...validateIngressClass(object));
  return errs;
}

// ---- NetworkPolicy ----------------------------------------------------------------------------

function validateNetworkPolicyPort(errs: FieldError[], port: Json, path: string): void {
  const p = port.port;
  const endPort = num(port.endPort);
  if (typeof p === "number") {
    if (!isValidPortNum(p)) errs.push(field.invalid(`${path}.port`, p, PORT_RANGE));
    if (endPort !== undefined) {
      if (endPort < p)
        errs.push(field.invalid(`${path}.endPort`, endPort, "must be greater than or equal to `port`"));
      if (!isValidPortNum(endPort)) errs.push(field.invalid(`${path}.endPort`, endPort, PORT_RANGE));
    }
  } else if (typeof p === "string") {
    if (endPort !== undefined)
      errs.push(field.invalid(`${path}.endPort`, endPort, "may not be specified when `port` is non-numeric"));
    for (const msg of isValidPortName(p)) errs.push(field.invalid(`${path}.port`, p, msg));
  } else if (endPort !== undefined) {
    errs.push(field.invalid(`${path}.endPort`, endPort, "may not be specified when `port` is not specified"));
  }
}

function validateIPBlock(errs: FieldError[], block: Json, path: string): void {
  const cidrText = str(block.cidr);
  if (cidrText === "") {
    requiredIfPresent(errs, block.cidr, `${path}.cidr`);
    return;
  }
  const cidr = parseCIDR(cidrText);
  if (!cidr) {
    errs.push(field.invalid(`${path}.cidr`, cidrText, "not a valid CIDR"));
    return;
  }
  const except = arr(block.except);
  for (let i = 0; i < except.length; i++) {
    const text = str(except[i]);
    const p = `${path}.except[${i}]`;
    const ex = parseCIDR(text);
    if (!ex) {
      errs.push(field.invalid(p, text, "not a valid CIDR"));
      return;
    }
    const exIP = ex.ip;
    const sameFamily = cidr.v4 === isV4(exIP);
    if (!sameFamily || !cidrContains(cidr, exIP) || cidr.bits >= ex.bits)
      errs.push(field.invalid(p, text, "must be a strict subset of `cidr`"));
  }
}

function validatePeer(errs: FieldError[], peer: Json, path: string): void {
  let count = 0;
  if (peer.podSelector != null) {
    count++;
    validateLabelSelector(errs, peer.podSelector, `${path}.podSelector`);
  }
  if (peer.namespaceSelector != null) {
    count++;
    validateLabelSelector(errs, peer.namespaceSelector, `${path}.namespaceSelector`);
  }
  const ipBlock = obj(peer.ipBlock);
  if (ipBlock) {
    count++;
    validateIPBlock(errs, ipBlock, `${path}.ipBlock`);
  }
  if (count === 0) errs.push(field.required(path, "must specify a peer"));
  else if (count > 1 && ipBlock)
    errs.push(field.forbidden(path, "may not specify both ipBlock and another peer"));
}

export function validateNetworkPolicy(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  validateLabelSelector(errs, spec.podSelector, "spec.podSelector");
  for (const [list, peersKey] of [
    ["ingress", "from"],
    ["egress", "to"],
  ] as const) {
    const rules = arr(spec[list]);
    for (let i = 0; i < rules.length; i++) {
      const rule = objOrEmpty(rules[i]);
      const p = `spec.${list}[${i}]`;
      const ports = arr(rule.ports);
      for (let j = 0; j < ports.length; j++)
        validateNetworkPolicyPort(errs, objOrEmpty(ports[j]), `${p}.ports[${j}]`);
      const peers = arr(rule[peersKey]);
      for (let j = 0; j < peers.length; j++)
        validatePeer(errs, objOrEmpty(peers[j]), `${p}.${peersKey}[${j}]`);
    }
  }
  const types = arr(spec.policyTypes);
  if (types.length > 2)
    errs.push(field.invalid("spec.policyTypes", types, "may not specify more than two policyTypes"));
  return errs;
}

// ---- EndpointSlice ----------------------------------------------------------------------------

const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;
const MAX_TOPOLOGY_LABELS = 16;
const MAX_ZONE_HINTS = 8;

function validateFQDN(errs: FieldError[], value: string, path: string): void {
  if (value === "") {
    errs.push(field.required(path));
    return;
  }
  const name = value.endsWith(".") ? value.slice(0, -1) : value;
  const subdomain = isDNS1123Subdomain(name);
  if (subdomain.length > 0) {
    errs.push(field.invalid(path, name, subdomain.join(",")));
    return;
  }
  const labels = name.split(".");
  if (labels.length < 2) {
    errs.push(field.invalid(path, name, "should be a domain with at least two segments separated by dots"));
    return;
  }
  for (const label of labels) {
    const msgs = isDNS1123Label(label);
    if (msgs.length > 0) {
      errs.push(field.invalid(path, label, msgs.join(",")));
      return;
    }
  }
}

export function validateEndpointSlice(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  // The address type (required, one of three) is the schema's to check.
  const addressType = str(object.addressType);
  const endpoints = arr(object.endpoints);
  if (endpoints.length > MAX_ENDPOINTS) {
    errs.push(tooMany("endpoints", endpoints.length, MAX_ENDPOINTS));
  } else {
    for (let i = 0; i < endpoints.length; i++) {
      const ep = objOrEmpty(endpoints[i]);
      const p = `endpoints[${i}]`;
      const addresses = arr(ep.addresses);
      if (addresses.length === 0)
        requiredIfPresent(errs, ep.addresses, `${p}.addresses`, "must contain at least 1 address");
      else if (addresses.length > MAX_ADDRESSES)
        errs.push(tooMany(`${p}.addresses`, addresses.length, MAX_ADDRESSES));
      for (let j = 0; j < addresses.length; j++) {
        const address = str(addresses[j]);
        const ap = `${p}.addresses[${j}]`;
        if (addressType === "IPv4" || addressType === "IPv6") {
          const ip = parseIP(address);
          const v4 = addressType === "IPv4";
          if (!ip || isV4(ip) !== v4)
            errs.push(field.invalid(ap, address, `must be a valid ${addressType} address`));
          validateNonSpecialIP(errs, address, ap);
        } else if (addressType === "FQDN") {
          validateFQDN(errs, address, ap);
        }
      }
      if (ep.nodeName != null) dnsSubdomain(errs, str(ep.nodeName), `${p}.nodeName`);
      const topology = obj(ep.deprecatedTopology);
      if (topology) {
        const count = Object.keys(topology).length;
        if (count > MAX_TOPOLOGY_LABELS)
          errs.push(tooMany(`${p}.deprecatedTopology`, count, MAX_TOPOLOGY_LABELS));
        validateLabelMap(errs, topology, `${p}.deprecatedTopology`);
      }
      if (ep.hostname != null) dnsLabel(errs, str(ep.hostname), `${p}.hostname`);
      const hints = obj(ep.hints);
      if (hints) {
        const zones = arr(hints.forZones);
        const hp = `${p}.hints.forZones`;
        if (zones.length > MAX_ZONE_HINTS) errs.push(tooMany(hp, zones.length, MAX_ZONE_HINTS));
        else {
          const seen = new Set<string>();
          for (let j = 0; j < zones.length; j++) {
            const zone = str(objOrEmpty(zones[j]).name);
            if (seen.has(zone)) errs.push(field.duplicate(`${hp}[${j}].name`, zone));
            else seen.add(zone);
            labelValue(errs, zone, `${hp}[${j}].name`);
          }
        }
      }
    }
  }
  const ports = arr(object.ports);
  if (ports.length > MAX_PORTS) {
    errs.push(tooMany("ports", ports.length, MAX_PORTS));
  } else {
    const names = new Set<string>();
    for (let i = 0; i < ports.length; i++) {
      const port = objOrEmpty(ports[i]);
      const p = `ports[${i}]`;
      const name = str(port.name);
      if (name !== "") dnsLabel(errs, name, `${p}.name`);
      if (names.has(name)) errs.push(field.duplicate(`${p}.name`, name));
      else names.add(name);
      if (port.appProtocol != null) qualifiedName(errs, str(port.appProtocol), `${p}.appProtocol`);
    }
  }
  return errs;
}

export function validateEndpointSliceUpdate(object: Json, old: Json): FieldError[] {
  const errs = validateEndpointSlice(object);
  immutable(errs, object.addressType, old.addressType, "addressType");
  return errs;
}
