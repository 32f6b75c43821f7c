export {
  defaultIdentity,
  LeaderElector,
  type LeaderElectorOptions,
  type LeaseRecord,
  microTime,
} from "./leader-elector.ts";
