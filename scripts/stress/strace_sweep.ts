/**
 * Campaign `excluded`: a server runs under `strace` on a tree where excluded
 * names exist as files, directories, links and FIFOs (or not at all), and
 * gets a seeded sweep of every tool with every argument shape that names an
 * excluded path, lies below one or passes through one. Each call must get
 * exactly the answer of a missing path, and the trace of file and
 * descriptor syscalls must never name an excluded path. Without `strace`
 * the answers are still checked and the campaign says so.
 *
 * @module
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Peer, type Target } from "./peer.ts";
import { type Campaign, type CampaignOptions, orRefusal, Rng, Tally, tempDir, traverse } from "./util.ts";

/**
 * The excludes; each excluded name holds a token no served path has, so a
 * trace line holding a token names an excluded path. The `xb-` exclude
 * ends in a slash and `**`, so it covers the name `xb-...` itself too (README).
 */
const EXCLUDES = ["**/xd-*", "*.xk", "sub/xf-*", "**/xb-*/**"];
const LEAK = /xd-|\.xk|xf-|xb-/;

/** Whether `strace` can trace a child here. */
function straceWorks(): boolean {
  const probe = spawnSync("strace", ["-o", "/dev/null", "--", "true"]);
  return !probe.error && probe.status === 0;
}

/** The same target, started under `strace` writing to `trace`. */
function traced(target: Target, trace: string): Target {
  const strace = ["strace", "-f", "-qq", "-s", "0", "-e", "trace=file,desc", "-o", trace, "--"];
  return {
    runtime: target.runtime,
    command(root, args) {
      const { cmd, args: argv } = target.command(root, args);
      return { cmd: strace[0], args: [...strace.slice(1), cmd, ...argv] };
    },
  };
}

/** Makes the excluded object `name` (relative to `root`) of a random kind; returns the kind. */
function plant(root: string, name: string, rng: Rng): string {
  const path = join(root, name);
  const kind = rng.pick(["file", "dir", "link-dir", "link-file", "fifo", "missing"]);
  mkdirSync(join(path, ".."), { recursive: true });
  if (kind === "file") writeFileSync(path, "MARK EXCLUDED-BYTES\n");
  else if (kind === "dir") {
    mkdirSync(join(path, "child", "deeper"), { recursive: true });
    writeFileSync(join(path, "child", "x.txt"), "MARK EXCLUDED-BYTES\n");
    writeFileSync(join(path, "y.txt"), "MARK EXCLUDED-BYTES\n");
  } else if (kind === "link-dir") symlinkSync(join(root, "served"), path);
  else if (kind === "link-file") symlinkSync(join(root, "served", "a.txt"), path);
  else if (kind === "fifo") spawnSync("mkfifo", [path]);
  return kind;
}

async function run(options: CampaignOptions) {
  const tally = new Tally("excluded", options);
  const long = options.scale === "long";
  const rng = new Rng(options.seed);
  const withStrace = straceWorks();
  let traceLines = 0;
  let calls = 0;
  for (let round = 0; round < (long ? 4 : 1); round++) {
    const base = tempDir("excluded");
    try {
      const root = join(base.path, "root");
      const trace = join(base.path, "trace.txt");
      mkdirSync(join(root, "served", "deep"), { recursive: true });
      mkdirSync(join(root, "sub"), { recursive: true });
      writeFileSync(join(root, "served", "a.txt"), "MARK served a\n");
      writeFileSync(join(root, "served", "deep", "b.txt"), "MARK served b\n");
      writeFileSync(join(root, "sub", "ok.txt"), "MARK sub\n");
      const names = [
        `xd-${round}a`,
        `served/xd-${round}b`,
        `served/deep/xd-${round}c`,
        `top${round}.xk`,
        `sub/xf-${round}`,
      ];
      const kinds = names.map((name) => `${name}:${plant(root, name, rng)}`);
      // Under `xb-*`, served names: excluded all the same, with the directory above them.
      mkdirSync(join(root, `xb-${round}`, "inner"), { recursive: true });
      writeFileSync(join(root, `xb-${round}`, "inner", "q.txt"), "MARK EXCLUDED-BYTES\n");
      writeFileSync(join(root, `xb-${round}`, "y.txt"), "MARK EXCLUDED-BYTES\n");
      const excluded = names;
      const shapes = [
        ...excluded,
        ...excluded.flatMap((n) => [`${n}/child`, `${n}/child/x.txt`, `${n}/child/deeper/z`, `${n}/y.txt`]),
        `xb-${round}`,
        `xb-${round}/inner`,
        `xb-${round}/inner/q.txt`,
        `xb-${round}/y.txt`,
      ];
      const args = ["--include", "**", ...EXCLUDES.flatMap((g) => ["--exclude", g])];
      const target = withStrace ? traced(options.target, trace) : options.target;
      const peer = new Peer(target, root, args, [base.path]);
      try {
        // Served paths are served, so the trace is known to record the server's calls.
        const listing = await orRefusal(traverse(peer, "search_files", { query: "." }));
        tally.check(
          !("error" in listing) && listing.items.length === 3,
          () => `round ${round} (${kinds.join(", ")}): served ${JSON.stringify(listing)}`,
        );
        for (let k = 0; k < (long ? 400 : 60); k++) {
          const path = rng.pick(shapes);
          const tool = rng.pick(["read_text_file", "list_directory", "search_text", "read_text_file"]);
          const callArgs = tool === "search_text" ? { query: "MARK", path } : { path };
          const reply = await peer.call(tool, callArgs);
          calls++;
          tally.iterations++;
          const text = reply.result?.isError ? reply.result.content?.[0]?.text : JSON.stringify(reply);
          tally.check(
            text === `not found: ${path}`,
            () => `${tool} ${JSON.stringify(callArgs)} (${kinds.join(", ")}): ${String(text).slice(0, 200)}`,
          );
        }
        for (const name of excluded.filter((n) => !n.includes("/"))) {
          const reply = await peer.call("write_text_file", { path: name, content: "x" });
          tally.check(
            reply.result?.isError === true,
            () => `write_text_file ${name}: ${JSON.stringify(reply)}`,
          );
        }
        for (const query of ["xd-", ".xk", "xf-", "EXCLUDED"]) {
          const found = await orRefusal(
            traverse(peer, query === "EXCLUDED" ? "search_text" : "search_files", {
              query,
            }),
          );
          tally.check(
            !("error" in found) && found.items.length === 0,
            () => `search for ${query}: ${JSON.stringify(found)}`,
          );
        }
        tally.check((await peer.close()) === 0, () => "the server did not exit 0 after stdin closed");
      } finally {
        await peer.kill();
        tally.absorb(peer);
      }
      if (withStrace) {
        const lines = readFileSync(trace, "utf8").split("\n");
        traceLines += lines.length;
        tally.check(
          lines.some((l) => l.includes("served/deep/b.txt")),
          () => "the trace holds no served path",
        );
        for (const line of lines.filter((l) => LEAK.test(l)).slice(0, 5)) {
          tally.fail(`round ${round} (${kinds.join(", ")}): a syscall names an excluded path: ${line}`);
        }
      }
    } finally {
      base.remove();
    }
  }
  tally.figure(
    withStrace
      ? `${calls} calls naming excluded paths; ${traceLines} trace lines, none naming an excluded path`
      : `${calls} calls naming excluded paths; strace is not available here: the trace was not checked`,
  );
  return tally.result();
}

/** The `excluded` campaign. */
export const excludedCampaign: Campaign = { name: "excluded", run };
