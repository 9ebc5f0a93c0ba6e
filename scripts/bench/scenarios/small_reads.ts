/**
 * 500 sequential reads of small files (1-4 KiB), p50 and p99, against the
 * same client calling a no-op tool on a bare SDK `McpServer`. Two floors, as
 * ratios to the same no-op: a bare `McpServer` answering each read with the
 * page the server gave, and the same first making the system calls a warm
 * server made for each read (`bare_server.mjs syscalls`).
 *
 * @module
 */
import { byString, type Context, ms, type Outcome } from "../context.ts";
import { smallCorpus } from "../corpus.ts";
import { perRuntime, pick } from "../measure.ts";
import { recordSyscalls } from "../syscalls.ts";
import { both, BOTH_RUNTIMES, REFERENCE, type Row } from "../report.ts";
import type { RpcClient } from "../rpc.ts";
import { median, percentile } from "../stats.ts";

/** Rows: the reads' p50 and p99 over the no-op's. */
export async function smallReads(ctx: Context): Promise<Outcome> {
  const root = await smallCorpus(ctx.sizes.smallFiles);
  const names = [...Deno.readDirSync(`${root}/s`)].map((e) => `s/${e.name}`).sort(byString);
  const contents = new Map(names.map((n) => [n, Deno.readTextFileSync(`${root}/${n}`)]));
  const notes: string[] = [];
  /** One call per file; returns each call's time. `recorded`: where each call and its page go. */
  const calls = async (client: RpcClient, tool: string, checked: boolean, recorded?: string[]) => {
    const times: number[] = [];
    for (const name of names) {
      const t0 = performance.now();
      const page = await client.page(tool, { path: name });
      times.push(performance.now() - t0);
      recorded?.push(JSON.stringify({ tool, args: { path: name }, page }) + "\n");
      if (!checked) continue;
      ctx.check(page.next_cursor === null, `${name} is one page`);
      ctx.check(
        page.items.map((i: { text: string }) => i.text).join("") === contents.get(name),
        `${name} content`,
      );
    }
    return times;
  };
  const callsFile = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-calls-", suffix: ".jsonl" });
  const opsFile = await Deno.makeTempFile({ prefix: "ptc-fs-mcp-bench-ops-", suffix: ".jsonl" });
  const recording = recordSyscalls(root, opsFile, async (caller) => {
    for (const path of names) await caller.call("read_text_file", { path });
  }, { warm: true });
  const runs = await recording.then(() =>
    perRuntime(ctx, async (rt) => {
      const [p50, p99, b50, b99, f50, s50]: number[][] = [[], [], [], [], [], []];
      // Fresh processes each round: how the scheduler places one process for its whole life moved
      // the no-op's p50 between 0.2 and 0.45 ms, so one pair of processes decided the ratio.
      for (let round = 0; round < ctx.sizes.callRounds; round++) {
        const server = rt.server(root);
        const noop = rt.bare("noop");
        let floor: RpcClient | undefined;
        let syscalls: RpcClient | undefined;
        try {
          await server.discover();
          await noop.discover();
          const recorded: string[] = [];
          await calls(server, "read_text_file", true, recorded);
          await Deno.writeTextFile(callsFile, recorded.join(""));
          floor = rt.bare("calls", callsFile);
          syscalls = rt.bare("syscalls", opsFile, root);
          await floor.discover();
          await syscalls.discover();
          await calls(noop, "noop", false);
          await calls(floor, "read_text_file", true);
          await calls(syscalls, "read_text_file", true);
          const b = await calls(noop, "noop", false);
          const t = await calls(server, "read_text_file", true);
          f50.push(percentile(await calls(floor, "read_text_file", true), 50));
          s50.push(percentile(await calls(syscalls, "read_text_file", true), 50));
          b50.push(percentile(b, 50));
          b99.push(percentile(b, 99));
          p50.push(percentile(t, 50));
          p99.push(percentile(t, 99));
        } finally {
          await server.close();
          await noop.close();
          await floor?.close();
          await syscalls?.close();
        }
      }
      if (ctx.verbose) {
        notes.push(
          `${rt.name} small reads (${ctx.sizes.callRounds} rounds, fresh processes): p50 ${
            ms(median(p50))
          } / ` +
            `noop ${ms(median(b50))}, p99 ${ms(median(p99))} / noop ${ms(median(b99))}`,
        );
      }
      const noop = median(b50);
      return {
        p50: median(p50) / noop,
        p99: median(p99) / median(b99),
        floor: median(f50) / noop,
        syscalls: median(s50) / noop,
      };
    })
  ).finally(async () => {
    await Deno.remove(callsFile).catch(() => {});
    await Deno.remove(opsFile).catch(() => {});
  });
  const baseline = "the same client calling a no-op tool on a bare SDK McpServer (serveStdio)";
  const row = (what: string, key: "p50" | "p99" | "floor" | "syscalls", target = REFERENCE): Row => ({
    section: "call",
    what,
    baseline,
    unit: "×",
    values: pick(runs, key),
    target,
  });
  const reads = `${names.length} sequential small-file reads`;
  return {
    rows: [
      row(`${reads}, p50`, "p50", both(1.3)),
      {
        ...row(
          "the same reads against a bare SDK McpServer answering with the recorded pages, p50 (floor)",
          "floor",
        ),
        floorOn: BOTH_RUNTIMES,
      },
      {
        ...row(
          "the same, each call first making the system calls the server made for it, p50 (floor)",
          "syscalls",
        ),
        floorOn: BOTH_RUNTIMES,
      },
      row(`${reads}, p99`, "p99", both(2)),
    ],
    notes,
  };
}
