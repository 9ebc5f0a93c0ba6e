/**
 * Cold start: spawn to the first `server/discover` response, against the
 * runtime's empty start (`node -e 0`, `deno eval 0`).
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { smallCorpus } from "../corpus.ts";
import { interleave, perRuntime } from "../measure.ts";
import { both } from "../report.ts";

/** Row: the server's start over the empty start. */
export async function coldStart(ctx: Context): Promise<Outcome> {
  const root = await smallCorpus(ctx.sizes.smallFiles);
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    const start = async () => {
      const t0 = performance.now();
      const client = rt.server(root);
      await client.discover();
      const t = performance.now() - t0;
      await client.close();
      return t;
    };
    const r = await interleave(ctx.quick ? 5 : 15, [() => rt.empty(), start]);
    if (ctx.verbose) {
      notes.push(`${rt.name} cold start ${ms(r.medians[1])}, ${rt.emptyText} ${ms(r.medians[0])}`);
    }
    return r.medians[1] / r.medians[0];
  });
  return {
    rows: [{
      section: "start",
      what: "cold start: spawn → first server/discover response",
      baseline: "`node -e 0` (Deno column: `deno eval 0`)",
      unit: "×",
      values: runs,
      target: both(2.5, 3),
    }],
    notes,
  };
}
