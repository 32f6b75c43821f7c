// Debian's python3-kubernetes, the Python client the suites drive: found once per test file.
// Suites skip with a hint when it is missing, and fail under REQUIRE_SERVICES=1 (skipReason).
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { promisify } from "node:util";
import { skipReason } from "./service-process.ts";

/** The interpreter whose site packages hold Debian's client (not a virtualenv's python3). */
export const PYTHON = "/usr/bin/python3";

async function importsKubernetes(): Promise<boolean> {
  if (!existsSync(PYTHON)) return false;
  return promisify(execFile)(PYTHON, ["-c", "import kubernetes"]).then(
    () => true,
    () => false,
  );
}

/** false when the client imports; otherwise the reason to skip (throws under REQUIRE_SERVICES=1). */
export const pythonSkip: string | false = skipReason(
  await importsKubernetes(),
  "install python3-kubernetes (apt-get install python3-kubernetes)",
);
