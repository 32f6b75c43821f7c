// Audit as kube-apiserver configures it: a policy file, a log backend and/or a webhook backend,
// each with its mode and batch settings. No policy file: no events (the Audit-Id header stays).
import type { Naming } from "../../backends/naming/index.ts";
import type { ServerOptions } from "../../config/options.ts";
import type { AuditMetrics, Auditor } from "./audit-stage.ts";
import {
  AUDIT_MODES,
  type AuditBackend,
  type AuditMode,
  type BatchConfig,
  LogBackend,
  type PluginErrorHandler,
  TruncateBackend,
  type TruncateConfig,
  UnionBackend,
  WebhookBackend,
  withMode,
} from "./backends.ts";
import { loadPolicyFile, PolicyError } from "./policy.ts";

export {
  type AuditMetrics,
  type Auditor,
  auditFailedAuthentication,
  auditPanic,
  auditRequestBody,
  auditRequestObject,
  auditResponse,
  auditStage,
  auditStatus,
  auditWantsResponse,
} from "./audit-stage.ts";
export type { AuditBackend, AuditEvent } from "./backends.ts";
export { type Policy, PolicyError, parsePolicy } from "./policy.ts";

/** The batch flags of one backend (`--audit-<log|webhook>-batch-*`). */
export interface AuditBatchOptions {
  readonly mode: string;
  readonly bufferSize: number;
  readonly maxSize: number;
  /** Milliseconds. */
  readonly maxWait: number;
  readonly throttleEnable: boolean;
  readonly throttleQps: number;
  readonly throttleBurst: number;
}

/** The truncate flags of one backend (`--audit-<log|webhook>-truncate-*`), sizes in bytes. */
export interface AuditTruncateOptions {
  readonly enabled: boolean;
  readonly maxBatchSize: number;
  readonly maxEventSize: number;
}

export interface AuditOptions {
  readonly policyFile: string | undefined;
  readonly logPath: string | undefined;
  readonly logFormat: string;
  readonly logMaxAge: number;
  readonly logMaxBackup: number;
  readonly logMaxSize: number;
  readonly logVersion: string | undefined;
  readonly logCompress: boolean;
  readonly logBatch: AuditBatchOptions;
  readonly logTruncate: AuditTruncateOptions;
  readonly webhookConfigFile: string | undefined;
  /** Milliseconds. */
  readonly webhookInitialBackoff: number;
  readonly webhookVersion: string | undefined;
  readonly webhookBatch: AuditBatchOptions;
  readonly webhookTruncate: AuditTruncateOptions;
}

export interface AuditSetupMetrics extends AuditMetrics {
  /** Events a plugin failed to store (`apiserver_audit_error_total{plugin}`). */
  pluginError(plugin: string, events: number): void;
}

/** The audit settings among the server's options. */
export function auditOptions(o: ServerOptions): AuditOptions {
  return {
    policyFile: o.auditPolicyFile,
    logPath: o.auditLogPath,
    logFormat: o.auditLogFormat,
    logMaxAge: o.auditLogMaxage,
    logMaxBackup: o.auditLogMaxbackup,
    logMaxSize: o.auditLogMaxsize,
    logVersion: o.auditLogVersion,
    logCompress: o.auditLogCompress,
    logTruncate: {
      enabled: o.auditLogTruncateEnabled,
      maxBatchSize: o.auditLogTruncateMaxBatchSize,
      maxEventSize: o.auditLogTruncateMaxEventSize,
    },
    logBatch: {
      mode: o.auditLogMode,
      bufferSize: o.auditLogBatchBufferSize,
      maxSize: o.auditLogBatchMaxSize,
      maxWait: o.auditLogBatchMaxWait,
      throttleEnable: o.auditLogBatchThrottleEnable,
      throttleQps: Number(o.auditLogBatchThrottleQps),
      throttleBurst: o.auditLogBatchThrottleBurst,
    },
    webhookConfigFile: o.auditWebhookConfigFile,
    webhookInitialBackoff: o.auditWebhookInitialBackoff,
    webhookVersion: o.auditWebhookVersion,
    webhookTruncate: {
      enabled: o.auditWebhookTruncateEnabled,
      maxBatchSize: o.auditWebhookTruncateMaxBatchSize,
      maxEventSize: o.auditWebhookTruncateMaxEventSize,
    },
    webhookBatch: {
      mode: o.auditWebhookMode,
      bufferSize: o.auditWebhookBatchBufferSize,
      maxSize: o.auditWebhookBatchMaxSize,
      maxWait: o.auditWebhookBatchMaxWait,
      throttleEnable: o.auditWebhookBatchThrottleEnable,
      throttleQps: Number(o.auditWebhookBatchThrottleQps),
      throttleBurst: o.auditWebhookBatchThrottleBurst,
    },
  };
}

