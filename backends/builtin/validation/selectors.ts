// meta/v1 LabelSelector objects: their field checks, and the selector they stand for (which
// workloads compare against their pod template's labels).
import { type FieldError, field } from "../../registry/field-error.ts";
import { isQualifiedName, isValidLabelValue } from "../../validation/names.ts";
import { okLabelValue, okQualifiedName, validateLabelMap } from "./fast.ts";
import { arr, type Json, labelValue, obj, qualifiedName, str } from "./util.ts";

/** Field checks of a LabelSelector (absent: nothing to check). */
export function validateLabelSelector(errs: FieldError[], selector: unknown, path: string): void {
  const sel = obj(selector);
  if (!sel) return;
  if (sel.matchLabels !== undefined) validateLabelMap(errs, sel.matchLabels, `${path}.matchLabels`);
  const exprs = arr(sel.matchExpressions);
  for (let i = 0; i < exprs.length; i++) {
    const e = obj(exprs[i]) ?? {};
    const p = `${path}.matchExpressions[${i}]`;
    const values = arr(e.values);
    const op = str(e.operator);
    // An absent operator is the schema's `Required value`.
    if (!checkSetOperatorValues(errs, op, values.length, p) && e.operator !== undefined)
      errs.push(field.invalid(`${p}.operator`, op, "not a valid selector operator"));
    if (e.key !== undefined) qualifiedName(errs, str(e.key), `${p}.key`);
    for (let j = 0; j < values.length; j++) {
      const v = str(values[j]);
      labelValue(errs, v, `${p}.values[${j}]`);
    }
  }
}

function okQualifiedNameFull(s: string): boolean {
  return okQualifiedName(s) || isQualifiedName(s).length === 0;
}

function okLabelValueFull(s: string): boolean {
  return okLabelValue(s) || isValidLabelValue(s).length === 0;
}

/** What a LabelSelector object selects. */
export interface Selection {
  /** The selector converts into a label selector (no bad keys, values or operators). */
  readonly valid: boolean;
  /** Selects everything: an object with no requirements. */
  readonly everything: boolean;
  /** Selects nothing: the selector is absent. */
  readonly nothing: boolean;
  matches(labels: unknown): boolean;
}

const NOTHING: Selection = { valid: true, everything: false, nothing: true, matches: () => false };
const EVERYTHING: Selection = { valid: true, everything: true, nothing: false, matches: () => true };
const INVALID: Selection = { valid: false, everything: false, nothing: false, matches: () => false };

/** The selector a LabelSelector object stands for, as upstream converts it. */
export function selection(selector: unknown): Selection {
  const sel = obj(selector);
  if (!sel) return NOTHING;
  const matchLabels = obj(sel.matchLabels);
  const exprs = arr(sel.matchExpressions);
  let count = exprs.length;
  if (matchLabels) for (const _ in matchLabels) count++;
  if (count === 0) return EVERYTHING;
  if (matchLabels) {
    for (const k in matchLabels) {
      if (!okQualifiedNameFull(k) || !okLabelValueFull(str(matchLabels[k]))) return INVALID;
    }
  }
  for (const e of exprs) {
    const x = obj(e) ?? {};
    const values = arr(x.values);
    const op = str(x.operator);
    if (!okQualifiedNameFull(str(x.key))) return INVALID;
    if (op === "In" || op === "NotIn") {
      if (values.length === 0) return INVALID;
    } else if (op === "Exists" || op === "DoesNotExist") {
      if (values.length > 0) return INVALID;
    } else {
      return INVALID;
    }
    for (const v of values) if (!okLabelValueFull(str(v))) return INVALID;
  }
  return {
    valid: true,
    everything: false,
    nothing: false,
    matches(labelsValue: unknown): boolean {
      const labels = obj(labelsValue) ?? {};
      if (matchLabels) {
        for (const k in matchLabels) if (labels[k] !== matchLabels[k]) return false;
      }
      for (const e of exprs) {
        const x = obj(e) ?? {};
        const key = str(x.key);
        const has = Object.hasOwn(labels, key);
        const value = has ? str(labels[key]) : "";
        switch (str(x.operator)) {
          case "In":
            if (!has || !arr(x.values).includes(value)) return false;
            break;
          case "NotIn":
            if (has && arr(x.values).includes(value)) return false;
            break;
          case "Exists":
            if (!has) return false;
            break;
          case "DoesNotExist":
            if (has) return false;
            break;
        }
      }
      return true;
    },
  };
}

/** A selector object with neither matchLabels nor matchExpressions. */
export function isEmptySelector(selector: unknown): boolean {
  const sel = obj(selector);
  if (!sel) return false;
  const ml = obj(sel.matchLabels);
  if (ml) for (const _ in ml) return false;
  return arr(sel.matchExpressions).length === 0;
}

/**
 * One node selector requirement (pod node affinity, PersistentVolume node affinity): the values
 * its operator needs, the key; `checkValues` also checks each value as a label value.
 */
export function validateNodeSelectorRequirement(
  errs: FieldError[],
  rq: Json,
  path: string,
  checkValues: boolean,
): void {
  const values = arr(rq.values);
  const op = str(rq.operator);
  // Any other operator is outside the schema's enum and reported there.
  if (!checkSetOperatorValues(errs, op, values.length, path) && (op === "Gt" || op === "Lt")) {
    if (values.length !== 1)
      errs.push(
        field.required(`${path}.values`, "must be specified single value when `operator` is 'Lt' or 'Gt'"),
      );
  }
  if (rq.key !== undefined) qualifiedName(errs, str(rq.key), `${path}.key`);
  if (checkValues) {
    for (let i = 0; i < values.length; i++) {
      const v = str(values[i]);
      labelValue(errs, v, `${path}.values[${i}]`);
    }
  }
}

/**
 * The values the set operators need (In, NotIn) or forbid (Exists, DoesNotExist); false for any
 * other operator, which each kind of selector treats its own way.
 */
function checkSetOperatorValues(errs: FieldError[], op: string, count: number, path: string): boolean {
  switch (op) {
    case "In":
    case "NotIn":
      if (count === 0)
        errs.push(field.required(`${path}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
      return true;
    case "Exists":
    case "DoesNotExist":
      if (count > 0)
        errs.push(
          field.forbidden(
            `${path}.values`,
            "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          ),
        );
      return true;
    default:
      return false;
  }
}
