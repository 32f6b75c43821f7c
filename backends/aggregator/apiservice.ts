// An APIService as routing reads it: the group/version it claims and, for a remote one, the
// Service that serves it and how to trust that Service.
import { asObject, asString, type JsonObject } from "../common/json.ts";

export interface ApiServiceEntry {
  /** `<version>.<group>` */
  readonly name: string;
  readonly group: string;
  readonly version: string;
  /** Absent: the gateway serves the group/version itself. */
  readonly service?: { readonly namespace: string; readonly name: string; readonly port: number };
  /** PEM of `spec.caBundle`; absent: the system roots. */
  readonly caPem?: string;
  readonly insecure: boolean;
  readonly groupPriorityMinimum: number;
  readonly versionPriority: number;
}

/** The entry of an APIService object; undefined when it names no group version. */
export function readApiService(object: JsonObject): ApiServiceEntry | undefined {
  const name = asString(asObject(object.metadata)?.name);
  const spec = asObject(object.spec) ?? {};
  const version = asString(spec.version);
  if (name === "" || version === "") return undefined;
  const service = asObject(spec.service);
  const caBundle = asString(spec.caBundle);
  return {
    name,
    group: asString(spec.group),
    version,
    ...(service
      ? {
          service: {
            namespace: asString(service.namespace),
            name: asString(service.name),
            port: typeof service.port === "number" ? service.port : 443,
          },
        }
      : {}),
    ...(caBundle ? { caPem: Buffer.from(caBundle, "base64").toString("utf8") } : {}),
    insecure: spec.insecureSkipTLSVerify === true,
    groupPriorityMinimum: typeof spec.groupPriorityMinimum === "number" ? spec.groupPriorityMinimum : 0,
    versionPriority: typeof spec.versionPriority === "number" ? spec.versionPriority : 0,
  };
}
