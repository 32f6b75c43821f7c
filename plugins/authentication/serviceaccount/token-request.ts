// TokenRequest: POST .../namespaces/<ns>/serviceaccounts/<name>/token returns a signed,
// time-limited token for the account, optionally bound to a Secret or Pod of the namespace, as
// upstream's `token` subresource does. Failures are RegistryErrors (NotFound, BadRequest,
// Invalid with field causes, Conflict), which the gateway already maps to Status objects.

import { asString as str } from "../../../backends/common/json.ts";
import type { Naming } from "../../../backends/naming/index.ts";
import { type FieldError, field, type JsonObject, RegistryError } from "../../../backends/registry/index.ts";
import type { ApiObject, ObjectAccess } from "../../objects/index.ts";
import { boundTokenClaims, type ObjectRef } from "./claims.ts";
import type { ServiceAccountTokenSigner } from "./signer.ts";

export interface TokenRequestSettings {
  readonly naming: Naming;
  /** The first `--service-account-issuer`: tokens are issued under it. */
  readonly issuer: string;
  /** `--api-audiences`: the audiences of a request that names none. */
  readonly apiAudiences: readonly string[];
  /** `--service-account-max-token-expiration` in milliseconds; 0 means no cap. */
  readonly maxExpirationMs: number;
  /** Milliseconds since the epoch; tests move the clock. */
  readonly now?: () => number;
}

export interface TokenRequestResult {
  /** The TokenRequest (`authentication.<domain>/v1`) with `status.token` filled. */
  readonly tokenRequest: JsonObject;
  /** Warnings for the client (`Warning` headers), e.g. a shortened expiration. */
  readonly warnings: readonly string[];
}

export const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

