// The webhooks of Mutating/ValidatingWebhookConfiguration objects, read once per change of the
// configurations and kept in the order they are called: by configuration name, then as listed.

import {
  asArray as list,
  objectOrEmpty as obj,
  asStrings as strings,
} from "../../../backends/common/json.ts";
import type { LocalInformer } from "../../objects/index.ts";
import type { JsonObject } from "../index.ts";
import { type Rule, ruleOf } from "../matching.ts";

export interface ServiceReference {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
  readonly path: string;
}

export interface MatchCondition {
  readonly name: string;
  readonly expression: string;
}

export interface Webhook {
  readonly configuration: string;
  readonly name: string;
  /** Position among all webhooks of its kind (the annotations' `index`). */
  readonly index: number;
  /** Identity for per-request bookkeeping (reinvocation) and client reuse. */
  readonly key: string;
  readonly rules: readonly Rule[];
  readonly namespaceSelector: unknown;
  readonly objectSelector: unknown;
  readonly matchPolicy: "Exact" | "Equivalent";
  readonly matchConditions: readonly MatchCondition[];
  readonly url?: string;
  readonly service?: ServiceReference;
  /** PEM text of clientConfig.caBundle; undefined means the system roots. */
  readonly caPem?: string;
  readonly admissionReviewVersions: readonly string[];
  readonly sideEffects: string;
  readonly timeoutSeconds: number;
  readonly failurePolicy: "Fail" | "Ignore";
  readonly reinvocationPolicy: "Never" | "IfNeeded";
}

const str = (v: unknown, fallback = ""): string => (typeof v === "string" ? v : fallback);

/** The webhooks of one stored configuration, with upstream's defaults for anything missing. */
export function webhooksOf(configuration: JsonObject, mutating: boolean): Omit<Webhook, "index">[] {
  const meta = obj(configuration.metadata);
  const name = str(meta.name);
  return list(configuration.webhooks).map((raw) => {
    const h = obj(raw);
    const client = obj(h.clientConfig);
    const service = client.service === undefined ? undefined : obj(client.service);
    const caBundle = str(client.caBundle);
    return {
      configuration: name,
      name: str(h.name),
      key: `${str(meta.uid, name)}/${str(h.name)}`,
      rules: list(h.rules).map(ruleOf),
      namespaceSelector: h.namespaceSelector ?? {},
      objectSelector: h.objectSelector ?? {},
      matchPolicy: h.matchPolicy === "Exact" ? "Exact" : "Equivalent",
      matchConditions: list(h.matchConditions).map((c) => ({
        name: str(obj(c).name),
        expression: str(obj(c).expression),
      })),
      ...(typeof client.url === "string" ? { url: client.url } : {}),
      ...(service
        ? {
            service: {
              namespace: str(service.namespace),
              name: str(service.name),
              port: typeof service.port === "number" ? service.port : 443,
              path: str(service.path, "/"),
            },
          }
        : {}),
      ...(caBundle ? { caPem: Buffer.from(caBundle, "base64").toString("utf8") } : {}),
      admissionReviewVersions: strings(h.admissionReviewVersions),
      sideEffects: str(h.sideEffects, "Unknown"),
      timeoutSeconds: typeof h.timeoutSeconds === "number" ? h.timeoutSeconds : 10,
      failurePolicy: h.failurePolicy === "Ignore" ? "Ignore" : "Fail",
      reinvocationPolicy: mutating && h.reinvocationPolicy === "IfNeeded" ? "IfNeeded" : "Never",
    };
  });
}

/** The current webhooks of one configuration kind, rebuilt lazily after the informer reports a change. */
export class WebhookSource {
  readonly #informer: LocalInformer;
  readonly #mutating: boolean;
  readonly #unsubscribe: () => void;
  #hooks: readonly Webhook[] | undefined;

  constructor(informer: LocalInformer, mutating: boolean) {
    this.#informer = informer;
    this.#mutating = mutating;
    this.#unsubscribe = informer.subscribe(() => {
      this.#hooks = undefined;
    });
  }

  get synced(): Promise<void> {
    return this.#informer.synced;
  }

  hooks(): readonly Webhook[] {
    if (this.#hooks) return this.#hooks;
    const configurations = this.#informer
      .list()
      .map((c) => c as JsonObject)
      .sort((a, b) => {
        const x = str(obj(a.metadata).name);
        const y = str(obj(b.metadata).name);
        return x < y ? -1 : x > y ? 1 : 0;
      });
    const hooks = configurations
      .flatMap((c) => webhooksOf(c, this.#mutating))
      .map((h, index) => ({ ...h, index }));
    this.#hooks = hooks;
    return hooks;
  }

  close(): void {
    this.#unsubscribe();
  }
}
