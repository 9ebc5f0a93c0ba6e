/**
 * Campaign `garbage`: protocol garbage on stdin — random bytes and lines,
 * truncated JSON, a 10 MiB line, deeply nested JSON, ids of every JSON type,
 * batches, stray responses. Every stdout line must stay a JSON-RPC 2.0
 * message, the process must stay up, and a valid request after each burst
 * must be answered.
 *
 * @module
 */
import fc from "fast-check";
import { Buffer } from "node:buffer";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Message, META, Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, Tally, tempDir } from "./util.ts";

const VALID = {
  jsonrpc: "2.0",
  method: "tools/call",
  params: { name: "list_directory", arguments: {}, _meta: META },
};

const ODD_IDS: unknown[] = [null, true, false, 1.5, -1, 0, 1e300, "", "x", {}, { a: 1 }, [], [1], "😀", -0];

/** One line of garbage: bytes, text, cut JSON, odd ids, batches, stray responses. */
export const garbageArbitrary: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  fc.uint8Array({ maxLength: 300 }),
  fc.string({ unit: "binary", maxLength: 200 }),
  fc.nat({ max: 400 }).map((cut) => JSON.stringify({ ...VALID, id: 7 }).slice(0, cut % 180)),
  fc.constantFrom(...ODD_IDS).map((id) => JSON.stringify({ ...VALID, id })),
  fc.constantFrom(
    "[]",
    "{}",
    "null",
    "1",
    '"x"',
    `[${JSON.stringify({ ...VALID, id: 1 })},${JSON.stringify({ ...VALID, id: 2 })}]`,
    JSON.stringify({ jsonrpc: "1.0", id: 3, method: "tools/list", params: { _meta: META } }),
    JSON.stringify({ jsonrpc: "2.0", id: 4, params: { _meta: META } }),
    JSON.stringify({ jsonrpc: "2.0", id: 5, method: 42, params: { _meta: META } }),
    JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/list", params: [1, 2] }),
    JSON.stringify({ jsonrpc: "2.0", id: 8, result: {} }),
    JSON.stringify({ jsonrpc: "2.0", id: 9, error: { code: 1, message: "x" } }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/whatever", params: { _meta: META } }),
    JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 12345 } }),
    JSON.stringify({ jsonrpc: "2.0", id: 10, method: "no/such/method", params: { _meta: META } }),
    JSON.stringify({
      jsonrpc: "2.0",
      id: 11,
      method: "initialize",
      params: { protocolVersion: "2025-11-25" },
    }),
    "\r",
    "",
    "\uFEFF" + JSON.stringify({ ...VALID, id: 13 }),
  ),
);

/** The one-off monsters: a 10 MiB valid request, a 10 MiB junk line, deep nesting. */
function monsters(): [string, string][] {
  const tenMiB = 10 * 1024 * 1024;
  const bigQuery = JSON.stringify({
    jsonrpc: "2.0",
    id: "big",
    method: "tools/call",
    params: { name: "search_files", arguments: { query: "q".repeat(tenMiB) }, _meta: META },
  });
  return [
    ["a 10 MiB request", bigQuery],
    ["a 10 MiB junk line", "{".repeat(16) + "z".repeat(tenMiB)],
    ["arrays nested 100,000 deep", "[".repeat(100_000) + "]".repeat(100_000)],
    ["objects nested 100,000 deep", '{"a":'.repeat(100_000) + "0" + "}".repeat(100_000)],
    [
      "params nested 10,000 deep",
      JSON.stringify({ ...VALID, id: "deep" }).replace(
        '"arguments":{}',
        `"arguments":${'{"a":'.repeat(10_000)}0${"}".repeat(10_000)}`,
      ),
    ],
    ["an unterminated 1 MiB string", '{"jsonrpc":"2.0","id":1,"method":"' + "m".repeat(1 << 20)],
    ["a 40 MiB line", JSON.stringify({ ...VALID, id: "huge", pad: "p".repeat(40 * 1024 * 1024) })],
  ];
}

async function run(options: CampaignOptions) {
  const tally = new Tally("garbage", options);
  const long = options.scale === "long";
  const base = tempDir("garbage");
  try {
    const root = join(base.path, "root");
    mkdirSync(root);
    writeFileSync(join(root, "a.txt"), "a");
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    try {
      const answered = async (what: string) => {
        const ok = await peer.answers(60_000);
        tally.check(
          ok,
          () => `no answer after ${what} (alive: ${peer.alive}, stderr: ${peer.stderr.slice(0, 300)})`,
        );
        return ok;
      };
      for (const [what, line] of monsters()) {
        tally.iterations++;
        if (what === "a 10 MiB request") {
          // A request this large is still read, and refused for its query.
          const reply: Message = await peer.sendLine(line, "big", 60_000).catch((e) => ({
            error: String(e),
          }));
          tally.check(
            reply.result?.isError === true,
            () => `${what}: ${JSON.stringify(reply).slice(0, 300)}`,
          );
        } else peer.writeRaw(line + "\n");
        if (!(await answered(what))) break;
      }
      const lines = fc.sample(garbageArbitrary, { seed: options.seed, numRuns: long ? 4_000 : 400 });
      for (let i = 0; i < lines.length && peer.alive; i += 8) {
        const burst = lines.slice(i, i + 8);
        for (const line of burst) {
          tally.iterations++;
          peer.writeRaw(typeof line === "string" ? line + "\n" : Buffer.concat([line, Buffer.from("\n")]));
        }
        if (!(await answered(`garbage #${i}`))) break;
      }
      const code = await peer.close();
      tally.check(code === 0, () => `the server did not exit 0 after stdin closed (got ${code})`);
      tally.figure(`stdout lines checked: ${peer.lineCount}`);
    } finally {
      await peer.kill();
      tally.absorb(peer);
    }
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `garbage` campaign. */
export const garbageCampaign: Campaign = { name: "garbage", run };
