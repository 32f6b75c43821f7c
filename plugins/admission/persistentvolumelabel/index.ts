// PersistentVolumeLabel (deprecated): upstream labels cloud-provider volumes with their zone and
// region by asking the cloud provider. This server has no cloud provider, and upstream without one
// leaves volumes unchanged, so the plugin is registered (it can be named in the flags) and admits all.
import type { AdmissionPlugin, PluginRegistration } from "../index.ts";

function plugin(): AdmissionPlugin {
  return { name: "PersistentVolumeLabel" };
}

export const registration: PluginRegistration = { name: "PersistentVolumeLabel", factory: plugin };
