/**
 * Campaign `shutdown`: a random batch of requests is written at once (long
 * and short searches, reads, listings, writes, refused and cancelled ones),
 * then the input ends, by closing stdin or by SIGTERM or SIGINT, at a random
 * moment. Every request that was not cancelled must be answered, and the
 * process must exit with status 0 (SPEC section 2: no reply is lost at
 * shutdown).
 *
 * @module
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { type Message, META, Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, Rng, sleep, Tally, tempDir } from "./util.ts";

const ENDINGS = ["eof", "SIGTERM", "SIGINT"] as const;

/** One request of a batch: its line, and whether it is cancelled right after it is sent. */
function randomRequest(rng: Rng, id: number): { line: string; cancel: boolean } {
  const call = (name: string, args: unknown) => ({ method: "tools/call", params: { name, arguments: args } });
  const kinds = [
    () => call("search_text", { query: rng.pick(["absent needle", "dolor", "f1"]) }),
    () => call("search_text", { query: "amet", path: "corpus", limit: rng.range(1, 50) }),
    () => call("read_text_file", { path: `corpus/f${rng.range(0, 31)}.txt` }),
    () => call("list_directory", { path: rng.pick(["", "corpus"]) }),
    () => call("search_files", { query: "f" }),
    () =>
      call("write_text_file", { path: `out${rng.range(0, 3)}.txt`, content: "x".repeat(rng.range(0, 5000)) }),
    () => call("no_such_tool", {}),
    () => ({ method: "server/discover", params: {} }),
    () => ({ method: "tools/list", params: {} }),
  ];
  const { method, params } = rng.pick(kinds)();
  const legacy = rng.chance(0.05);
  const meta = legacy ? { ...META, "io.modelcontextprotocol/protocolVersion": "2025-11-25" } : META;
  const line = JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } });
  return { line, cancel: rng.chance(0.1) };
}

async function run(options: CampaignOptions) {
  const tally = new Tally("shutdown", options);
  const rng = new Rng(options.seed);
  const rounds = options.scale === "long" ? 500 : 6;
  const base = tempDir("shutdown");
  const endings: Record<string, number> = { eof: 0, SIGTERM: 0, SIGINT: 0 };
  let requests = 0;
  try {
    const root = join(base.path, "root");
    mkdirSync(join(root, "corpus"), { recursive: true });
    const line = "lorem ipsum dolor sit amet ".repeat(40) + "\n";
    for (let i = 0; i < 32; i++) writeFileSync(join(root, "corpus", `f${i}.txt`), line.repeat(512));
    for (let round = 0; round < rounds; round++) {
      const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
      try {
        const ending = rng.pick(ENDINGS);
        endings[ending]++;
        // A signal ends what was received: so the server is up before the batch, and the batch
        // ends with a marker request whose answer shows that every line of it was read.
        if (ending !== "eof") tally.check(await peer.answers(), () => "the server did not start");
        const answers: Promise<Message | null>[] = [];
        const size = rng.range(1, 12);
        for (let i = 0; i < size; i++) {
          const id = peer.nextId();
          const { line, cancel } = randomRequest(rng, id);
          const answer = peer.sendLine(line, id, 60_000);
          if (cancel) {
            answer.catch(() => {});
            peer.cancel(id);
          } else answers.push(answer.catch((error) => (tally.fail(`${id} lost: ${error.message}`), null)));
        }
        requests += answers.length;
        tally.iterations++;
        if (ending === "eof") {
          await sleep(rng.chance(0.5) ? 0 : rng.range(1, 60));
          peer.child.stdin!.end();
        } else {
          await peer.request("server/discover");
          await sleep(rng.range(0, 30));
          // Not `child.kill`: Deno's child_process reports a killed child's exit as that signal.
          process.kill(peer.child.pid!, ending);
        }
        await Promise.all(answers);
        const exit = await peer.exited();
        tally.check(
          exit.code === 0 && exit.signal === null,
          () => `after ${ending}, the exit was ${JSON.stringify(exit)}`,
        );
      } finally {
        await peer.kill();
        tally.absorb(peer);
      }
    }
    tally.figure(
      `${rounds} batches, ${requests} requests to answer, ended by EOF ${endings.eof}, SIGTERM ` +
        `${endings.SIGTERM}, SIGINT ${endings.SIGINT} times`,
    );
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `shutdown` campaign. */
export const shutdownCampaign: Campaign = { name: "shutdown", run };