const SERVICE_ACCOUNTS = { group: "", resource: "serviceaccounts", kind: "ServiceAccount" };
const BINDABLE: Record<string, { group: string; resource: string; kind: string }> = {
  Pod: { group: "", resource: "pods", kind: "Pod" },
  Secret: { group: "", resource: "secrets", kind: "Secret" },
};

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** RFC 3339 with whole seconds, as API timestamps are written. */
function timestamp(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function uidOf(object: ApiObject): string {
  return object.metadata.uid ?? "";
}

/** Go's GroupVersionKind.String() for an apiVersion and kind. */
function gvkText(apiVersion: string, kind: string): { group: string; text: string } {
  const slash = apiVersion.indexOf("/");
  const group = slash >= 0 ? apiVersion.slice(0, slash) : "";
  const version = slash >= 0 ? apiVersion.slice(slash + 1) : apiVersion;
  return { group, text: `${group}/${version}, Kind=${kind}` };
}

export async function createTokenRequest(
  access: ObjectAccess,
  signer: ServiceAccountTokenSigner,
  settings: TokenRequestSettings,
  namespace: string,
  name: string,
  body: JsonObject,
): Promise<TokenRequestResult> {
  const { naming } = settings;
  const group = naming.group("authentication");
  const target = { group, resource: "tokenrequests", kind: "TokenRequest" };
  const badRequest = (message: string) => new RegistryError("BadRequest", target, name, message);
  const invalid = (objectName: string, causes: FieldError[]) =>
    new RegistryError("Invalid", target, objectName, causes.map((c) => c.field).join(", "), causes);

  const metadata = isObject(body.metadata) ? body.metadata : {};
  if (str(metadata.name) !== "" && metadata.name !== name) {
    throw invalid(name, [
      field.invalid("metadata.name", metadata.name, "must match the service account name if specified"),
    ]);
  }
  if (str(metadata.namespace) !== "" && metadata.namespace !== namespace) {
    throw invalid(name, [
      field.invalid(
        "metadata.namespace",
        metadata.namespace,
        "must match the service account namespace if specified",
      ),
    ]);
  }
  if (body.spec !== undefined && body.spec !== null && !isObject(body.spec)) {
    throw badRequest("spec: expected an object");
  }
  const spec = isObject(body.spec) ? body.spec : {};

  const account = await access.get(SERVICE_ACCOUNTS, namespace, name);
  if (!account)
    throw new RegistryError("NotFound", SERVICE_ACCOUNTS, name, `serviceaccounts "${name}" not found`);

  let audiences: string[];
  if (spec.audiences === undefined || spec.audiences === null) audiences = [];
  else if (Array.isArray(spec.audiences) && spec.audiences.every((a) => typeof a === "string")) {
    audiences = spec.audiences as string[];
  } else throw badRequest("spec.audiences: expected a list of strings");
  if (audiences.length === 0) audiences = [...settings.apiAudiences];

  let expirationSeconds: number;
  if (spec.expirationSeconds === undefined || spec.expirationSeconds === null) {
    expirationSeconds = DEFAULT_EXPIRATION_SECONDS;
  } else if (typeof spec.expirationSeconds === "number" && Number.isInteger(spec.expirationSeconds)) {
    expirationSeconds = spec.expirationSeconds;
  } else throw badRequest("spec.expirationSeconds: expected an integer");

  const errs: FieldError[] = [];
  if (expirationSeconds < MIN_EXPIRATION_SECONDS) {
    errs.push(
      field.invalid(
        "spec.expirationSeconds",
        expirationSeconds,
        "may not specify a duration less than 10 minutes",
      ),
    );
  }
  if (expirationSeconds > MAX_EXPIRATION_SECONDS) {
    errs.push(
      field.invalid(
        "spec.expirationSeconds",
        expirationSeconds,
        "may not specify a duration larger than 2^32 seconds",
      ),
    );
  }
  if (errs.length > 0) throw invalid("", errs);

  let pod: ObjectRef | undefined;
  let secret: ObjectRef | undefined;
  let boundObjectRef: JsonObject | undefined;
  if (spec.boundObjectRef !== undefined && spec.boundObjectRef !== null) {
    if (!isObject(spec.boundObjectRef)) throw badRequest("spec.boundObjectRef: expected an object");
    const ref = spec.boundObjectRef;
    const kind = str(ref.kind);
    const apiVersion = str(ref.apiVersion);
    const refName = str(ref.name);
    const refUid = str(ref.uid);
    const gvk = gvkText(apiVersion, kind);
    const bindable = gvk.group === "" ? BINDABLE[kind] : undefined;
    if (!bindable) throw badRequest(`cannot bind token to object of type ${gvk.text}`);
    const object = refName === "" ? undefined : await access.get(bindable, namespace, refName);
    if (!object) {
      throw new RegistryError("NotFound", bindable, refName, `${bindable.resource} "${refName}" not found`);
    }
    if (kind === "Pod") {
      const podSpec = isObject(object.spec) ? object.spec : {};
      if (str(podSpec.serviceAccountName) !== name) {
        throw badRequest(
          `cannot bind token for serviceaccount "${name}" to pod running with different serviceaccount name.`,
        );
      }
    }
    const uid = uidOf(object);
    if (refUid !== "" && refUid !== uid) {
      throw new RegistryError(
        "Conflict",
        { group: "", resource: kind, kind },
        refName,
        `the UID in the bound object reference (${refUid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
    if (kind === "Pod") pod = { name: refName, uid };
    else secret = { name: refName, uid };
    boundObjectRef = { kind, apiVersion, name: refName, ...(refUid ? { uid: refUid } : {}) };
  }

  const warnings: string[] = [];
  const maxSeconds = Math.floor(settings.maxExpirationMs / 1000);
  if (maxSeconds > 0 && expirationSeconds > maxSeconds) {
    warnings.push(`requested expiration of ${expirationSeconds} seconds shortened to ${maxSeconds} seconds`);
    expirationSeconds = maxSeconds;
  }

  const issuedAt = Math.floor((settings.now ?? Date.now)() / 1000);
  const token = await signer.sign(
    boundTokenClaims(naming, {
      issuer: settings.issuer,
      audiences,
      issuedAt,
      expirationSeconds,
      namespace,
      serviceAccount: { name, uid: uidOf(account) },
      ...(pod ? { pod } : {}),
      ...(secret ? { secret } : {}),
    }),
  );
  return {
    tokenRequest: {
      kind: "TokenRequest",
      apiVersion: `${group}/v1`,
      metadata: { name, namespace, creationTimestamp: timestamp(issuedAt) },
      spec: {
        audiences,
        expirationSeconds,
        ...(boundObjectRef ? { boundObjectRef } : {}),
      },
      status: { token, expirationTimestamp: timestamp(issuedAt + expirationSeconds) },
    },
    warnings,
  };
}
