// Budgets and cost units of the CEL environment. The budgets are upstream's values; the unit costs
// follow cel-go's cost model except where the spec fixes a number (a list literal costs 40).

/** Runtime cost limit of one expression evaluation (upstream `PerCallLimit`). */
export const PER_CALL_LIMIT = 1_000_000;
/** Runtime cost budget of all rules run while validating one object (upstream `RuntimeCELCostBudget`). */
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
/** Largest estimated cost of one rule (times its cardinality) accepted at CRD create or update. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** Largest estimated cost of all rules of one CRD version schema. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
/** Longest accepted result of a messageExpression, in bytes. */
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

/** Largest request body; sizes of unbounded strings, lists and maps are estimated from it. */
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
/** JSON sizes used to estimate how many values fit into one request. */
export const MIN_STRING_SIZE = 2;
export const MIN_BOOL_SIZE = 4;
export const MIN_NUMBER_SIZE = 1;
export const MIN_DURATION_SIZE_JSON = 3;
export const MAX_DURATION_SIZE_JSON = 32;
export const JSON_DATE_SIZE = 12;
export const MIN_DATETIME_SIZE_JSON = 21;
export const MAX_DATETIME_SIZE_JSON = 32;

/** Reading a variable or selecting a field. */
export const SELECT_AND_IDENT_COST = 1;
/** A call of a constant-time function or operator, and each comparison of scalars. */
export const CALL_COST = 1;
/** Creating a list from a literal (the spec's figure; cel-go uses 10). */
export const LIST_CREATE_BASE_COST = 40;
/** Creating a map from a literal. */
export const MAP_CREATE_BASE_COST = 30;
/** Each iteration of a comprehension (`all`, `exists`, `exists_one`, `map`, `filter`). */
export const ITERATION_COST = 1;
/** Multiplied by a string's length for one traversal of it. */
export const STRING_TRAVERSAL_COST_FACTOR = 0.1;
/** Multiplied by a regular expression's length; the product with the traversal of the input is its cost. */
export const REGEX_STRING_LENGTH_COST_FACTOR = 0.25;

/**
 * Upstream's text for an estimated cost above a limit, e.g.
 * `estimated rule cost exceeds budget by factor of 2.5x (try simplifying the rule, ...)`.
 */
export function costExceedsBudgetMessage(costName: string, cost: number, limit: number): string {
  const factor = cost / limit;
  let shown: string;
  if (factor > 100) shown = "more than 100x";
  else if (factor < 1.5) shown = `${factor.toFixed(6)}x`;
  else shown = `${factor.toFixed(1)}x`;
  return (
    `${costName} exceeds budget by factor of ${shown} (try simplifying the rule, or adding maxItems, ` +
    "maxProperties, and maxLength where arrays, maps, and strings are declared)"
  );
}