/** Refusals at start name the flag (and the file and field where there is one). */
export class AuditConfigError extends Error {}

function batchConfig(flag: string, o: AuditBatchOptions, asyncDelegate: boolean): BatchConfig {
  if (!(AUDIT_MODES as readonly string[]).includes(o.mode))
    throw new AuditConfigError(`--audit-${flag}-mode: "${o.mode}" is not one of ${AUDIT_MODES.join(", ")}`);
  if (!Number.isFinite(o.throttleQps))
    throw new AuditConfigError(`--audit-${flag}-batch-throttle-qps: not a number`);
  if (o.mode === "batch") {
    if (o.bufferSize <= 0) throw new AuditConfigError(`--audit-${flag}-batch-buffer-size must be positive`);
    if (o.maxSize <= 0) throw new AuditConfigError(`--audit-${flag}-batch-max-size must be positive`);
    if (o.throttleEnable && o.throttleQps <= 0)
      throw new AuditConfigError(`--audit-${flag}-batch-throttle-qps must be positive`);
    if (o.throttleEnable && o.throttleBurst <= 0)
      throw new AuditConfigError(`--audit-${flag}-batch-throttle-burst must be positive`);
  }
  return {
    bufferSize: o.bufferSize,
    maxBatchSize: o.maxSize,
    maxBatchWait: o.maxWait,
    throttleEnable: o.throttleEnable,
    throttleQps: o.throttleQps,
    throttleBurst: o.throttleBurst,
    asyncDelegate,
  };
}

/** The truncate settings, checked with upstream's words; undefined when truncating is off. */
function truncateConfig(
  plugin: "log" | "webhook",
  o: AuditTruncateOptions,
  annotationKey: string,
): TruncateConfig | undefined {
  if (o.maxEventSize <= 0)
    throw new AuditConfigError(
      `--audit-${plugin}-truncate-max-event-size: invalid audit truncate ${plugin} max event size ${o.maxEventSize}, must be a positive number`,
    );
  if (o.maxBatchSize < o.maxEventSize)
    throw new AuditConfigError(
      `--audit-${plugin}-truncate-max-batch-size: invalid audit truncate ${plugin} max batch size ${o.maxBatchSize}, must be greater than max event size (${o.maxEventSize})`,
    );
  return o.enabled
    ? { maxBatchSize: o.maxBatchSize, maxEventSize: o.maxEventSize, annotationKey }
    : undefined;
}

/** Upstream's order: truncate in front of the mode (so batches are split before buffering). */
function withTruncate(
  backend: AuditBackend,
  config: TruncateConfig | undefined,
  onError: PluginErrorHandler,
): AuditBackend {
  return config ? new TruncateBackend(backend, config, onError) : backend;
}

function checkVersion(flag: string, value: string | undefined, apiVersion: string): void {
  if (value !== undefined && value !== apiVersion)
    throw new AuditConfigError(
      `--audit-${flag}-version: "${value}" is not supported (supported: ${apiVersion})`,
    );
}

