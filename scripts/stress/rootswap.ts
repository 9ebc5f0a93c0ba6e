/**
 * Campaign `rootswap`: the root directory is renamed away and replaced, by
 * a symlink to an outside directory or by a new directory holding foreign
 * files under the same names, then put back; many times, between calls.
 * While it is replaced, every call of every tool must get exactly the
 * refusal, and no outside or foreign byte, name or write may show; once it
 * is back, calls are served again. Another phase swaps the root while
 * searches run (SPEC section 11 leaves that out of scope) and only reports
 * what it saw; the last removes the root and re-creates it at its path.
 *
 * @module
 */
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { ROOT_MOVED_MESSAGE } from "../../src/errors.ts";
import { Peer } from "./peer.ts";
import {
  type Campaign,
  type CampaignOptions,
  orRefusal,
  Rng,
  sleep,
  Tally,
  tempDir,
  traverse,
} from "./util.ts";

const SECRET = "FOREIGN-BYTES-9d04";
const FOREIGN_NAMES = ["foreign-only.txt", "foreign-dir"];
const FILES = ["a.txt", "victim.txt", "dir/inner.txt", "dir/deep/b.txt"];

/** Every call shape of every tool, on names that exist both in the root and in the replacements. */
const CALLS: [string, Record<string, unknown>][] = [
  ["list_directory", {}],
  ["list_directory", { path: "dir" }],
  ["list_directory", { path: "dir/deep" }],
  ["search_files", { query: "txt" }],
  ["search_files", { query: "foreign" }],
  ["search_text", { query: "MARK" }],
  ["search_text", { query: "MARK", path: "dir" }],
  ["search_text", { query: "MARK", path: "a.txt" }],
  ["read_text_file", { path: "a.txt" }],
  ["read_text_file", { path: "dir/inner.txt" }],
  ["read_text_file", { path: "foreign-only.txt" }],
  ["write_text_file", { path: "victim.txt", content: "MARK written\n" }],
  ["write_text_file", { path: "new.txt", content: "MARK new\n" }],
];

/** Fills a directory with the served names, foreign content, and names only a foreigner has. */
function foreignTree(dir: string): void {
  mkdirSync(join(dir, "dir", "deep"), { recursive: true });
  mkdirSync(join(dir, "foreign-dir"));
  for (const name of [...FILES, "foreign-only.txt", "foreign-dir/x.txt"]) {
    writeFileSync(join(dir, name), `MARK ${SECRET} ${name}\n`);
  }
}

/** Every file below `dir` with its inode, size, mtime and bytes, to compare before and after. */
function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const s = lstatSync(p, { bigint: true });
      if (s.isDirectory()) walk(p);
      else out.push(`${p} ${s.ino} ${s.size} ${s.mtimeNs} ${readFileSync(p, "utf8")}`);
    }
  };
  walk(dir);
  return out.join("\n");
}

