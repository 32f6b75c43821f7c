// Table columns of the admissionregistration group: webhook configurations and (v1alpha1)
// validating admission policies with their bindings.
import type { TableColumn } from "../../schema/resource-schema.ts";
import { age, arr, asObject, col, type GroupColumns, spec, str } from "./helpers.ts";

const webhookColumns = (): TableColumn[] => [
  col(
    "integer",
    "Webhooks",
    "How many webhooks the configuration registers.",
    (o) => arr(o, "webhooks").length,
  ),
  age(),
];

const policyColumns: TableColumn[] = [
  col(
    "integer",
    "Validations",
    "How many validation rules the policy has.",
    (o) => arr(o, "spec", "validations").length,
  ),
  col("string", "ParamKind", "The kind of object that parameterizes the policy, as apiVersion/Kind.", (o) => {
    const kind = asObject(spec(o).paramKind);
    return kind ? `${str(kind, "apiVersion")}/${str(kind, "kind")}` : "<unset>";
  }),
  age(),
];

const bindingColumns: TableColumn[] = [
  col("string", "PolicyName", "The policy the binding applies.", (o) => str(o, "spec", "policyName")),
  col("string", "ParamRef", "The parameter object the binding uses, as [namespace/]name.", (o) => {
    const ref = asObject(spec(o).paramRef);
    if (!ref) return "<unset>";
    const namespace = str(ref, "namespace");
    return namespace !== "" ? `${namespace}/${str(ref, "name")}` : str(ref, "name");
  }),
  age(),
];

export function admissionRegistrationColumns(): GroupColumns {
  return new Map<string, readonly TableColumn[]>([
    ["mutatingwebhookconfigurations", webhookColumns()],
    ["validatingwebhookconfigurations", webhookColumns()],
    ["validatingadmissionpolicies", policyColumns],
    ["validatingadmissionpolicybindings", bindingColumns],
  ]);
}
