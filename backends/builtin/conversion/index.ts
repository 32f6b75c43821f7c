// Version conversion of built-in kinds whose served versions differ in shape from the stored one.

export { eventsConversion } from "./events.ts";
export { type FlowcontrolVersion, flowcontrolConversion } from "./flowcontrol.ts";
export { DEFAULT_CPU_UTILIZATION, type HpaVersion, hpaConversion } from "./hpa.ts";
