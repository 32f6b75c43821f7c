// DeleteOptions as upstream reads them: from the body when there is one (its JSON types checked
// as Go's decoder checks them; any group's DeleteOptions kind is accepted), otherwise from the
// query (integers and booleans parsed as Go's strconv parses them), then upstream's checks of
// the combination. A value that does not parse is refused, never read as "unset": a careless
// `orphanDependents=maybe` must not delete anything.
import { builtinCatalog, type DecodeCheck, DecodeChecks } from "../../backends/catalog/index.ts";
import type { FieldError } from "../../backends/registry/index.ts";
import { errors } from "../request/api-error.ts";

export interface DeleteOptionsBody {
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly dryRun?: boolean;
  readonly propagationPolicy?: string;
  readonly gracePeriodSeconds?: number;
  /** The deprecated flag; `false` asks for a 202 when the object is not gone at once. */
  readonly orphanDependents?: boolean;
}

interface RawOptions {
  gracePeriodSeconds?: number;
  preconditions?: { uid?: string; resourceVersion?: string };
  orphanDependents?: boolean;
  propagationPolicy?: string;
  dryRun?: readonly string[];
}

const POLICIES = ["Foreground", "Background", "Orphan"];

let bodyCheck: DecodeCheck | undefined;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** The options a request body holds. `metaGroup` is the meta group's name under the preset. */
function fromBody(body: unknown, metaGroup: string): RawOptions {
  if (!isObject(body)) throw errors.badRequest("DeleteOptions must be a JSON object");
  const kind = body.kind;
  if (kind !== undefined && kind !== "" && kind !== "DeleteOptions") {
    const version =
      typeof body.apiVersion === "string" && body.apiVersion ? body.apiVersion : `${metaGroup}/v1`;
    throw errors.badRequest(
      `no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(version)}`,
    );
  }
  bodyCheck ??= new DecodeChecks(builtinCatalog()).forType("meta/v1.DeleteOptions");
  const mismatch = bodyCheck(body);
  if (mismatch) throw errors.badRequest(mismatch);
  const pre = isObject(body.preconditions) ? body.preconditions : undefined;
  const out: RawOptions = {};
  if (typeof body.gracePeriodSeconds === "number") out.gracePeriodSeconds = body.gracePeriodSeconds;
  if (pre) {
    out.preconditions = {
      ...(typeof pre.uid === "string" ? { uid: pre.uid } : {}),
      ...(typeof pre.resourceVersion === "string" ? { resourceVersion: pre.resourceVersion } : {}),
    };
  }
  if (typeof body.orphanDependents === "boolean") out.orphanDependents = body.orphanDependents;
  if (typeof body.propagationPolicy === "string") out.propagationPolicy = body.propagationPolicy;
  if (Array.isArray(body.dryRun)) out.dryRun = body.dryRun as string[];
  return out;
}

/** strconv.ParseInt(s, 10, 64) as upstream's query conversion calls it. */
function parseInt64(value: string): number {
  if (!/^[+-]?[0-9]+$/.test(value))
    throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  const n = BigInt(value);
  if (n < -(2n ** 63n) || n > 2n ** 63n - 1n)
    throw errors.badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: value out of range`);
  return Number(n);
}

const TRUE_WORDS = new Set(["1", "t", "T", "TRUE", "true", "True"]);
const FALSE_WORDS = new Set(["0", "f", "F", "FALSE", "false", "False"]);

/** strconv.ParseBool. */
function parseBool(value: string): boolean {
  if (TRUE_WORDS.has(value)) return true;
  if (FALSE_WORDS.has(value)) return false;
  throw errors.badRequest(`strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

/** The options the query holds (first value of each, as upstream's conversion takes it). */
function fromQuery(query: URLSearchParams): RawOptions {
  const out: RawOptions = {};
  const grace = query.get("gracePeriodSeconds");
  if (grace !== null) out.gracePeriodSeconds = parseInt64(grace);
  const orphan = query.get("orphanDependents");
  if (orphan !== null) out.orphanDependents = parseBool(orphan);
  const policy = query.get("propagationPolicy");
  if (policy !== null) out.propagationPolicy = policy;
  const dryRun = query.getAll("dryRun");
  if (dryRun.length > 0) out.dryRun = dryRun;
  return out;
}

/**
 * Read a delete's options: the body's when `bodyValue` is given (upstream then ignores the query),
 * else the query's. Throws the 400 or 422 upstream answers.
 */
export function readDeleteOptions(
  bodyValue: unknown,
  query: URLSearchParams,
  metaGroup: string,
): DeleteOptionsBody {
  const raw = bodyValue === undefined ? fromQuery(query) : fromBody(bodyValue, metaGroup);
  const causes: FieldError[] = [];
  if (raw.orphanDependents !== undefined && raw.propagationPolicy !== undefined)
    causes.push({
      field: "propagationPolicy",
      type: "FieldValueInvalid",
      value: raw.propagationPolicy,
      detail: "orphanDependents and deletionPropagation cannot be both set",
    });
  if (raw.propagationPolicy !== undefined && !POLICIES.includes(raw.propagationPolicy))
    causes.push({
      field: "propagationPolicy",
      type: "FieldValueNotSupported",
      value: raw.propagationPolicy,
      supported: [...POLICIES, "nil"],
    });
  if (raw.dryRun?.some((v) => v !== "All"))
    causes.push({ field: "dryRun", type: "FieldValueNotSupported", value: raw.dryRun, supported: ["All"] });
  if (causes.length > 0) throw errors.invalid({ group: metaGroup, kind: "DeleteOptions" }, "", causes);
  // Upstream takes a negative grace period as one second.
  const grace = raw.gracePeriodSeconds;
  return {
    ...(raw.orphanDependents !== undefined ? { orphanDependents: raw.orphanDependents } : {}),
    ...(raw.preconditions ? { preconditions: raw.preconditions } : {}),
    ...(raw.dryRun?.includes("All") ? { dryRun: true } : {}),
    ...(raw.propagationPolicy !== undefined ? { propagationPolicy: raw.propagationPolicy } : {}),
    ...(grace !== undefined ? { gracePeriodSeconds: grace < 0 ? 1 : grace } : {}),
  };
}
