/**
 * Campaign `concurrency`: several server processes on one root, each with
 * its own client, interleave writes and paged reads of the same files. Every
 * completed read must equal some complete written version; every traversal
 * (read, listing, path search, text search) must either complete with a
 * result that existed at one moment or be refused with the stale-cursor
 * message — never a mix of two states.
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareBytewise } from "../../src/bytes.ts";
import { STALE_CURSOR_MESSAGE } from "../../src/errors.ts";
import { isTempName } from "../../src/temp_names.ts";
import { Peer } from "./peer.ts";
import {
  type Campaign,
  type CampaignOptions,
  orRefusal,
  Rng,
  sha256,
  Tally,
  tempDir,
  traverse,
} from "./util.ts";

const SHARED = ["s0.txt", "s1.txt", "s2.txt"];

/** Errors a reader may meet while a writer replaces the file; the next attempt will do. */
const TRANSIENT = /was replaced while it was being opened|the file changed while it was read/;

function version(writer: number, seq: number, rng: Rng): { text: string; endLine: number } {
  const size = rng.range(50, 40_000);
  const width = rng.range(1, 200);
  const lines = [`v ${writer} ${seq}`];
  let bytes = lines[0].length + 1;
  while (bytes < size) {
    lines.push("x".repeat(width));
    bytes += width + 1;
  }
  lines.push(`end ${writer} ${seq}`);
  return { text: lines.join("\n") + "\n", endLine: lines.length };
}

async function run(options: CampaignOptions) {
  const tally = new Tally("concurrency", options);
  const long = options.scale === "long";
  const clients = long ? 8 : 3;
  const opsPerClient = long ? 160 : 25;
  const base = tempDir("concurrency");
  // Every version ever sent for each shared file (hash), and where its `end` line is.
  const versions = new Map(SHARED.map((f) => [f, new Set<string>()]));
  const endLines = new Map(SHARED.map((f) => [f, new Map<string, number>()]));
  const created: string[][] = Array.from({ length: clients }, () => []);
  const counts = { completed: 0, stale: 0, transient: 0 };
  try {
    const root = join(base.path, "root");
    mkdirSync(root);
    const seedRng = new Rng(options.seed);
    for (const file of SHARED) {
      const v = version(99, 0, seedRng);
      writeFileSync(join(root, file), v.text);
      versions.get(file)!.add(sha256(v.text));
      endLines.get(file)!.set("99 0", v.endLine);
    }

    const refused = (what: string, error: string): void => {
      if (error === STALE_CURSOR_MESSAGE) counts.stale++;
      else if (TRANSIENT.test(error)) counts.transient++;
      else tally.fail(`${what}: ${error}`);
    };
    const checkCreated = (what: string, names: string[]): void => {
      for (let w = 0; w < clients; w++) {
        const mine = names.filter((n) => n.startsWith(`c${w}-`));
        const prefix = created[w].slice(0, mine.length);
        tally.check(
          JSON.stringify(mine) === JSON.stringify(prefix),
          () => `${what}: a mixed result: writer ${w} has ${mine.join(",")} of ${created[w].join(",")}`,
        );
      }
    };

    const client = async (w: number): Promise<void> => {
      const rng = new Rng(options.seed + 1 + w);
      const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
      let seq = 0;
      try {
        for (let op = 0; op < opsPerClient && peer.alive; op++) {
          tally.iterations++;
          const roll = rng.int(10);
          const file = rng.pick(SHARED);
          if (roll < 3) {
            const v = version(w, ++seq, rng);
            versions.get(file)!.add(sha256(v.text));
            endLines.get(file)!.set(`${w} ${seq}`, v.endLine);
            const reply = await peer.call("write_text_file", { path: file, content: v.text });
            tally.check(
              reply.result?.isError !== true,
              () => `write ${file}: ${JSON.stringify(reply.result)}`,
            );
          } else if (roll < 6) {
            const got = await orRefusal(traverse(peer, "read_text_file", { path: file, limit: 1 }));
            if ("error" in got) {
              refused(`read ${file}`, got.error);
              continue;
            }
            counts.completed++;
            const text = (got.items as { text: string }[]).map((i) => i.text).join("");
            tally.check(
              versions.get(file)!.has(sha256(text)),
              () => `read ${file} (${got.pages.length} pages) is no complete version: ${text.slice(0, 40)}…`,
            );
          } else if (roll < 7) {
            const name = `c${w}-${String(created[w].length).padStart(4, "0")}.txt`;
            created[w].push(name);
            const reply = await peer.call("write_text_file", { path: name, content: "created\n" });
            tally.check(
              reply.result?.isError !== true,
              () => `create ${name}: ${JSON.stringify(reply.result)}`,
            );
          } else if (roll < 9) {
            const listing = roll === 7;
            const got = listing
              ? await orRefusal(traverse(peer, "list_directory", { limit: 2 }))
              : await orRefusal(traverse(peer, "search_files", { query: "-", limit: 3 }));
            const what = listing ? "list_directory" : "search_files";
            if ("error" in got) {
              refused(what, got.error);
              continue;
            }
            counts.completed++;
            const names = (got.items as { path: string }[]).map((i) => i.path);
            const sorted = [...new Set(names)].sort(compareBytewise);
            tally.check(
              JSON.stringify(sorted) === JSON.stringify(names),
              () => `${what}: unsorted or repeated`,
            );
            tally.check(!names.some((n) => isTempName(n)), () => `${what}: a temp file was listed`);
            if (listing) {
              tally.check(SHARED.every((s) => names.includes(s)), () => `${what}: a shared file is missing`);
            }
            checkCreated(what, names);
          } else {
            const got = await orRefusal(traverse(peer, "search_text", { query: "end ", limit: 1 }));
            if ("error" in got) {
              refused("search_text", got.error);
              continue;
            }
            counts.completed++;
            const items = got.items as { path: string; line: number; text: string }[];
            tally.check(
              JSON.stringify(items.map((i) => i.path)) === JSON.stringify(SHARED),
              () => `search_text: a mixed result: ${JSON.stringify(items)}`,
            );
            for (const item of items) {
              const key = item.text.slice(4);
              tally.check(
                endLines.get(item.path)?.get(key) === item.line,
                () => `search_text: ${item.path}:${item.line} "${item.text}" is no line of any version`,
              );
            }
          }
        }
        tally.check((await peer.close()) === 0, () => `client ${w}: the server did not exit 0`);
      } catch (error) {
        tally.fail(`client ${w}: ${String(error)}`);
      } finally {
        await peer.kill();
        tally.absorb(peer);
      }
    };
    await Promise.all(Array.from({ length: clients }, (_, w) => client(w)));
    tally.figure(
      `${clients} servers; traversals completed ${counts.completed}, stale ${counts.stale}, ` +
        `transient ${counts.transient}`,
    );
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `concurrency` campaign. */
export const concurrencyCampaign: Campaign = { name: "concurrency", run };
