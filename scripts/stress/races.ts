/**
 * Campaign `races`: a helper process swaps a read target, a write target
 * and a searched subdirectory for symlinks to outside files and directories,
 * thousands of times, while the client reads, writes, lists and searches
 * through them. No outside byte (content or name) may come back, and no
 * outside file may change (content, size, inode, mtime), nor any outside
 * directory gain an entry.
 *
 * @module
 */
import { lstatSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Peer } from "./peer.ts";
import {
  type Campaign,
  type CampaignOptions,
  orRefusal,
  Rng,
  startSwapper,
  Tally,
  tempDir,
  traverse,
} from "./util.ts";

const SECRET = "OUTSIDE-SECRET";
const OUTSIDE_NAMES = ["o1.txt", "o2.txt", "secret.txt", "victim.txt"];
const INSIDE_FILES = ["keep.txt", "sub/in1.txt", "sub/in2.txt", "target.txt", "w.txt"];
const TARGET = "MARK inside target\n";

function snapshot(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    const s = lstatSync(d, { bigint: true });
    out.push(`${d} dir ${s.mtimeNs} ${s.ino}`);
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const f = lstatSync(p, { bigint: true });
      if (f.isDirectory()) walk(p);
      else out.push(`${p} ${f.size} ${f.mtimeNs} ${f.ctimeNs} ${f.ino} ${readFileSync(p, "utf8")}`);
    }
  };
  walk(dir);
  return out.join("\n");
}

async function run(options: CampaignOptions) {
  const tally = new Tally("races", options);
  const long = options.scale === "long";
  const rng = new Rng(options.seed);
  const base = tempDir("races");
  try {
    const root = join(base.path, "root");
    const outside = join(base.path, "outside");
    const stage = join(base.path, "stage");
    for (const d of [join(root, "sub"), join(outside, "odir"), stage]) mkdirSync(d, { recursive: true });
    writeFileSync(join(root, "target.txt"), TARGET);
    writeFileSync(join(root, "w.txt"), "MARK inside w\n");
    writeFileSync(join(root, "keep.txt"), "MARK keep\n");
    writeFileSync(join(root, "sub", "in1.txt"), "MARK inside 1\n");
    writeFileSync(join(root, "sub", "in2.txt"), "MARK inside 2\n");
    writeFileSync(join(outside, "secret.txt"), `MARK ${SECRET} file\n`);
    writeFileSync(join(outside, "victim.txt"), `MARK ${SECRET} victim original\n`);
    writeFileSync(join(outside, "odir", "o1.txt"), `MARK ${SECRET} o1\n`);
    writeFileSync(join(outside, "odir", "o2.txt"), `MARK ${SECRET} o2\n`);
    const before = snapshot(outside);

    const cycles = long ? 2_000 : 150;
    const swapper = startSwapper(
      [
        {
          kind: "file",
          path: join(root, "target.txt"),
          link: join(outside, "secret.txt"),
          content: TARGET,
          stage: join(stage, "t"),
        },
        {
          kind: "file",
          path: join(root, "w.txt"),
          link: join(outside, "victim.txt"),
          content: "MARK inside w\n",
          stage: join(stage, "w"),
        },
        { kind: "dir", path: join(root, "sub"), link: join(outside, "odir"), hold: join(stage, "sub") },
      ],
      cycles,
      1,
      options.seed,
    );
    let swapping = true;
    const finished = swapper.done.finally(() => (swapping = false));

    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    let requests = 0;
    let served = 0;
    try {
      const leak = (what: string, reply: unknown, asked = "") => {
        // An error may echo the path that was asked for; that is not a leak.
        const text = JSON.stringify(reply).replaceAll(asked === "" ? "\0" : asked, "");
        const name = OUTSIDE_NAMES.find((n) => text.includes(n));
        if (text.includes(SECRET)) tally.fail(`${what}: outside content returned: ${text.slice(0, 300)}`);
        else if (name !== undefined) {
          tally.fail(`${what}: an outside name (${name}) returned: ${text.slice(0, 300)}`);
        } else return false;
        return true;
      };
      while (swapping && peer.alive) {
        requests++;
        const op = rng.int(8);
        let what = "";
        try {
          if (op === 0 || op === 6) {
            const path = op === 0 ? "target.txt" : rng.pick(["sub/in1.txt", "sub/o1.txt"]);
            what = `read_text_file ${path}`;
            const got = await orRefusal(traverse(peer, "read_text_file", { path }));
            if (leak(what, got, path) || "error" in got) continue;
            served++;
            const text = (got.items as { text: string }[]).map((i) => i.text).join("");
            const want = path === "target.txt" ? [TARGET] : ["MARK inside 1\n"];
            tally.check(want.includes(text), () => `${what}: read ${JSON.stringify(text)}`);
          } else if (op === 1 || op === 7) {
            what = "write_text_file w.txt";
            const reply = await peer.call("write_text_file", {
              path: "w.txt",
              content: `MARK written ${requests}\n`,
            });
            if (!leak(what, reply) && reply.result?.isError !== true) served++;
          } else if (op === 2 || op === 3) {
            const args = op === 2 ? { query: "MARK", path: "sub" } : { query: "MARK" };
            what = `search_text ${JSON.stringify(args)}`;
            const got = await orRefusal(traverse(peer, "search_text", args));
            if (leak(what, got) || "error" in got) continue;
            served++;
            for (const item of got.items as { path: string }[]) {
              tally.check(INSIDE_FILES.includes(item.path), () => `${what}: found ${item.path}`);
            }
          } else if (op === 4) {
            what = "list_directory sub";
            const got = await orRefusal(traverse(peer, "list_directory", { path: "sub" }));
            if (!leak(what, got) && !("error" in got)) served++;
          } else {
            what = "search_files .txt";
            const got = await orRefusal(traverse(peer, "search_files", { query: ".txt", limit: 2 }));
            if (leak(what, got) || "error" in got) continue;
            served++;
            for (const item of got.items as { path: string }[]) {
              tally.check(INSIDE_FILES.includes(item.path), () => `${what}: found ${item.path}`);
            }
          }
        } catch (error) {
          tally.fail(`${what}: ${String(error)}`);
        }
      }
      const { cycles: done, errors } = await finished;
      tally.iterations += done * 3;
      tally.check(done === cycles, () => `the swapper did ${done} of ${cycles} cycles`);
      tally.figure(
        `swap cycles: ${done} x 3 (swap step errors ${errors}); requests: ${requests}, answered: ${served}`,
      );
      await tally.checkCleanExit(peer);
    } finally {
      swapper.stop();
      await peer.kill();
      tally.absorb(peer);
    }
    const after = snapshot(outside);
    tally.check(after === before, () => `outside changed:\n${before}\n---\n${after}`);
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `races` campaign. */
export const racesCampaign: Campaign = { name: "races", run };
