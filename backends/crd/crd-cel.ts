// The CEL side of validating a CRD's schema, as upstream does it on create and update:
// - every x-kubernetes-validations rule (and messageExpression) compiles against the type of the
//   schema it sits on; its estimated cost, times how often it may run per object, fits the
//   per-rule limit; all rules of the schema together fit the per-schema limit;
// - `oldSelf` is only used where old and new values correlate (not below the items of a list
//   that is not x-kubernetes-list-type=map);
// - every default satisfies the rules of its schema.
import {
  type CelSchema,
  childCardinality,
  compileRule,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from "../cel/index.ts";
import { asObject, type JsonObject } from "../common/json.ts";
import { type FieldError, field } from "../registry/field-error.ts";
import { celValidator, ruleSpecs, runCelValidator } from "./cel-validator.ts";

export interface RuleCost {
  readonly path: string;
  readonly cost: number;
}

export interface CelRuleCheck {
  readonly errors: FieldError[];
  /** Sum of the estimated costs of every rule and messageExpression. */
  readonly total: number;
  /** The (at most four) most expensive rules costing at least 1% of the per-schema limit. */
  readonly mostExpensive: readonly RuleCost[];
}

class TotalCost {
  total = 0;
  mostExpensive: RuleCost[] = [];

  observe(path: string, cost: number): void {
    this.total += cost;
    if (cost < STATIC_ESTIMATED_CRD_COST_LIMIT / 100) return;
    this.mostExpensive.push({ path, cost });
    this.mostExpensive.sort((a, b) => b.cost - a.cost);
    if (this.mostExpensive.length > 4) this.mostExpensive.length = 4;
  }
}

function embedded(s: JsonObject): boolean {
  return s["x-kubernetes-embedded-resource"] === true;
}

/**
 * Compiles and costs the rules of `schema` (a CRD version's openAPIV3Schema at `schemaPath`).
 * `blocked(path)` says a node has schema errors at or below it, so its rules are not looked at.
 * Errors come children first, then the node's own, as upstream appends them.
 */
export function celRuleErrors(
  schema: JsonObject,
  schemaPath: string,
  blocked: (path: string) => boolean,
): CelRuleCheck {
  const errors: FieldError[] = [];
  const cost = new TotalCost();
  const walk = (
    s: JsonObject,
    path: string,
    isResourceRoot: boolean,
    cardinality: number | "unbounded",
    uncorrelatable: string | undefined,
  ): void => {
    const celSchema = s as CelSchema;
    const ap = asObject(s.additionalProperties);
    if (ap)
      walk(
        ap,
        `${path}.additionalProperties`,
        embedded(ap),
        childCardinality(cardinality, celSchema, "additionalProperties"),
        uncorrelatable,
      );
    const props = asObject(s.properties);
    if (props)
      for (const [k, p] of Object.entries(props)) {
        const ps = asObject(p);
        if (ps)
          walk(
            ps,
            `${path}.properties[${k}]`,
            embedded(ps),
            childCardinality(cardinality, celSchema, "properties"),
            uncorrelatable,
          );
      }
    const items = asObject(s.items);
    if (items)
      walk(
        items,
        `${path}.items`,
        embedded(items),
        childCardinality(cardinality, celSchema, "items"),
        uncorrelatable ?? (s["x-kubernetes-list-type"] === "map" ? undefined : path),
      );

    const specs = ruleSpecs(s);
    if (specs.length === 0 || blocked(path)) return;
    const rawRules = Array.isArray(s["x-kubernetes-validations"]) ? s["x-kubernetes-validations"] : [];
    specs.forEach((spec, i) => {
      const at = `${path}.x-kubernetes-validations[${i}]`;
      const raw = rawRules[i];
      const compiled = compileRule(spec, { schema: celSchema, isResourceRoot, maxCardinality: cardinality });
      if (compiled.costError !== undefined) errors.push(field.forbidden(`${at}.rule`, compiled.costError));
      cost.observe(`${at}.rule`, compiled.estimatedCost);
      if (compiled.error !== undefined) errors.push(field.invalid(`${at}.rule`, raw, compiled.error.message));
      if (compiled.messageExpressionError !== undefined) {
        errors.push(field.invalid(`${at}.messageExpression`, raw, compiled.messageExpressionError.message));
      } else if (compiled.messageProgram !== undefined) {
        if (compiled.messageExpressionCostError !== undefined)
          errors.push(field.forbidden(`${at}.messageExpression`, compiled.messageExpressionCostError));
        cost.observe(`${at}.messageExpression`, compiled.messageExpressionMaxCost);
      }
      if (compiled.usesOldSelf && uncorrelatable !== undefined)
        errors.push(
          field.invalid(
            `${at}.rule`,
            spec.rule,
            `oldSelf cannot be used on the uncorrelatable portion of the schema within ${uncorrelatable}`,
          ),
        );
    });
  };
  walk(schema, schemaPath, true, 1, undefined);
  return { errors, total: cost.total, mostExpensive: cost.mostExpensive };
}

/**
 * Every default value checked against the rules of its own schema (with `self` and `oldSelf` both
 * the default), errors under `<schema path>.default`. One runtime budget covers all defaults.
 */
export function defaultCelErrors(schema: JsonObject, schemaPath: string): FieldError[] {
  const errors: FieldError[] = [];
  let budget = RUNTIME_CEL_COST_BUDGET;
  const walk = (s: JsonObject, path: string, isResourceRoot: boolean): boolean => {
    const resourceRoot = isResourceRoot || embedded(s);
    const value = s.default;
    if (value !== undefined && value !== null) {
      const v = celValidator(s, resourceRoot);
      if (v) {
        budget = runCelValidator(v, `${path}.default`, value, value, budget, errors);
        if (budget < 0) return false;
      }
    }
    const items = asObject(s.items);
    if (items && !walk(items, `${path}.items`, false)) return false;
    const props = asObject(s.properties);
    if (props)
      for (const [k, p] of Object.entries(props)) {
        const ps = asObject(p);
        if (ps && !walk(ps, `${path}.properties[${k}]`, false)) return false;
      }
    return true;
  };
  walk(schema, schemaPath, true);
  return errors;
}
