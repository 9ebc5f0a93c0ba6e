/** The `FsPort` contract (`_port_contract.ts`) on the Node port, under either runtime. */
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { test } from "node:test";
import assert from "node:assert/strict";
import process from "node:process";
import { portContract } from "./_port_contract.ts";
import { readdirSync, realpathSync, renameSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { makeRoot, RUNTIME } from "./_harness.ts";
import { nodePort } from "../src/ports/node.ts";
import { DIR_BATCH } from "../src/ports/fs_port.ts";

portContract("node", nodePort);

test("node: on Linux under Node, readDirPaced proves what it reads (through /proc/<pid>/fd)", {
  skip: RUNTIME !== "node" && "Deno opens /proc/self/fd only under --allow-all",
}, () => {
  assert.equal(nodePort.pacedReadsProven === true, process.platform === "linux");
});

test("node: a /proc probe that found too few descriptors free fails the read, and is made again later", {
  skip: (RUNTIME !== "node" || process.platform !== "linux") && "the probe runs under Node on Linux",
}, () => {
  // In a child under `ulimit -n 64`, so running out of descriptors cannot disturb the test runner. With one
  // descriptor free, the probe (two at once) cannot tell, while a read by path (one) would succeed, unproven.
  const port = new URL("../src/ports/node.js", import.meta.url).href;
  const root = makeRoot({ "a.txt": "" });
  try {
    const script = `
      import fs from "node:fs";
      const { nodePort } = await import(${JSON.stringify(port)});
      const dir = fs.realpathSync(${JSON.stringify(root.path)});
      const info = nodePort.lstat(dir);
      const held = [];
      try { for (;;) held.push(fs.openSync("/", "r")); } catch {}
      fs.closeSync(held.pop());
      let starved;
      try {
        starved = nodePort.readDir(dir, { root: dir, rootInfo: info, info }).map((e) => e.name);
      } catch (error) {
        starved = error.code;
      }
      for (const fd of held) fs.closeSync(fd);
      const after = nodePort.readDir(dir, { root: dir, rootInfo: info, info }).map((e) => e.name);
      console.log(JSON.stringify({ held: held.length, starved, after, proven: nodePort.pacedReadsProven }));
    `;
    const child = spawnSync("sh", [
      "-c",
      'ulimit -n 64 && exec "$0" --input-type=module -e "$1"',
      process.execPath,
      script,
    ], {
      encoding: "utf8",
    });
    assert.equal(child.status, 0, child.stderr);
    const { held, starved, after, proven } = JSON.parse(child.stdout);
    assert.ok(held > 0 && held < 64, `held ${held} descriptors`);
    assert.equal(starved, "busy"); // could not tell: the read fails rather than go by path, unproven…
    assert.deepEqual([after, proven], [["a.txt"], true]); // …and the probe is made again once descriptors are free
  } finally {
    root.cleanup();
  }
});

test("node: reads below a held root start from its descriptor, never from its path opened again", {
  skip: !nodePort.pacedReadsProven && "the Node port reads through descriptors on Linux under Node only",
}, () => {
  // The path's own directories could be swapped by someone who may write above the root, or lead through
  // another mount namespace to the same inode with other mounts on it: only the held descriptor is the root.
  const temp = makeRoot({ "root/a/b.txt": "b" });
  try {
    const base = realpathSync(temp.path);
    const root = join(base, "root");
    const hold = nodePort.holdDirectory(root);
    try {
      const anchor = { root, rootInfo: hold.stat() };
      const info = nodePort.lstat(join(root, "a"))!;
      renameSync(root, join(base, "moved"));
      symlinkSync(join(base, "moved"), root); // the root's path now leads through a link to the same inode
      assert.deepEqual(nodePort.readDir(join(root, "a"), { ...anchor, info }).map((e) => e.name), ["b.txt"]);
      const file = nodePort.openRead(join(root, "a", "b.txt"), anchor);
      file.close();
    } finally {
      hold.close();
    }
  } finally {
    temp.cleanup();
  }
});

test(
  "node: where /proc/<pid> is another process (a /proc of another PID namespace), its descriptors are not used",
  {
    skip: (RUNTIME !== "node" || process.platform !== "linux") && "the probe runs under Node on Linux",
  },
  async () => {
    // `unshare --pid` without a /proc of its own gives a process a pid that names another process in /proc.
    // Simulated: the child believes its pid is a decoy's. Every descriptor of the decoy is a directory outside
    // the root but one: at the number the child's probe will take, the decoy holds the child's own descriptor
    // directory open, which a probe of /proc/<pid>/fd/<that number> would take for its own.
    const temp = makeRoot({ "root/a.txt": "", "outside/.keep": "" });
    const base = realpathSync(temp.path);
    const [root, outside] = [join(base, "root"), join(base, "outside")];
    const decoy = spawn(process.execPath, [
      "-e",
      `
    const fs = require("node:fs");
    for (let i = 0; i < 400; i++) fs.openSync(${JSON.stringify(outside)}, "r");
    require("node:readline").createInterface({ input: process.stdin }).on("line", (line) => {
      const { pid, fd } = JSON.parse(line);
      fs.closeSync(fd);
      console.log(fs.openSync("/proc/" + pid + "/fd", "r")); // the lowest number free: fd again
    });
    console.log("ready");`,
    ], { stdio: ["pipe", "pipe", "inherit"] });
    const decoyLines = createInterface({ input: decoy.stdout! });
    try {
      await once(decoyLines, "line");
      const port = new URL("../src/ports/node.js", import.meta.url).href;
      const script = `
      import fs from "node:fs";
      const pid = process.pid;
      Object.defineProperty(process, "pid", { value: ${decoy.pid} });
      const { nodePort } = await import(${JSON.stringify(port)});
      const set = new Promise((resolve) => process.stdin.once("data", resolve)); // the decoy is set
      const free = [fs.openSync("/dev/null"), fs.openSync("/dev/null")]; // the hold's number, the probe's
      for (const fd of free) fs.closeSync(fd);
      console.log(JSON.stringify({ pid, fd: free[1] }));
      await set;
      process.stdin.destroy();
      const root = ${JSON.stringify(root)};
      const rootInfo = nodePort.lstat(root);
      const hold = nodePort.holdDirectory(root);
      const outcome = (fn) => { try { return fn(); } catch (error) { return error.code ?? String(error); } };
      const made = outcome(() => nodePort.createExclusive(root + "/made.txt", 0o600, { root, rootInfo }).close());
      const listed = outcome(() => nodePort.readDir(root, { root, rootInfo, info: rootInfo }).map((e) => e.name));
      hold.close();
      console.log(JSON.stringify({ made: made ?? "made", listed, proven: nodePort.pacedReadsProven }));
    `;
      const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
        stdio: ["pipe", "pipe", "inherit"],
      });
      const childLines = createInterface({ input: child.stdout! });
      const [probe] = await once(childLines, "line");
      decoy.stdin!.write(`${probe}\n`);
      const [held] = await once(decoyLines, "line");
      assert.equal(Number(held), JSON.parse(probe).fd);
      const answer = once(childLines, "line");
      child.stdin!.write("\n");
      const [code] = await once(child, "exit");
      assert.equal(code, 0);
      assert.deepEqual(readdirSync(outside), [".keep"]); // nothing made through the decoy's descriptors
      const [outcome] = await answer;
      assert.deepEqual(JSON.parse(outcome), { made: "made", listed: ["a.txt", "made.txt"], proven: true });
    } finally {
      decoy.kill();
      temp.cleanup();
    }
  },
);

