// The resources that hold a pod template, and where it sits in each (upstream's
// DefaultPodSpecExtractor); objects are in their storage versions (core v1, apps/v1, batch/v1).
import type { JsonObject } from "../contract.ts";
import { type PodView, podView, record } from "./pod-spec.ts";

type Extract = (object: JsonObject) => JsonObject | undefined;

const spec = (o: JsonObject) => record(o.spec);

const TEMPLATE_OF: Readonly<Record<string, Extract>> = {
  "/replicationcontrollers": (o) => record(spec(o)?.template),
  "/podtemplates": (o) => record(o.template),
  "apps/replicasets": (o) => record(spec(o)?.template),
  "apps/deployments": (o) => record(spec(o)?.template),
  "apps/statefulsets": (o) => record(spec(o)?.template),
  "apps/daemonsets": (o) => record(spec(o)?.template),
  "batch/jobs": (o) => record(spec(o)?.template),
  "batch/cronjobs": (o) => {
    const job = record(spec(o)?.jobTemplate);
    return job ? record(spec(job)?.template) : undefined;
  },
};

export function hasPodTemplate(group: string, resource: string): boolean {
  return Object.hasOwn(TEMPLATE_OF, `${group}/${resource}`);
}

/** The template's metadata and spec, or undefined when the object has none. */
export function podTemplate(group: string, resource: string, object: JsonObject): PodView | undefined {
  const template = TEMPLATE_OF[`${group}/${resource}`]?.(object);
  return template ? podView(template.metadata, template.spec) : undefined;
}
