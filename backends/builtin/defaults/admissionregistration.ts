// admissionregistration/v1 and v1alpha1 defaults as upstream 1.27 applies them: webhook failure
// and match policies, selectors that match everything, timeouts, reinvocation, rule scopes and
// webhook service ports; for validating admission policies their failure policy and match
// resources.
import { defaultPointer, isNil } from "./util.ts";
import type { TypeDefaulter } from "./walk.ts";

const WEBHOOK_TIMEOUT_SECONDS = 10;

/** A missing namespace or object selector is the empty selector, which selects everything. */
function matchEverything(object: Record<string, unknown>): void {
  if (isNil(object.namespaceSelector)) object.namespaceSelector = {};
  if (isNil(object.objectSelector)) object.objectSelector = {};
}

const validatingWebhook: TypeDefaulter = (webhook) => {
  defaultPointer(webhook, "failurePolicy", "Fail");
  defaultPointer(webhook, "matchPolicy", "Equivalent");
  matchEverything(webhook);
  defaultPointer(webhook, "timeoutSeconds", WEBHOOK_TIMEOUT_SECONDS);
};

const mutatingWebhook: TypeDefaulter = (webhook) => {
  validatingWebhook(webhook);
  defaultPointer(webhook, "reinvocationPolicy", "Never");
};

/** The admissionregistration defaulters by type id. */
export function admissionregistrationDefaulters(): Record<string, TypeDefaulter> {
  return {
    "admissionregistration/v1.ValidatingWebhook": validatingWebhook,
    "admissionregistration/v1.MutatingWebhook": mutatingWebhook,
    // Also the rules of validating admission policies, which reuse the v1 rule types.
    "admissionregistration/v1.Rule": (rule) => defaultPointer(rule, "scope", "*"),
    "admissionregistration/v1.ServiceReference": (service) => defaultPointer(service, "port", 443),
    "admissionregistration/v1alpha1.ValidatingAdmissionPolicySpec": (spec) =>
      defaultPointer(spec, "failurePolicy", "Fail"),
    "admissionregistration/v1alpha1.MatchResources": (match) => {
      defaultPointer(match, "matchPolicy", "Equivalent");
      matchEverything(match);
    },
  };
}
