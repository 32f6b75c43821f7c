// The CEL environment of admission expressions (policies' validations and webhooks'
// matchConditions): `object`, `oldObject`, `request`, `params` and `authorizer`, dynamically typed
// at run time; typed by the matched kind's schema when a policy is type-checked.
import {
  type CelEnvironment,
  type CompileResult,
  compile,
  createEnvironment,
  type DeclType,
  DYN,
  declTypeFromSchema,
  dynValue,
  type EvaluationResult,
  evaluate,
  type Program,
} from "../../../backends/cel/index.ts";
import type { Attributes, JsonObject } from "../index.ts";
import {
  AUTHORIZER_FUNCTIONS,
  AUTHORIZER_TYPE,
  AUTHORIZER_TYPES,
  type AuthorizationSession,
  authorizerValue,
} from "./authorizer-library.ts";

export { AuthorizationSession } from "./authorizer-library.ts";

const environments = new Map<string, CelEnvironment>();

/**
 * The environment with `object`/`oldObject` (and `params`) typed by schemas, or dynamic.
 * messageExpressions get no `authorizer` (upstream declares it for validations only).
 */
export function admissionEnvironment(
  objectSchema?: unknown,
  paramsSchema?: unknown,
  withAuthorizer = true,
): CelEnvironment {
  const typed = (schema: unknown): DeclType =>
    schema ? (declTypeFromSchema(schema as Parameters<typeof declTypeFromSchema>[0], false) ?? DYN) : DYN;
  const dynamic = objectSchema === undefined && paramsSchema === undefined;
  const cacheKey = withAuthorizer ? "dyn" : "dyn-no-authorizer";
  if (dynamic) {
    const cached = environments.get(cacheKey);
    if (cached) return cached;
  }
  const objectType = typed(objectSchema);
  const env = createEnvironment({
    variables: {
      object: objectType,
      oldObject: objectType,
      request: DYN,
      params: typed(paramsSchema),
      ...(withAuthorizer ? { authorizer: AUTHORIZER_TYPE } : {}),
    },
    types: AUTHORIZER_TYPES,
    functions: AUTHORIZER_FUNCTIONS,
  });
  if (dynamic) environments.set(cacheKey, env);
  return env;
}

export function compileAdmission(
  expression: string,
  resultType?: "bool" | "string",
  withAuthorizer = true,
): CompileResult {
  return compile(
    expression,
    admissionEnvironment(undefined, undefined, withAuthorizer),
    resultType ? { resultType } : {},
  );
}

/**
 * The `request` variable: upstream's AdmissionRequest fields. 1.27 fills kind and resource with the
 * request's own, whatever version the rules matched at (`_version` is kept for callers that pass it).
 */
export function requestValue(a: Attributes, _version?: string): JsonObject {
  const u = a.user;
  return {
    kind: { ...a.kind },
    resource: { ...a.resource },
    subResource: a.subresource,
    requestKind: { ...a.kind },
    requestResource: { ...a.resource },
    requestSubResource: a.subresource,
    name: a.name,
    namespace: a.namespace,
    operation: a.operation,
    userInfo: { username: u.username, uid: u.uid, groups: [...u.groups], extra: u.extra },
    dryRun: a.dryRun,
    options: a.options ?? null,
  };
}

/** What one request's expressions see. */
export interface AdmissionActivation {
  readonly object: JsonObject | null;
  readonly oldObject: JsonObject | null;
  readonly request: JsonObject;
  readonly params: unknown;
}

/** Evaluates programs for one request, resolving authorizer checks as they come up. */
export class AdmissionEvaluator {
  readonly #variables: Record<string, unknown>;
  readonly #session: AuthorizationSession;

  constructor(a: Attributes, activation: AdmissionActivation, session: AuthorizationSession) {
    this.#session = session;
    this.#variables = {
      object: dynValue(activation.object),
      oldObject: dynValue(activation.oldObject),
      request: dynValue(activation.request),
      params: dynValue(activation.params ?? null),
      authorizer: authorizerValue(session, a.user, {
        group: a.resource.group,
        resource: a.resource.resource,
        subresource: a.subresource,
        namespace: a.namespace,
        name: a.name,
      }),
    };
  }

  /** Evaluates under `costBudget`; repeats while authorizer checks were waiting for answers. */
  async evaluate(program: Program, costBudget: number): Promise<EvaluationResult> {
    for (let round = 0; ; round++) {
      const result = evaluate(program, this.#variables, { costBudget });
      if (!this.#session.hasPending || round >= 16) return result;
      await this.#session.resolve();
    }
  }
}
