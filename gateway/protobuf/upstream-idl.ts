// Upstream's Protobuf IDL (the shared reference data), parsed with protobufjs for the tests that
// cross-check the descriptors and read our encoding independently of our decoder. Read by tests
// only; the codec itself never looks at it.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";
import { skipReason } from "../../test/support/service-process.ts";

const UPSTREAM = fileURLToPath(new URL("../../../shared/upstream/kubernetes-1.27/", import.meta.url));

/** The IDL of every package the built-in catalog describes, and of the special messages. */
export const IDL_FILES = [
  ...[
    "core/v1",
    "apps/v1",
    "batch/v1",
    "autoscaling/v1",
    "autoscaling/v2",
    "policy/v1",
    "networking/v1",
    "discovery/v1",
    "coordination/v1",
    "events/v1",
    "node/v1",
    "scheduling/v1",
    "storage/v1",
    "rbac/v1",
    "certificates/v1",
    "admissionregistration/v1",
    "admissionregistration/v1alpha1",
    "flowcontrol/v1beta2",
    "flowcontrol/v1beta3",
    "authentication/v1",
    "authentication/v1beta1",
    "authentication/v1alpha1",
    "authorization/v1",
  ].map((p) => `api/${p}/generated.proto`),
  "apiextensions-apiserver/pkg/apis/apiextensions/v1/generated.proto",
  "kube-aggregator/pkg/apis/apiregistration/v1/generated.proto",
  "apimachinery/pkg/apis/meta/v1/generated.proto",
  "apimachinery/pkg/apis/meta/v1beta1/generated.proto",
  "apimachinery/pkg/runtime/generated.proto",
  "apimachinery/pkg/runtime/schema/generated.proto",
  "apimachinery/pkg/api/resource/generated.proto",
  "apimachinery/pkg/util/intstr/generated.proto",
];

/**
 * Messages newer than the reference IDL, written from the Go struct tags of the release that
 * added them: SelfSubjectReview reached authentication/v1 in 1.28 with v1beta1's fields (a test
 * checks that our v1 descriptor matches our IDL-checked v1beta1 one).
 */
export const LATER_IDL = `
syntax = "proto2";
package k8s.io.api.authentication.v1;
message SelfSubjectReview {
  optional k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta metadata = 1;
  optional SelfSubjectReviewStatus status = 2;
}
message SelfSubjectReviewStatus {
  optional UserInfo userInfo = 1;
}
`;
export const LATER_MESSAGES = [
  "k8s.io.api.authentication.v1.SelfSubjectReview",
  "k8s.io.api.authentication.v1.SelfSubjectReviewStatus",
];

export const idlAvailable = IDL_FILES.every((f) => existsSync(`${UPSTREAM}${f}`));

/** `false`, or why tests that need the IDL are skipped (a failure under REQUIRE_SERVICES=1). */
export const skipWithoutIdl: false | string = skipReason(idlAvailable, `no IDL at ${UPSTREAM}`);

/**
 * The IDL files in one root (field names as written), plus the later messages it lacks unless
 * `later` is false.
 */
export function loadIdl(options: { later?: boolean } = {}): protobuf.Root {
  const root = new protobuf.Root();
  if (!idlAvailable) return root;
  for (const file of IDL_FILES)
    protobuf.parse(readFileSync(`${UPSTREAM}${file}`, "utf8"), root, { keepCase: true });
  if (options.later !== false && !LATER_MESSAGES.every((name) => root.lookup(name))) {
    protobuf.parse(LATER_IDL, root, { keepCase: true });
  }
  return root;
}