test(
  "node: under Deno with --allow-all, where /proc can be read, the port's proven reads list the directory",
  {
    skip: (RUNTIME !== "deno" || process.platform !== "linux") && "Deno on Linux runs the port through /proc",
  },
  () => {
    // Deno's `node:fs` opens a `Dir`'s path at its first read: the descriptor it names must still be open then.
    const port = new URL("../src/ports/node.ts", import.meta.url).href;
    const root = makeRoot({ "a/big/in.txt": "" });
    try {
      const dir = root.path;
      const script = `
      const { nodePort } = await import(${JSON.stringify(port)});
      const [root, big] = ${JSON.stringify([dir, join(dir, "a", "big")])};
      const proof = { root, rootInfo: nodePort.lstat(root), info: nodePort.lstat(big) };
      const read = await nodePort.readDirPaced(big, () => Promise.resolve(), proof).then(
        (entries) => entries.map((e) => e.name),
        (error) => error.code ?? String(error),
      );
      console.log(JSON.stringify({ proven: nodePort.pacedReadsProven, read }));
    `;
      const child = spawnSync(process.execPath, ["eval", "--quiet", script], {
        encoding: "utf8",
        env: { ...process.env, NO_COLOR: "1" },
      });
      assert.equal(child.status, 0, child.stderr);
      assert.deepEqual(JSON.parse(child.stdout), { proven: true, read: ["in.txt"] });
    } finally {
      root.cleanup();
    }
  },
);

test("node: a proven read of a big directory holds at most one descriptor across its pauses", {
  skip: !nodePort.pacedReadsProven && "the Node port proves its reads on Linux under Node only",
}, async () => {
  // Running out of descriptors fails a call: a read that held two across its pauses failed calls sooner.
  // (Node's `Dir` holds its own; Deno's reads the whole directory at its first read.)
  const files: Record<string, string> = {};
  for (let i = 0; i < 2 * DIR_BATCH; i++) files[`a/big/f${i}.txt`] = "";
  const root = makeRoot(files);
  try {
    const open = () => readdirSync("/proc/self/fd").length;
    const big = join(root.path, "a", "big");
    const proof = { root: root.path, rootInfo: nodePort.lstat(root.path)!, info: nodePort.lstat(big)! };
    const before = open();
    const during: number[] = [];
    const read = await nodePort.readDirPaced(big, () => {
      during.push(open() - before);
      return Promise.resolve();
    }, proof);
    assert.equal(read.length, 2 * DIR_BATCH);
    assert.ok(during.length > 0 && during.every((n) => n <= 1), `descriptors held at each pause: ${during}`);
  } finally {
    root.cleanup();
  }
});
