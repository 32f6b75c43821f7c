// The webhook plugins' configuration (WebhookAdmissionConfiguration): the kubeconfig-format file
// holding the credentials presented to webhooks.
import { isAbsolute } from "node:path";
import type { Naming } from "../../../backends/naming/index.ts";

export class WebhookConfigurationError extends Error {}

/** The `kubeConfigFile` of the plugin's configuration, or undefined without one. */
export function kubeConfigFileOf(configuration: unknown, naming: Naming, plugin: string): string | undefined {
  if (configuration === undefined || configuration === null) return undefined;
  if (typeof configuration !== "object" || Array.isArray(configuration))
    throw new WebhookConfigurationError(
      `${plugin}: the configuration must be a WebhookAdmissionConfiguration object`,
    );
  const c = configuration as Record<string, unknown>;
  const accepted = [
    `${naming.group("apiserver.config")}/v1`,
    `${naming.group("apiserver.config")}/v1alpha1`,
    `${naming.group("apiserver")}/v1alpha1`,
  ];
  if (c.apiVersion !== undefined && !accepted.includes(String(c.apiVersion)))
    throw new WebhookConfigurationError(
      `${plugin}: unsupported configuration apiVersion ${String(c.apiVersion)}`,
    );
  if (c.kind !== undefined && c.kind !== "WebhookAdmissionConfiguration" && c.kind !== "WebhookAdmission")
    throw new WebhookConfigurationError(`${plugin}: unsupported configuration kind ${String(c.kind)}`);
  const file = c.kubeConfigFile;
  if (file === undefined || file === "") return undefined;
  if (typeof file !== "string")
    throw new WebhookConfigurationError(`${plugin}: kubeConfigFile must be a string`);
  if (!isAbsolute(file))
    throw new WebhookConfigurationError(`${plugin}: kubeConfigFile "${file}" must be an absolute file path`);
  return file;
}
