// A webhook's matchConditions (gate AdmissionWebhookMatchConditions): CEL expressions over
// `object`, `oldObject`, `request` and `authorizer`, all of which must hold for the webhook to be
// called. A false condition skips the webhook; an error with no false condition is settled by
// failurePolicy.

import { PER_CALL_LIMIT, type Program } from "../../../backends/cel/index.ts";
import type { Authorizer } from "../../authorization/index.ts";
import { AdmissionEvaluator, AuthorizationSession, compileAdmission, requestValue } from "../cel/index.ts";
import { type Attributes, objectAtVersion } from "../index.ts";
import type { MatchCondition } from "./hooks.ts";

export type ConditionOutcome = { readonly matched: boolean } | { readonly error: string };

const programs = new Map<string, { program?: Program; error?: string }>();

function compiled(expression: string): { program?: Program; error?: string } {
  let entry = programs.get(expression);
  if (!entry) {
    const result = compileAdmission(expression, "bool");
    entry = result.ok ? { program: result.program } : { error: result.error.message };
    // Expressions come from stored configurations: a bounded set, but bound it anyway.
    if (programs.size > 4096) programs.clear();
    programs.set(expression, entry);
  }
  return entry;
}

export async function evaluateConditions(
  conditions: readonly MatchCondition[],
  a: Attributes,
  version: string,
  authorizer: Authorizer,
): Promise<ConditionOutcome> {
  const evaluator = new AdmissionEvaluator(
    a,
    {
      object: objectAtVersion(a, a.object, version),
      oldObject: objectAtVersion(a, a.oldObject, version),
      request: requestValue(a, version),
      params: null,
    },
    new AuthorizationSession(authorizer),
  );
  const errors: string[] = [];
  for (const condition of conditions) {
    const c = compiled(condition.expression);
    if (!c.program) {
      errors.push(`compilation failed for expression '${condition.name}': ${c.error}`);
      continue;
    }
    const result = await evaluator.evaluate(c.program, PER_CALL_LIMIT);
    if (!result.ok) errors.push(`expression '${condition.name}' resulted in error: ${result.error.message}`);
    else if (result.value === false) return { matched: false };
  }
  return errors.length > 0 ? { error: errors.join(", ") } : { matched: true };
}
