// Upstream's Protobuf IDL (the shared reference data), parsed with protobufjs for the tests that
// cross-check the descriptors and read our encoding independently of our decoder. Read by tests
// only; the codec itself never looks at it.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs";

const UPSTREAM = fileURLToPath(new URL("../../../shared/upstream/kubernetes-1.27/", import.meta.url));

export const IDL_FILES = [
  "api/core/v1/generated.proto",
  "api/rbac/v1/generated.proto",
  "api/authentication/v1/generated.proto",
  "api/authentication/v1beta1/generated.proto",
  "api/authentication/v1alpha1/generated.proto",
  "api/authorization/v1/generated.proto",
  "apimachinery/pkg/apis/meta/v1/generated.proto",
  "apimachinery/pkg/runtime/generated.proto",
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

/** `false`, or why tests that need the IDL are skipped. */
export const skipWithoutIdl: false | string = idlAvailable ? false : `no IDL at ${UPSTREAM}`;

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
