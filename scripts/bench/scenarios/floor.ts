/**
 * The per-call floor, decomposed: p50 of sequential calls from one client
 * to a raw JSON-RPC line server (no SDK), to the SDK's low-level `Server`
 * with a `tools/call` handler, and to an SDK `McpServer` with input and
 * output schemas, each replaying from memory the page the real server
 * returned; then the real server's `read_text_file` of the same file. Two
 * payloads: a 3-byte file, and a 22 KB text, which the result carries twice
 * (the text block and `structuredContent`).
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { floorCorpus } from "../corpus.ts";
import { perRuntime } from "../measure.ts";
import { DENO_OVER_NODE, REFERENCE, type Row, type RuntimeName } from "../report.ts";
import type { RpcClient } from "../rpc.ts";
import type { BareMode } from "../runtimes.ts";
import { median, percentile } from "../stats.ts";

const PAYLOADS = [{ file: "tiny.txt", label: "3-byte file" }, { file: "page.txt", label: "22 KB text" }];
const FLOORS: [BareMode, string][] = [
  ["raw", "raw JSON-RPC line server, no SDK"],
  ["server", "SDK low-level Server, tools/call handler"],
  ["mcp", "SDK McpServer with input and output schemas"],
];

/** Rows: each floor's p50 in ms, and the real server's p50 over the McpServer floor's, per payload. */
export async function floor(ctx: Context): Promise<Outcome> {
  const root = await floorCorpus();
  const contents = PAYLOADS.map((p) => Deno.readTextFileSync(`${root}/${p.file}`));
  const n = ctx.quick ? 200 : 500;
  /** p50 of `n` calls after 50 untimed ones; every answer must be the whole file in one page. */
  const p50 = async (client: RpcClient, payload: number) => {
    const times: number[] = [];
    for (let i = -50; i < n; i++) {
      const t0 = performance.now();
      const page = await client.page("read_text_file", { path: PAYLOADS[payload].file });
      if (i >= 0) times.push(performance.now() - t0);
      ctx.check(
        page.next_cursor === null &&
          page.items.map((i: { text: string }) => i.text).join("") === contents[payload],
        `${client.label} answers ${PAYLOADS[payload].file} whole in one page`,
      );
    }
    return percentile(times, 50);
  };
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    // [payload][raw, server, mcp, ours]: one p50 per round, each round with fresh processes.
    const samples = PAYLOADS.map(() => FLOORS.map(() => [] as number[]).concat([[]]));
    const bytes: number[] = [];
    for (let round = 0; round < ctx.sizes.callRounds; round++) {
      const ours = rt.server(root);
      const started: RpcClient[] = [ours];
      const files: string[] = [];
      try {
        await ours.discover();
        for (let p = 0; p < PAYLOADS.length; p++) {
          const response = await ours.request("tools/call", {
            name: "read_text_file",
            arguments: { path: PAYLOADS[p].file },
          });
          bytes[p] = new TextEncoder().encode(JSON.stringify(response)).length;
          const file = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-page-", suffix: ".jsonl" });
          files.push(file);
          await Deno.writeTextFile(file, JSON.stringify(response.result.structuredContent) + "\n");
          const clients = FLOORS.map(([mode]) => rt.bare(mode, file));
          started.push(...clients);
          for (const client of clients) await client.discover();
          for (const [a, client] of [...clients, ours].entries()) samples[p][a].push(await p50(client, p));
        }
      } finally {
        for (const client of started) await client.close();
        for (const file of files) await Deno.remove(file).catch(() => {});
      }
    }
    const medians = samples.map((arms) => arms.map(median));
    for (const [p, m] of medians.entries()) {
      notes.push(
        `${rt.name} per-call p50, ${PAYLOADS[p].label} (${
          bytes[p].toLocaleString("en-US")
        }-byte response): raw ${ms(m[0])}, ` +
          `low-level Server ${ms(m[1])}, McpServer ${ms(m[2])}, ptc-fs-mcp ${ms(m[3])}`,
      );
    }
    return { medians, bytes };
  });
  const first = (runs.node ?? runs.deno)!;
  const rows: Row[] = [];
  const by = (f: (m: number[][]) => number) => {
    const values: Partial<Record<RuntimeName, number>> = {};
    for (const name of ["node", "deno"] as const) if (runs[name]) values[name] = f(runs[name]!.medians);
    return values;
  };
  for (const [p, payload] of PAYLOADS.entries()) {
    const what = `${payload.label} (${first.bytes[p].toLocaleString("en-US")}-byte response)`;
    for (const [a, [, label]] of FLOORS.entries()) {
      rows.push({
        section: "call",
        what: `per-call floor, ${what}: ${label}, p50`,
        baseline: `— (${n} sequential calls, one client)`,
        unit: "ms",
        values: by((m) => m[p][a]),
        target: REFERENCE,
      });
    }
    rows.push({
      section: "call",
      what: `ptc-fs-mcp read_text_file, ${what}, p50`,
      baseline: "the McpServer floor above",
      unit: "×",
      values: by((m) => m[p][3] / m[p][2]),
      target: { denoOverNode: DENO_OVER_NODE },
    });
  }
  return { rows, notes };
}
