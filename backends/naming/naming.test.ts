import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, it } from "node:test";
import { clientNames, naming, otherNaming } from "./naming.ts";

const ROOT = resolve(import.meta.dirname, "../..");

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" ? [] : sources(path);
    return e.name.endsWith(".ts") && !e.name.endsWith(".test.ts") ? [path] : [];
  });
}

// Keys the server spells with label() but does not read from the labels, annotations or secret
// types of objects clients write (so a manifest's upstream spelling of them needs no warning).
const NOT_READ = new Set([
  "metadata.name", // set by the server on namespaces
  "pvc-protection", // finalizers
  "pv-protection",
  "legacy-unknown", // a signer name
  "authentication/pod-name", // user extra keys
  "authentication/pod-uid",
  "node/not-ready", // taint keys
  "node/unreachable",
  "node/memory-pressure",
  "limit-ranger", // written by admission
  "bootstrapping", // written on the bootstrap policy
  "hostname", // a topology key
  "endpointslice/skip-mirror", // written on the kubernetes Service's Endpoints
  "kubectl/last-applied-configuration", // kubectl's own: clientNames spells it as kubectl does
]);

describe("naming presets", () => {
  it("list each name the server reads in both spellings, in the same order", () => {
    const cluster = naming("cluster");
    const kubernetes = naming("kubernetes");
    assert.equal(otherNaming(cluster), kubernetes);
    assert.equal(otherNaming(kubernetes), cluster);
    const spelled = {
      readLabels: (n: string) => n.replace("cluster.io", "kubernetes.io"),
      readAnnotations: (n: string) => n.replace("cluster.io", "kubernetes.io"),
      secretTypes: (n: string) => n.replace("cluster.io", "kubernetes.io"),
      reservedNamespaces: (n: string) => n.replace(/^cluster-/, "kube-"),
    };
    for (const [table, upstream] of Object.entries(spelled) as [
      keyof typeof spelled,
      (n: string) => string,
    ][])
      assert.deepEqual(cluster[table].map(upstream), kubernetes[table], table);
    assert.ok(kubernetes.readLabels.includes("pod-security.kubernetes.io/enforce"));
    assert.ok(kubernetes.readAnnotations.includes("storageclass.kubernetes.io/is-default-class"));
    assert.ok(kubernetes.secretTypes.includes("kubernetes.io/tls"));
    assert.deepEqual(kubernetes.reservedNamespaces, ["kube-system", "kube-public", "kube-node-lease"]);
  });

  it("spell the names clients hard-code as the clients do", () => {
    assert.equal(
      clientNames.lastAppliedConfiguration,
      naming("kubernetes").label("last-applied-configuration", "kubectl"),
    );
  });

  it("list every label, annotation and secret type the sources spell with label()", () => {
    const cluster = naming("cluster");
    const known = new Set([...cluster.readLabels, ...cluster.readAnnotations, ...cluster.secretTypes]);
    const missing: string[] = [];
    for (const dir of ["backends", "gateway", "plugins", "config"]) {
      for (const file of sources(join(ROOT, dir))) {
        if (file === join(import.meta.dirname, "naming.ts")) continue;
        const text = readFileSync(file, "utf8");
        for (const m of text.matchAll(/\blabel\(\s*"([^"]+)"(?:\s*,\s*"([^"]*)")?\s*\)/g)) {
          const [, name = "", sub] = m;
          if (NOT_READ.has(sub ? `${sub}/${name}` : name)) continue;
          if (!known.has(cluster.label(name, sub))) missing.push(`${relative(ROOT, file)}: ${m[0]}`);
        }
      }
    }
    assert.deepEqual(missing, []);
  });
});
