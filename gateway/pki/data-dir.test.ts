import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { tightenDataDir } from "./data-dir.ts";

const dirs: string[] = [];
after(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

/** A data directory as an older release or a copy left it: everything readable by all. */
async function looseDataDir(root: string, extra?: string): Promise<void> {
  await mkdir(join(root, "pki"), { recursive: true });
  await mkdir(join(root, "store"));
  await writeFile(join(root, "pki", "ca.key"), "key");
  await writeFile(join(root, "store", "data.mdb"), "data");
  await writeFile(join(root, "admin.kubeconfig"), "config");
  for (const dir of [root, join(root, "pki"), join(root, "store")]) await chmod(dir, 0o755);
  for (const file of ["pki/ca.key", "store/data.mdb", "admin.kubeconfig", ...(extra ? [extra] : [])]) {
    if (file === extra) await writeFile(join(root, file), "not the gateway's");
    await chmod(join(root, file), 0o644);
  }
}

const entries = (root: string) => [join(root, "pki"), join(root, "store"), join(root, "admin.kubeconfig")];

describe("tightenDataDir", () => {
  it("removes group and other access from the data dir and the gateway's entries, and says so", async () => {
    const root = await mkdtemp(join(tmpdir(), "cg-datadir-"));
    dirs.push(root);
    await looseDataDir(root);
    const outside = join(tmpdir(), `cg-datadir-target-${process.pid}`);
    await writeFile(outside, "elsewhere", { mode: 0o644 });
    await chmod(outside, 0o644);
    dirs.push(outside);
    await symlink(outside, join(root, "pki", "link"));

    const notices = await tightenDataDir(root, entries(root));
    assert.equal(await mode(root), 0o700);
    for (const dir of ["pki", "store"]) assert.equal(await mode(join(root, dir)), 0o700, dir);
    for (const file of ["pki/ca.key", "store/data.mdb", "admin.kubeconfig"]) {
      assert.equal(await mode(join(root, file)), 0o600, file);
    }
    // What symbolic links point at is not the gateway's to change.
    assert.equal(await mode(outside), 0o644);
    assert.equal(notices.length, 6);
    assert.ok(notices.every((n) => n.level === "info" && n.msg === "removed group and other access"));
    assert.deepEqual(
      notices.find((n) => n.file === join(root, "store", "data.mdb")),
      {
        level: "info",
        msg: "removed group and other access",
        file: join(root, "store", "data.mdb"),
        from: "0644",
        to: "0600",
      },
    );
    assert.deepEqual(await tightenDataDir(root, entries(root)), [], "a second start has nothing to change");
  });

  it("leaves the mode of a data dir that holds other files, and warns", async () => {
    const root = await mkdtemp(join(tmpdir(), "cg-datadir-shared-"));
    dirs.push(root);
    await looseDataDir(root, "operator-notes.txt");
    const notices = await tightenDataDir(root, entries(root));
    assert.equal(await mode(root), 0o755);
    assert.equal(await mode(join(root, "operator-notes.txt")), 0o644);
    assert.equal(await mode(join(root, "store", "data.mdb")), 0o600);
    assert.equal(await mode(join(root, "admin.kubeconfig")), 0o600);
    assert.deepEqual(notices[0], {
      level: "warn",
      msg: "the data directory is a mount point, another user's or holds other files, so its mode is left as it is; the files the gateway keeps in it are private",
      file: root,
      mode: "0755",
    });
  });

  it("leaves the mode of a data dir that is a mount point, and warns", async (t) => {
    const root = await mkdtemp(join(tmpdir(), "cg-datadir-mnt-"));
    dirs.push(root);
    try {
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m,mode=0755", "cg-datadir", root], {
        stdio: "pipe",
      });
    } catch (err) {
      t.skip(`cannot mount a tmpfs here (needs root): ${(err as Error).message.split("\n")[0]}`);
      return;
    }
    try {
      await looseDataDir(root);
      const notices = await tightenDataDir(root, entries(root));
      assert.equal(await mode(root), 0o755);
      assert.equal(await mode(join(root, "pki")), 0o700);
      assert.equal(await mode(join(root, "pki", "ca.key")), 0o600);
      assert.equal(await mode(join(root, "store", "data.mdb")), 0o600);
      assert.equal(notices[0]?.level, "warn");
      assert.equal(notices[0]?.file, root);
      assert.equal(notices[0]?.mode, "0755");
      assert.match(notices[0]?.msg ?? "", /mount point/);
    } finally {
      execFileSync("umount", [root]);
    }
  });
});