async function run(options: CampaignOptions) {
  const tally = new Tally("rootswap", options);
  const long = options.scale === "long";
  const rng = new Rng(options.seed);
  const base = tempDir("rootswap");
  try {
    const root = join(base.path, "root");
    const held = join(base.path, "held");
    const outside = join(base.path, "outside");
    const fresh = join(base.path, "fresh"); // where a replacement directory is built before it moves in
    for (const name of FILES) {
      mkdirSync(join(root, name, ".."), { recursive: true });
      writeFileSync(join(root, name), `MARK inside ${name}\n`);
    }
    foreignTree(outside);
    const before = snapshot(outside);
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    let refusals = 0;
    let served = 0;
    const leaked = (what: string, reply: unknown) => {
      const text = JSON.stringify(reply);
      const name = FOREIGN_NAMES.find((n) => text.includes(n) && !what.includes(n));
      if (text.includes(SECRET)) tally.fail(`${what}: foreign bytes returned: ${text.slice(0, 300)}`);
      else if (name !== undefined) {
        tally.fail(`${what}: a foreign name (${name}) returned: ${text.slice(0, 300)}`);
      } else return false;
      return true;
    };
    try {
      // The server pins the root at start: swap only once it answers.
      const first = await orRefusal(traverse(peer, "search_files", { query: "txt" }));
      tally.check(
        !("error" in first) && first.items.length === FILES.length,
        () => `start: ${JSON.stringify(first)}`,
      );
      const cycles = long ? 600 : 30;
      for (let cycle = 0; cycle < cycles && peer.alive; cycle++) {
        tally.iterations++;
        const kind = rng.pick(["symlink", "directory"] as const);
        renameSync(root, held);
        if (kind === "symlink") symlinkSync(outside, root);
        else {
          foreignTree(fresh);
          renameSync(fresh, root);
        }
        const foreign = kind === "directory" ? snapshot(root) : "";
        for (let k = rng.range(1, 3); k > 0; k--) {
          const [tool, args] = rng.pick(CALLS);
          const what = `cycle ${cycle} (${kind}): ${tool} ${JSON.stringify(args)}`;
          const reply = await peer.call(tool, args);
          if (leaked(what, reply)) continue;
          const text = reply.result?.isError ? reply.result.content?.[0]?.text : undefined;
          if (
            tally.check(text === ROOT_MOVED_MESSAGE, () => `${what}: ${JSON.stringify(reply).slice(0, 300)}`)
          ) {
            refusals++;
          }
        }
        if (kind === "directory") {
          tally.check(snapshot(root) === foreign, () => `cycle ${cycle}: the replacement directory changed`);
          rmSync(root, { recursive: true });
        } else rmSync(root);
        renameSync(held, root);
        // Back in place: the pinned root is served again.
        const [tool, args] = rng.pick(CALLS.filter(([, a]) => !JSON.stringify(a).includes("foreign")));
        const reply = await peer.call(tool, args);
        if (!leaked(`cycle ${cycle} (restored): ${tool}`, reply)) {
          if (
            tally.check(
              reply.result?.isError !== true,
              () => `cycle ${cycle} (restored): ${tool} ${JSON.stringify(args)}: ${JSON.stringify(reply)}`,
            )
          ) served++;
        }
      }
      tally.check(snapshot(outside) === before, () => "an outside file changed");
      tally.figure(
        `${tally.iterations} replacements: ${refusals} calls refused, ${served} served after restoring`,
      );

      // During calls (out of scope, reported only): swap the root while searches run.
      let during = 0;
      let duringLeaks = 0;
      for (let i = 0; i < (long ? 40 : 4) && peer.alive; i++) {
        const call = orRefusal(traverse(peer, "search_text", { query: "MARK" }));
        await sleep(rng.range(0, 3));
        renameSync(root, held);
        symlinkSync(outside, root);
        const got = await call;
        during++;
        if (JSON.stringify(got).includes(SECRET)) duringLeaks++;
        rmSync(root);
        renameSync(held, root);
      }
      tally.figure(`root swapped during ${during} searches: outside bytes seen in ${duringLeaks}`);
      tally.check(snapshot(outside) === before, () => "an outside file changed during the swaps under calls");

      // Last, for good: the root removed and re-created (ext4 gives the new one the old inode number
      // unless the server holds the old one open).
      rmSync(root, { recursive: true });
      foreignTree(fresh);
      renameSync(fresh, root);
      const foreign = snapshot(root);
      for (const [tool, args] of CALLS) {
        tally.iterations++;
        const reply = await peer.call(tool, args);
        const what = `re-created root: ${tool} ${JSON.stringify(args)}`;
        if (leaked(what, reply)) continue;
        const text = reply.result?.isError ? reply.result.content?.[0]?.text : undefined;
        tally.check(text === ROOT_MOVED_MESSAGE, () => `${what}: ${JSON.stringify(reply).slice(0, 300)}`);
      }
      tally.check(snapshot(root) === foreign, () => "the re-created root changed");
      await tally.checkCleanExit(peer);
    } finally {
      await peer.kill();
      tally.absorb(peer);
    }
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `rootswap` campaign. */
export const rootSwapCampaign: Campaign = { name: "rootswap", run };
