// Feature gates as kube-apiserver 1.27 knows the ones this server acts on: alpha gates start
// off, beta gates on; a GA gate is locked on (naming it false fails), an unknown one fails.
export type Stage = "ALPHA" | "BETA" | "GA";

interface GateSpec {
  readonly stage: Stage;
  readonly default: boolean;
}

export const KNOWN_GATES: Readonly<Record<string, GateSpec>> = {
  WatchList: { stage: "ALPHA", default: false },
  APIListChunking: { stage: "BETA", default: true },
  ValidatingAdmissionPolicy: { stage: "ALPHA", default: false },
  AdmissionWebhookMatchConditions: { stage: "ALPHA", default: false },
  SecurityContextDeny: { stage: "ALPHA", default: false },
  InPlacePodVerticalScaling: { stage: "ALPHA", default: false },
  APISelfSubjectReview: { stage: "BETA", default: true },
  ServerSideApply: { stage: "GA", default: true },
  ServerSideFieldValidation: { stage: "GA", default: true },
  DryRun: { stage: "GA", default: true },
};

export class FeatureGateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FeatureGateError";
  }
}

export type FeatureGates = Readonly<Record<string, boolean>>;

export function resolveFeatureGates(requested: Readonly<Record<string, boolean>>): FeatureGates {
  const gates: Record<string, boolean> = {};
  for (const [name, spec] of Object.entries(KNOWN_GATES)) gates[name] = spec.default;
  for (const [name, value] of Object.entries(requested)) {
    const spec = KNOWN_GATES[name];
    if (!spec) throw new FeatureGateError(`unrecognized feature gate: ${name}`);
    if (spec.stage === "GA" && !value) {
      throw new FeatureGateError(`cannot set feature gate ${name} to false, feature is locked to true`);
    }
    gates[name] = value;
  }
  return gates;
}
