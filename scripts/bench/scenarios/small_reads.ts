/**
 * 500 sequential reads of small files (1-4 KiB), p50 and p99, against the
 * same client calling a no-op tool on a bare SDK `McpServer`.
 *
 * @module
 */
import { byString, type Context, ms, type Outcome } from "../context.ts";
import { smallCorpus } from "../corpus.ts";
import { perRuntime, pick } from "../measure.ts";
import { both, type Row } from "../report.ts";
import type { RpcClient } from "../rpc.ts";
import { median, percentile } from "../stats.ts";

/** Rows: the reads' p50 and p99 over the no-op's. */
export async function smallReads(ctx: Context): Promise<Outcome> {
  const root = await smallCorpus(ctx.sizes.smallFiles);
  const names = [...Deno.readDirSync(`${root}/s`)].map((e) => `s/${e.name}`).sort(byString);
  const contents = new Map(names.map((n) => [n, Deno.readTextFileSync(`${root}/${n}`)]));
  const notes: string[] = [];
  /** One call per file; returns each call's time. */
  const calls = async (client: RpcClient, tool: string, checked: boolean) => {
    const times: number[] = [];
    for (const name of names) {
      const t0 = performance.now();
      const page = await client.page(tool, { path: name });
      times.push(performance.now() - t0);
      if (!checked) continue;
      ctx.check(page.next_cursor === null, `${name} is one page`);
      ctx.check(
        page.items.map((i: { text: string }) => i.text).join("") === contents.get(name),
        `${name} content`,
      );
    }
    return times;
  };
  const runs = await perRuntime(ctx, async (rt) => {
    const [p50, p99, b50, b99]: number[][] = [[], [], [], []];
    // Fresh processes each round: how the scheduler places one process for its whole life moved
    // the no-op's p50 between 0.2 and 0.45 ms, so one pair of processes decided the ratio.
    for (let round = 0; round < ctx.sizes.callRounds; round++) {
      const server = rt.server(root);
      const noop = rt.bare("noop");
      try {
        await server.discover();
        await noop.discover();
        await calls(server, "read_text_file", true);
        await calls(noop, "noop", false);
        const b = await calls(noop, "noop", false);
        const t = await calls(server, "read_text_file", true);
        b50.push(percentile(b, 50));
        b99.push(percentile(b, 99));
        p50.push(percentile(t, 50));
        p99.push(percentile(t, 99));
      } finally {
        await server.close();
        await noop.close();
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
    return { p50: median(p50) / median(b50), p99: median(p99) / median(b99) };
  });
  const row = (p: "p50" | "p99", target: number): Row => ({
    section: "call",
    what: `${names.length} sequential small-file reads, ${p}`,
    baseline: "the same client calling a no-op tool on a bare SDK McpServer (serveStdio)",
    unit: "×",
    values: pick(runs, p),
    target: both(target),
  });
  return { rows: [row("p50", 1.3), row("p99", 2)], notes };
}
