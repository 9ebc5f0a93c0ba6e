/**
 * Campaign `cancel`: a long `search_text` over a large corpus is cancelled
 * mid-call with `notifications/cancelled`. Nothing more may be sent for that
 * id — checked for twice as long as the uncancelled call takes — and the
 * next request must be answered.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { META, Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, Rng, sleep, Tally, tempDir } from "./util.ts";

const MiB = 1024 * 1024;

/** Plain lines with no match, plus matching lines that are not UTF-8 (skipped whole, at a cost). */
function corpusFile(size: number): Buffer {
  const plain = Buffer.from("y".repeat(63) + "\n");
  const invalid = Buffer.from(
    "needle \xff xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\n",
    "latin1",
  );
  const block = Buffer.concat([...Array(15).fill(plain), invalid]);
  return Buffer.concat(Array(Math.ceil(size / block.length)).fill(block)).subarray(0, size);
}

async function run(options: CampaignOptions) {
  const tally = new Tally("cancel", options);
  const long = options.scale === "long";
  const rng = new Rng(options.seed);
  const base = tempDir("cancel");
  try {
    const root = join(base.path, "root");
    mkdirSync(join(root, "big"), { recursive: true });
    const files = long ? 10 : 4;
    const file = corpusFile(8 * MiB);
    for (let i = 0; i < files; i++) writeFileSync(join(root, "big", `c${i}.txt`), file);
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    const search = { name: "search_text", arguments: { query: "needle", path: "big" } };
    try {
      // The uncancelled call, twice (the first also warms the page cache): its duration bounds the wait.
      let full = Infinity;
      for (let i = 0; i < 2; i++) {
        const started = Date.now();
        const reply = await peer.request("tools/call", search, { timeoutMs: 300_000 });
        full = Math.min(full, Date.now() - started);
        tally.check(
          reply.result?.isError !== true,
          () => `the uncancelled search failed: ${JSON.stringify(reply)}`,
        );
      }
      const rounds = long ? 12 : 3;
      const answerTimes: number[] = [];
      let early = 0;
      for (let i = 0; i < rounds; i++) {
        const id = `long-${i}`;
        let answered = false;
        const call = peer.send(
          { jsonrpc: "2.0", id, method: "tools/call", params: { ...search, _meta: META } },
          300_000,
        ).then(() => (answered = true), () => {});
        await sleep(rng.range(1, Math.max(2, Math.floor(full / 10))));
        if (answered) {
          early++; // finished before the cancellation could be sent: not a cancellation
          continue;
        }
        tally.iterations++;
        peer.cancel(id);
        const started = Date.now();
        const ok = await peer.answers(120_000);
        answerTimes.push(Date.now() - started);
        tally.check(ok, () => `no answer after cancelling ${id}`);
        await call;
        await sleep(full * 2 + 100);
        const late = peer.answeredAfterCancel.find((a) => a.id === id);
        tally.check(late === undefined, () => `${id} was answered after its cancellation: ${late?.answer}`);
      }
      await tally.checkCleanExit(peer);
      answerTimes.sort((a, b) => a - b);
      tally.figure(
        `uncancelled call ${full} ms over ${files * 8} MiB; after cancel the next answer took ` +
          `median ${answerTimes[answerTimes.length >> 1] ?? "-"} ms, max ${answerTimes.at(-1) ?? "-"} ms` +
          (early > 0 ? `; ${early} calls finished before the cancel` : ""),
      );
    } finally {
      await peer.kill();
      tally.absorb(peer);
    }
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `cancel` campaign. */
export const cancelCampaign: Campaign = { name: "cancel", run };
