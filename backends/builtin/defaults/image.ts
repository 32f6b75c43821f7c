// The tag of a container image reference, read as upstream 1.27 reads it to pick a container's
// default image pull policy: the reference is normalized (a name without a registry is a Docker Hub
// name, a one-part Docker Hub name is a "library" name), parsed against the image reference
// grammar, and its digest checked. A reference with neither tag nor digest has the tag `latest`;
// one that does not parse has no tag at all.

// The reference grammar: name [":" tag] ["@" digest]. A name is an optional registry host (DNS
// labels with an optional port) and "/"-separated path components; a path component is lowercase
// letters and digits, joined by ".", "_", "__" or runs of "-". (Written so that no part can match
// the same text two ways, which keeps the regular expression linear.)
const PATH_COMPONENT = "[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*";
const HOST_LABEL = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const HOST = `${HOST_LABEL}(?:\\.${HOST_LABEL})*(?::[0-9]+)?`;
const NAME = `(?:${HOST}/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);

/** A bare 64-hex-digit image ID is refused as a name. */
const IMAGE_ID = /^[a-f0-9]{64}$/;
const NAME_MAX = 255;
/** Hex digits of each digest algorithm upstream accepts. */
const DIGEST_HEX: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };
const LOWER_HEX = /^[a-f0-9]+$/;
/** No valid reference is longer: a 255-character name, a tag and a sha512 digest. */
const REFERENCE_MAX = NAME_MAX + 1 + 128 + 1 + 7 + 128;

const DEFAULT_REGISTRY = "docker.io";
const LEGACY_REGISTRY = "index.docker.io";
const OFFICIAL_PREFIX = "library/";

/** Registry and remainder: the first path part names a registry only when it looks like a host. */
function splitRegistry(image: string): [string, string] {
  let registry = DEFAULT_REGISTRY;
  let rest = image;
  const slash = image.indexOf("/");
  if (slash !== -1) {
    const first = image.slice(0, slash);
    const looksLikeHost =
      first.includes(".") || first.includes(":") || first === "localhost" || first.toLowerCase() !== first;
    if (looksLikeHost) {
      registry = first === LEGACY_REGISTRY ? DEFAULT_REGISTRY : first;
      rest = image.slice(slash + 1);
    }
  }
  if (registry === DEFAULT_REGISTRY && !rest.includes("/")) rest = OFFICIAL_PREFIX + rest;
  return [registry, rest];
}

function validDigest(digest: string): boolean {
  const colon = digest.indexOf(":");
  const expected = DIGEST_HEX[digest.slice(0, colon)];
  const hex = digest.slice(colon + 1);
  return expected !== undefined && hex.length === expected && LOWER_HEX.test(hex);
}

/**
 * The image's tag: `latest` when it has neither tag nor digest, "" when it has only a digest or
 * does not parse as an image reference.
 */
export function imageTag(image: string): string {
  if (image.length > REFERENCE_MAX || IMAGE_ID.test(image)) return "";
  const [registry, rest] = splitRegistry(image);
  const colon = rest.indexOf(":");
  const repository = colon === -1 ? rest : rest.slice(0, colon);
  if (repository.toLowerCase() !== repository) return "";
  const match = REFERENCE.exec(`${registry}/${rest}`);
  if (match === null) return "";
  const [, name = "", tag = "", digest = ""] = match;
  if (name.length > NAME_MAX) return "";
  if (digest !== "" && !validDigest(digest)) return "";
  return tag === "" && digest === "" ? "latest" : tag;
}

type PullPolicy = "Always" | "IfNotPresent";

/** Recent answers: a cluster runs few distinct images, and most containers leave the policy out. */
const policies = new Map<string, PullPolicy>();
const POLICIES_MAX = 1024;

/** Upstream's default pull policy for an image: Always for `latest`, IfNotPresent otherwise. */
export function defaultPullPolicy(image: string): PullPolicy {
  let policy = policies.get(image);
  if (policy === undefined) {
    policy = imageTag(image) === "latest" ? "Always" : "IfNotPresent";
    if (policies.size >= POLICIES_MAX) policies.clear();
    if (image.length <= REFERENCE_MAX) policies.set(image, policy);
  }
  return policy;
}
