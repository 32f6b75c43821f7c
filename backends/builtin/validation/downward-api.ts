// The downward API: which pod fields and container resources a container may read, through
// environment variables or files.
import { type FieldError, field } from "../../registry/field-error.ts";
import { quantityOf, quantityText } from "./resources.ts";
import { type Json, qualifiedName, requiredIfPresent, str } from "./util.ts";

/** The pod fields the downward API can convert (its own labels for v1 pods). */
const CONVERTIBLE = new Set([
  "metadata.annotations",
  "metadata.labels",
  "metadata.name",
  "metadata.namespace",
  "metadata.uid",
  "spec.nodeName",
  "spec.restartPolicy",
  "spec.serviceAccountName",
  "spec.schedulerName",
  "status.phase",
  "status.hostIP",
  "status.podIP",
  "status.podIPs",
]);

/** `path['key']` split into path and key, when the text is of that shape. */
function splitSubscript(fieldPath: string): [string, string] | undefined {
  if (!fieldPath.endsWith("']")) return undefined;
  const body = fieldPath.slice(0, -2);
  const open = body.indexOf("['");
  if (open <= 0) return undefined;
  return [body.slice(0, open), body.slice(open + 2)];
}

/** A fieldRef: a v1 pod field the given context supports, or a label/annotation by key. */
export function validateObjectFieldSelector(
  errs: FieldError[],
  ref: Json,
  supported: ReadonlySet<string>,
  path: string,
): void {
  const apiVersion = str(ref.apiVersion);
  const fieldPath = str(ref.fieldPath);
  if (apiVersion === "") {
    errs.push(field.required(`${path}.apiVersion`));
    return;
  }
  if (fieldPath === "") {
    requiredIfPresent(errs, ref.fieldPath, `${path}.fieldPath`);
    return;
  }
  let converted = fieldPath;
  let problem: string | undefined;
  const sub = splitSubscript(fieldPath);
  if (apiVersion !== "v1") problem = `unsupported pod version: ${apiVersion}`;
  else if (sub) {
    if (sub[0] !== "metadata.annotations" && sub[0] !== "metadata.labels")
      problem = `field label does not support subscript: ${fieldPath}`;
  } else if (fieldPath === "spec.host") converted = "spec.nodeName";
  else if (!CONVERTIBLE.has(fieldPath)) problem = `field label not supported: ${fieldPath}`;
  if (problem !== undefined) {
    errs.push(field.invalid(`${path}.fieldPath`, fieldPath, `error converting fieldPath: ${problem}`));
    return;
  }
  if (sub) {
    const key = sub[0] === "metadata.annotations" ? sub[1].toLowerCase() : sub[1];
    qualifiedName(errs, key, path);
  } else if (!supported.has(converted)) {
    errs.push(field.notSupported(`${path}.fieldPath`, converted, [...supported].sort()));
  }
}

const RESOURCE_FIELDS = [
  "limits.cpu",
  "limits.ephemeral-storage",
  "limits.memory",
  "requests.cpu",
  "requests.ephemeral-storage",
  "requests.memory",
];
const RESOURCE_FIELD_SET = new Set(RESOURCE_FIELDS);
const CPU_DIVISORS = new Set(["1m", "1"]);
const BYTE_DIVISORS = new Set([
  "1",
  "1k",
  "1M",
  "1G",
  "1T",
  "1P",
  "1E",
  "1Ki",
  "1Mi",
  "1Gi",
  "1Ti",
  "1Pi",
  "1Ei",
]);
const BYTE_DIVISOR_LIST = "1, 1k, 1M, 1G, 1T, 1P, 1E, 1Ki, 1Mi, 1Gi, 1Ti, 1Pi, 1Ei";

/** A resourceFieldRef: a container resource (files must also name the container). */
export function validateResourceFieldSelector(
  errs: FieldError[],
  ref: Json,
  path: string,
  volume: boolean,
): void {
  const resource = str(ref.resource);
  if (volume && str(ref.containerName) === "") errs.push(field.required(`${path}.containerName`));
  else if (resource === "") requiredIfPresent(errs, ref.resource, `${path}.resource`);
  else if (
    !RESOURCE_FIELD_SET.has(resource) &&
    !resource.startsWith("requests.hugepages-") &&
    !resource.startsWith("limits.hugepages-")
  )
    errs.push(field.notSupported(`${path}.resource`, resource, RESOURCE_FIELDS));
  if (ref.divisor === undefined || ref.divisor === null) return;
  // The allowed divisors are canonical spellings: as written they need no parsing.
  let text = typeof ref.divisor === "string" && BYTE_DIVISORS.has(ref.divisor) ? ref.divisor : "";
  if (text === "" || ref.divisor === "1m") {
    const divisor = quantityOf(ref.divisor);
    if (!divisor || divisor.unscaled === 0n) return;
    text = quantityText(divisor);
  }
  const bad = (message: string) => errs.push(field.invalid(`${path}.divisor`, resource, message));
  switch (resource) {
    case "limits.cpu":
    case "requests.cpu":
      if (!CPU_DIVISORS.has(text)) bad("only divisor's values 1m and 1 are supported with the cpu resource");
      break;
    case "limits.memory":
    case "requests.memory":
      if (!BYTE_DIVISORS.has(text))
        bad(`only divisor's values ${BYTE_DIVISOR_LIST} are supported with the memory resource`);
      break;
    case "limits.ephemeral-storage":
    case "requests.ephemeral-storage":
      if (!BYTE_DIVISORS.has(text))
        bad(
          `only divisor's values ${BYTE_DIVISOR_LIST} are supported with the local ephemeral storage resource`,
        );
      break;
  }
  if (
    (resource.startsWith("requests.hugepages-") || resource.startsWith("limits.hugepages-")) &&
    !BYTE_DIVISORS.has(text)
  )
    bad(`only divisor's values ${BYTE_DIVISOR_LIST} are supported with the hugepages resource`);
}
