export { type CompileOptions, type CompileResult, compile, type Program } from "./compile.ts";
export {
  type CelEnvironment,
  type CustomFunction,
  createEnvironment,
  type EnvironmentOptions,
  ruleEnvironment,
} from "./environment.ts";
export {
  CelCompileError,
  CelCostLimitError,
  CelError,
  type CelErrorKind,
  CelInterruptedError,
  CelRuntimeError,
  COST_LIMIT_EXCEEDED_MESSAGE,
} from "./errors.ts";
export { CEL_RESERVED_WORDS, escapePropertyName, unescapePropertyName } from "./escaping.ts";
export { estimateProgramCost } from "./estimate.ts";
export {
  DEFAULT_TIMEOUT_MS,
  type EvaluateOptions,
  type EvaluationResult,
  evaluate,
} from "./evaluate.ts";
export {
  costExceedsBudgetMessage,
  MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES,
  MAX_REQUEST_SIZE_BYTES,
  PER_CALL_LIMIT,
  RUNTIME_CEL_COST_BUDGET,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
} from "./limits.ts";
export {
  type CompiledRule,
  childCardinality,
  compileRule,
  type EstimateResult,
  estimateCost,
  evaluateRule,
  evaluateRules,
  OUT_OF_BUDGET_MESSAGE,
  type RuleFailure,
  type RuleResult,
  type RulesOutcome,
  type SchemaContext,
  type ValidationRuleSpec,
} from "./rules.ts";
export {
  CelObject,
  type CelSchema,
  celTypeName,
  type DeclField,
  type DeclType,
  DYN,
  declTypeFromSchema,
} from "./schema.ts";
export { type CelValueOptions, celValueFromJson, celValueOfType, dynValue } from "./values.ts";
