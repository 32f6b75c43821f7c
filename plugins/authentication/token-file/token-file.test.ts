import assert from "node:assert/strict";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { parseTokenFile, TokenFileError, tokenFileAuthenticator } from "./token-file.ts";

function recorder() {
  const lines: { level: string; message: string }[] = [];
  return {
    lines,
    info: (message: string) => lines.push({ level: "info", message }),
    warn: (message: string) => lines.push({ level: "warn", message }),
    error: (message: string) => lines.push({ level: "error", message }),
  };
}

describe("parseTokenFile", () => {
  it("reads token, user, uid and a comma-separated group column; later columns are ignored", () => {
    const { table, warnings } = parseTokenFile('t1,alice,1\nt2,bob,2,"a,b",ignored\nt3,carol,3,solo\n', "f");
    assert.deepEqual(warnings, []);
    assert.equal(table.size, 3);
    assert.deepEqual(table.lookup("t1"), { username: "alice", uid: "1", groups: [], extra: {} });
    assert.deepEqual(table.lookup("t2")?.groups, ["a", "b"]);
    assert.deepEqual(table.lookup("t3")?.groups, ["solo"]);
    assert.equal(table.lookup("t4"), undefined);
    assert.equal(table.lookup(""), undefined);
  });

  it("refuses fewer than three columns, naming the line", () => {
    assert.throws(
      () => parseTokenFile("t1,alice,1\n\nt2,bob\n", "tokens.csv"),
      (e: unknown) => e instanceof TokenFileError && /at least 3 columns.*found 2 on line 3/.test(e.message),
    );
    assert.throws(() => parseTokenFile("# a comment\n", "tokens.csv"), /found 1 on line 1/);
  });

  it("refuses CSV syntax errors with the line", () => {
    assert.throws(() => parseTokenFile('t1,al"ice,1\n', "f"), /line 1, column 6: bare "/);
  });

  it("skips empty tokens and lets a repeated token's later record win, with warnings that hide tokens", () => {
    const { table, warnings } = parseTokenFile("s3cret,alice,1\n,nobody,0\ns3cret,bob,2\n", "f");
    assert.equal(table.size, 1);
    assert.equal(table.lookup("s3cret")?.username, "bob");
    assert.equal(warnings.length, 2);
    assert.match(warnings[0] ?? "", /empty token .* record number '2'/);
    assert.match(warnings[1] ?? "", /duplicate token .* record number '3'/);
    assert.ok(warnings.every((w) => !w.includes("s3cret")));
  });

  it("drops empty group names", () => {
    const { table } = parseTokenFile('t,u,1,""\nv,w,2,"a,,b,"\n', "f");
    assert.deepEqual(table.lookup("t")?.groups, []);
    assert.deepEqual(table.lookup("v")?.groups, ["a", "b"]);
  });

  it("matches whole tokens only, byte for byte", () => {
    const { table } = parseTokenFile("abc,u,1\nÄbc,v,2\n", "f");
    assert.equal(table.lookup("abc")?.username, "u");
    assert.equal(table.lookup("Äbc")?.username, "v");
    for (const t of ["ab", "abcd", "ABC", " abc", "abc "]) assert.equal(table.lookup(t), undefined, t);
  });
});

describe("tokenFileAuthenticator", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "token-file-"));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("fails to start on a missing or invalid file", async () => {
    await assert.rejects(
      tokenFileAuthenticator({ path: join(dir, "missing.csv"), log: recorder() }),
      /ENOENT/,
    );
    const bad = join(dir, "bad.csv");
    await writeFile(bad, "t,only-two\n");
    await assert.rejects(tokenFileAuthenticator({ path: bad, log: recorder() }), TokenFileError);
  });

  it("answers a user for a known token and none for others", async () => {
    const path = join(dir, "basic.csv");
    await writeFile(path, "tok,alice,1\n");
    const a = await tokenFileAuthenticator({ path, reloadIntervalMs: 0, log: recorder() });
    assert.deepEqual(await a.authenticateToken("tok", []), {
      kind: "user",
      user: { username: "alice", uid: "1", groups: [], extra: {} },
    });
    assert.deepEqual(await a.authenticateToken("tok2", []), { kind: "none" });
    a.close();
  });

  it("takes a changed file, and keeps the old table when the new one is invalid or gone", async () => {
    const path = join(dir, "reload.csv");
    await writeFile(path, "old,alice,1\n");
    const log = recorder();
    const a = await tokenFileAuthenticator({ path, reloadIntervalMs: 0, log });
    assert.equal(await a.reload(), false, "nothing changed");

    await writeFile(path, "new,bob,2\nnew2,carol,3\n");
    assert.equal(await a.reload(), true);
    assert.equal(a.size, 2);
    assert.deepEqual(await a.authenticateToken("old", []), { kind: "none" });
    assert.equal((await a.authenticateToken("new", [])).kind, "user");

    await writeFile(path, "broken\n");
    assert.equal(await a.reload(), false);
    assert.equal((await a.authenticateToken("new", [])).kind, "user", "previous table kept");
    assert.ok(log.lines.some((l) => l.level === "error" && /keeping the previous 2 tokens/.test(l.message)));

    await rm(path);
    assert.equal(await a.reload(), false);
    assert.equal((await a.authenticateToken("new2", [])).kind, "user");

    // Replaced by rename, as editors and config management do.
    await writeFile(`${path}.tmp`, "newest,dave,4\n");
    await rename(`${path}.tmp`, path);
    assert.equal(await a.reload(), true);
    assert.equal((await a.authenticateToken("newest", [])).kind, "user");
    assert.ok(log.lines.every((l) => !/old|new|newest/.test(l.message.replace(path, ""))));
    a.close();
  });

  it("notices changes by itself when polling", async () => {
    const path = join(dir, "poll.csv");
    await writeFile(path, "first,alice,1\n");
    const a = await tokenFileAuthenticator({ path, reloadIntervalMs: 20, log: recorder() });
    try {
      await writeFile(path, "second,bob,2\n");
      // Waits for the outcome, not for a time: the poller runs every 20 ms.
      while ((await a.authenticateToken("second", [])).kind !== "user") await delay(10);
      assert.deepEqual(await a.authenticateToken("first", []), { kind: "none" });
    } finally {
      a.close();
    }
  });

  it("serialises concurrent reloads", async () => {
    const path = join(dir, "concurrent.csv");
    await writeFile(path, "a,alice,1\n");
    const a = await tokenFileAuthenticator({ path, reloadIntervalMs: 0, log: recorder() });
    await writeFile(path, "b,bob,2\n");
    const results = await Promise.all([a.reload(), a.reload(), a.reload()]);
    assert.deepEqual(results, [true, false, false]);
    a.close();
  });
});
