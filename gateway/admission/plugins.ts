// Which admission plugins exist, in the order they run, and which run by default: upstream's
// kube-apiserver 1.27 ordering and default-enabled set (the flags' order never matters).

import { registration as antiAffinity } from "../../plugins/admission/antiaffinity/index.ts";
import { registration as certificateApproval } from "../../plugins/admission/certificateapproval/index.ts";
import { registration as certificateSigning } from "../../plugins/admission/certificatesigning/index.ts";
import { registration as certificateSubjectRestriction } from "../../plugins/admission/certificatesubjectrestriction/index.ts";
import { registration as defaultIngressClass } from "../../plugins/admission/defaultingressclass/index.ts";
import { registration as defaultStorageClass } from "../../plugins/admission/defaultstorageclass/index.ts";
import { registration as defaultTolerationSeconds } from "../../plugins/admission/defaulttolerationseconds/index.ts";
import { registration as denyServiceExternalIPs } from "../../plugins/admission/denyserviceexternalips/index.ts";
import { registration as eventRateLimit } from "../../plugins/admission/eventratelimit/index.ts";
import { registration as extendedResourceToleration } from "../../plugins/admission/extendedresourcetoleration/index.ts";
import { registration as imagePolicyWebhook } from "../../plugins/admission/imagepolicy/index.ts";
import type { PluginRegistration } from "../../plugins/admission/index.ts";
import { registration as limitRanger } from "../../plugins/admission/limitranger/index.ts";
import {
  namespaceAutoProvision,
  namespaceExists,
  namespaceLifecycle,
} from "../../plugins/admission/namespace/index.ts";
import { registration as nodeRestriction } from "../../plugins/admission/noderestriction/index.ts";
import { registration as ownerReferences } from "../../plugins/admission/ownerrefs/index.ts";
import { registration as pvcResize } from "../../plugins/admission/persistentvolumeclaimresize/index.ts";
import { registration as pvLabel } from "../../plugins/admission/persistentvolumelabel/index.ts";
import { registration as podNodeSelector } from "../../plugins/admission/podnodeselector/index.ts";
import { registration as podSecurity } from "../../plugins/admission/podsecurity/index.ts";
import { registration as podTolerationRestriction } from "../../plugins/admission/podtolerationrestriction/index.ts";
import { registration as priority } from "../../plugins/admission/priority/index.ts";
import { registration as resourceQuota } from "../../plugins/admission/resourcequota/index.ts";
import { registration as runtimeClass } from "../../plugins/admission/runtimeclass/index.ts";
import { registration as securityContextDeny } from "../../plugins/admission/securitycontextdeny/index.ts";
import { registration as serviceAccount } from "../../plugins/admission/serviceaccount/index.ts";
import { registration as storageObjectInUse } from "../../plugins/admission/storageobjectinuseprotection/index.ts";
import { registration as taintNodesByCondition } from "../../plugins/admission/taintnodesbycondition/index.ts";
import { registration as validatingAdmissionPolicy } from "../../plugins/admission/validatingpolicy/index.ts";
import { mutatingWebhook, validatingWebhook } from "../../plugins/admission/webhook/index.ts";

/** Every plugin name, in run order; webhooks, policies and quota come last, as upstream. */
export const PLUGIN_ORDER = [
  "NamespaceAutoProvision",
  "NamespaceLifecycle",
  "NamespaceExists",
  "SecurityContextDeny",
  "LimitPodHardAntiAffinityTopology",
  "LimitRanger",
  "ServiceAccount",
  "NodeRestriction",
  "TaintNodesByCondition",
  "ImagePolicyWebhook",
  "PodSecurity",
  "PodNodeSelector",
  "Priority",
  "DefaultTolerationSeconds",
  "PodTolerationRestriction",
  "EventRateLimit",
  "ExtendedResourceToleration",
  "PersistentVolumeLabel",
  "DefaultStorageClass",
  "StorageObjectInUseProtection",
  "OwnerReferencesPermissionEnforcement",
  "PersistentVolumeClaimResize",
  "RuntimeClass",
  "CertificateApproval",
  "CertificateSigning",
  "CertificateSubjectRestriction",
  "DefaultIngressClass",
  "DenyServiceExternalIPs",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
] as const;

/** Upstream's plugins that run unless disabled. */
export const DEFAULT_ENABLED: ReadonlySet<string> = new Set([
  "NamespaceLifecycle",
  "LimitRanger",
  "ServiceAccount",
  "TaintNodesByCondition",
  "PodSecurity",
  "Priority",
  "DefaultTolerationSeconds",
  "DefaultStorageClass",
  "StorageObjectInUseProtection",
  "PersistentVolumeClaimResize",
  "RuntimeClass",
  "CertificateApproval",
  "CertificateSigning",
  "CertificateSubjectRestriction",
  "DefaultIngressClass",
  "MutatingAdmissionWebhook",
  "ValidatingAdmissionPolicy",
  "ValidatingAdmissionWebhook",
  "ResourceQuota",
]);

/** The plugins this build has, by name. */
export const REGISTRATIONS: ReadonlyMap<string, PluginRegistration> = new Map(
  [
    namespaceAutoProvision,
    namespaceLifecycle,
    namespaceExists,
    mutatingWebhook,
    validatingWebhook,
    limitRanger,
    eventRateLimit,
    imagePolicyWebhook,
    validatingAdmissionPolicy,
    resourceQuota,
    antiAffinity,
    certificateApproval,
    certificateSigning,
    certificateSubjectRestriction,
    defaultIngressClass,
    defaultStorageClass,
    defaultTolerationSeconds,
    denyServiceExternalIPs,
    extendedResourceToleration,
    nodeRestriction,
    ownerReferences,
    pvcResize,
    pvLabel,
    podNodeSelector,
    podSecurity,
    podTolerationRestriction,
    priority,
    runtimeClass,
    securityContextDeny,
    serviceAccount,
    storageObjectInUse,
    taintNodesByCondition,
  ].map((r) => [r.name, r]),
);

export class AdmissionPluginError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AdmissionPluginError";
  }
}

/**
 * The plugins to run, in run order: the default set plus `enable` minus `disable`. A name that is
 * not a plugin, or one named in both lists, is an error.
 */
export function resolvePlugins(enable: readonly string[], disable: readonly string[]): string[] {
  const known = new Set<string>(PLUGIN_ORDER);
  for (const name of [...enable, ...disable]) {
    if (!known.has(name)) throw new AdmissionPluginError(`unknown admission plugin: ${name}`);
  }
  const both = enable.filter((n) => disable.includes(n));
  if (both.length > 0)
    throw new AdmissionPluginError(
      `${both.join(",")} in enable-admission-plugins and disable-admission-plugins overlapped`,
    );
  return PLUGIN_ORDER.filter((n) => (DEFAULT_ENABLED.has(n) || enable.includes(n)) && !disable.includes(n));
}