/**
 * The auditor the audit stage uses, or undefined when no policy or no backend is configured.
 * Opens the log file and reads the webhook kubeconfig now, so bad settings stop the start.
 */
export function createAuditor(
  options: AuditOptions,
  naming: Naming,
  metrics: AuditSetupMetrics | undefined,
  warn: (message: string) => void,
): Auditor | undefined {
  const apiVersion = `${naming.group("audit")}/v1`;
  checkVersion("log", options.logVersion, apiVersion);
  checkVersion("webhook", options.webhookVersion, apiVersion);
  if (options.logFormat !== "json" && options.logFormat !== "legacy")
    throw new AuditConfigError(`--audit-log-format: "${options.logFormat}" is not one of json, legacy`);
  for (const [flag, v] of [
    ["maxage", options.logMaxAge],
    ["maxbackup", options.logMaxBackup],
    ["maxsize", options.logMaxSize],
  ] as const)
    if (v < 0) throw new AuditConfigError(`--audit-log-${flag} must not be negative`);
  const logBatch = batchConfig("log", options.logBatch, false);
  const webhookBatch = batchConfig("webhook", options.webhookBatch, true);
  // Checked only for a configured backend, as upstream.
  const truncatedKey = `${naming.group("audit")}/truncated`;
  const logTruncate = options.logPath ? truncateConfig("log", options.logTruncate, truncatedKey) : undefined;
  const webhookTruncate = options.webhookConfigFile
    ? truncateConfig("webhook", options.webhookTruncate, truncatedKey)
    : undefined;
  if (options.webhookInitialBackoff <= 0)
    throw new AuditConfigError("--audit-webhook-initial-backoff must be positive");
  let policy: ReturnType<typeof loadPolicyFile>;
  if (!options.policyFile) {
    if (options.logPath || options.webhookConfigFile)
      warn(
        "no --audit-policy-file: no audit events are recorded (config/audit-policy.yaml logs every request at Metadata)",
      );
    return undefined;
  }
  try {
    policy = loadPolicyFile(options.policyFile, naming);
  } catch (err) {
    if (err instanceof PolicyError) throw new AuditConfigError(`--audit-policy-file: ${err.message}`);
    throw err;
  }
  const onError: PluginErrorHandler = (plugin, events, err) => {
    metrics?.pluginError(plugin, events);
    warn(
      `audit backend ${plugin}: ${events} event(s) not stored: ${err instanceof Error ? err.message : String(err)}`,
    );
  };
  const backends: AuditBackend[] = [];
  if (options.logPath) {
    let log: LogBackend;
    try {
      log = new LogBackend(
        {
          path: options.logPath,
          format: options.logFormat,
          maxAge: options.logMaxAge,
          maxBackups: options.logMaxBackup,
          maxSize: options.logMaxSize,
          compress: options.logCompress,
        },
        onError,
      );
    } catch (err) {
      throw new AuditConfigError(`--audit-log-path: ${(err as Error).message}`);
    }
    backends.push(
      withTruncate(
        withMode(log, options.logBatch.mode as AuditMode, logBatch, onError),
        logTruncate,
        onError,
      ),
    );
  }
  if (options.webhookConfigFile) {
    let webhook: WebhookBackend;
    try {
      webhook = new WebhookBackend(
        {
          configFile: options.webhookConfigFile,
          initialBackoff: options.webhookInitialBackoff,
          apiVersion,
          naming,
        },
        onError,
      );
    } catch (err) {
      throw new AuditConfigError(`--audit-webhook-config-file: ${(err as Error).message}`);
    }
    backends.push(
      withTruncate(
        withMode(webhook, options.webhookBatch.mode as AuditMode, webhookBatch, onError),
        webhookTruncate,
        onError,
      ),
    );
  }
  if (backends.length === 0) return undefined;
  const backend = backends.length === 1 ? (backends[0] as AuditBackend) : new UnionBackend(backends);
  return { policy, backend, apiVersion, ...(metrics ? { metrics } : {}) };
}
