// APIServices: the name is `<version>.<group>`, priorities in range, a Service reference that can
// be reached, TLS settings that agree, and condition statuses from the fixed set, as upstream's
// aggregator validates them. Beyond upstream, a caBundle must hold PEM certificates (issue 18): a
// bundle that cannot verify anything is refused when written, not when the proxy first uses it.
import { X509Certificate } from "node:crypto";
import { type FieldError, field } from "../../registry/field-error.ts";
import { isDNS1035Label, isDNS1123Subdomain, isValidPathSegmentName } from "../../validation/names.ts";
import { arr, inclusiveRange, type Json, num, obj, objOrEmpty, str } from "./util.ts";

const GROUP_PRIORITY_MAX = 20000;
const VERSION_PRIORITY_MAX = 1000;
const CONDITION_STATUSES = ["True", "False", "Unknown"] as const;

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([\s\S]*?)-----END \1-----/g;

/** What is wrong with a CA bundle's bytes, or undefined when every PEM block is a certificate. */
export function caBundleProblem(bundle: Buffer): string | undefined {
  const blocks = [...bundle.toString("latin1").matchAll(PEM_BLOCK)];
  if (blocks.length === 0) return "must contain at least one PEM-encoded CERTIFICATE block";
  for (const [text, type] of blocks) {
    if (type !== "CERTIFICATE") return `PEM block type must be CERTIFICATE, not ${type}`;
    try {
      new X509Certificate(text);
    } catch {
      return "x509: malformed certificate";
    }
  }
  return undefined;
}

/** The rules of an APIService on create and on update (upstream checks both alike). */
export function validateAPIService(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const spec = objOrEmpty(object.spec);
  const group = str(spec.group);
  const version = str(spec.version);
  const required = `${version}.${group}`;
  const name = str(objOrEmpty(object.metadata).name);
  // The name's own format is checked with the metadata; only a well-formed name is compared.
  if (name !== "" && isValidPathSegmentName(name).length === 0 && name !== required) {
    errs.push(field.invalid("metadata.name", name, `must be \`spec.version+"."+spec.group\`: "${required}"`));
  }
  if (group === "" && version !== "v1") {
    errs.push(field.required("spec.group", "only v1 may have an empty group and it better be legacy kube"));
  }
  if (group !== "")
    for (const msg of isDNS1123Subdomain(group)) errs.push(field.invalid("spec.group", group, msg));
  for (const msg of isDNS1035Label(version)) errs.push(field.invalid("spec.version", version, msg));
  // Absent priorities are reported as required by the schema.
  const groupPriority = num(spec.groupPriorityMinimum);
  if (groupPriority !== undefined && (groupPriority <= 0 || groupPriority > GROUP_PRIORITY_MAX)) {
    errs.push(
      field.invalid(
        "spec.groupPriorityMinimum",
        groupPriority,
        `must be positive and less than ${GROUP_PRIORITY_MAX}`,
      ),
    );
  }
  const versionPriority = num(spec.versionPriority);
  if (versionPriority !== undefined && (versionPriority <= 0 || versionPriority > VERSION_PRIORITY_MAX)) {
    errs.push(
      field.invalid(
        "spec.versionPriority",
        versionPriority,
        `must be positive and less than ${VERSION_PRIORITY_MAX}`,
      ),
    );
  }
  const caBundle = Buffer.from(str(spec.caBundle), "base64");
  const insecure = spec.insecureSkipTLSVerify === true;
  const service = obj(spec.service);
  if (!service) {
    if (caBundle.length > 0) {
      errs.push(
        field.invalid(
          "spec.caBundle",
          `${caBundle.length} bytes`,
          "local APIServices may not have a caBundle",
        ),
      );
    }
    if (insecure) {
      errs.push(
        field.invalid(
          "spec.insecureSkipTLSVerify",
          true,
          "local APIServices may not have insecureSkipTLSVerify",
        ),
      );
    }
    return errs;
  }
  if (str(service.namespace) === "") errs.push(field.required("spec.service.namespace", ""));
  if (str(service.name) === "") errs.push(field.required("spec.service.name", ""));
  const port = num(service.port) ?? 0;
  if (port < 1 || port > 65535) {
    errs.push(field.invalid("spec.service.port", port, `port is not valid: ${inclusiveRange(1, 65535)}`));
  }
  if (insecure && caBundle.length > 0) {
    errs.push(field.invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"));
  }
  const problem = caBundle.length > 0 ? caBundleProblem(caBundle) : undefined;
  if (problem) errs.push(field.invalid("spec.caBundle", `${caBundle.length} bytes`, problem));
  return errs;
}

/** The rules of a write through the status subresource: each condition's status is a known one. */
export function validateAPIServiceStatus(object: Json): FieldError[] {
  const errs: FieldError[] = [];
  const conditions = arr(objOrEmpty(object.status).conditions);
  for (let i = 0; i < conditions.length; i++) {
    const status = str(objOrEmpty(conditions[i]).status);
    if (!(CONDITION_STATUSES as readonly string[]).includes(status)) {
      errs.push(field.notSupported(`status.conditions[${i}].status`, status, CONDITION_STATUSES));
    }
  }
  return errs;
}
