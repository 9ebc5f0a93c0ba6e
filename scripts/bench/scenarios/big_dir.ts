/**
 * One directory of 160,000 names (20,000 with `--quick`), listed for the
 * first time by a fresh server while the client sends `tools/list` every
 * 5 ms: how long the longest of those waited (what the directory's read holds
 * input for, with the answers queued behind it), and how long the listing
 * took. Reported, not judged: the issue sets no target here. DESIGN.md says
 * what it was before a big directory was read with pauses.
 *
 * @module
 */
import { byString, type Context, ms, type Outcome } from "../context.ts";
import { bigDirCorpus, bigDirName } from "../corpus.ts";
import { perRuntime, pick } from "../measure.ts";
import { median } from "../stats.ts";

const ASK_EVERY_MS = 5;
const PAGE = 5;

/** A row of texts: per runtime, the medians over `ctx.reps` fresh servers. */
export async function bigDir(ctx: Context): Promise<Outcome> {
  const names = ctx.sizes.bigDirNames;
  const root = await bigDirCorpus(names);
  const first = Array.from({ length: names }, (_, i) => bigDirName(i, names)).sort(byString).slice(0, PAGE);
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    const totals: number[] = [];
    const waits: number[] = [];
    for (let r = 0; r < ctx.reps; r++) {
      const client = rt.server(root);
      try {
        await client.discover();
        let done = false;
        const t0 = performance.now();
        const listing = client.page("list_directory", { path: "big", limit: PAGE }).finally(() =>
          done = true
        );
        let longest = 0;
        const asks: Promise<void>[] = [];
        while (!done) {
          const asked = performance.now();
          asks.push(
            client.request("tools/list").then(() => {
              longest = Math.max(longest, performance.now() - asked);
            }),
          );
          await new Promise((resolve) => setTimeout(resolve, ASK_EVERY_MS));
        }
        const page = await listing;
        totals.push(performance.now() - t0);
        await Promise.all(asks);
        waits.push(longest);
        ctx.sameList(
          page.items.map((i: { name: string }) => i.name),
          first,
          "first page of the big directory",
        );
        ctx.check(page.next_cursor !== null, "the big directory's first page has a cursor");
      } finally {
        await client.close();
      }
    }
    notes.push(
      `${rt.name} big directory: listings ${totals.map(ms).join(", ")}; longest waits ${
        waits.map(ms).join(", ")
      }`,
    );
    return { text: `listing ${ms(median(totals))}; longest tools/list wait ${ms(median(waits))}` };
  });
  return {
    rows: [{
      section: "scale",
      what: `one directory of ${
        names.toLocaleString("en-US")
      } names: a fresh server's first list_directory page, tools/list sent every ${ASK_EVERY_MS} ms meanwhile`,
      baseline: "—",
      unit: "ms",
      values: {},
      texts: pick(runs, "text"),
      target: {},
      targetText: "completes, its first page right; times reported (medians of fresh servers)",
    }],
    notes,
  };
}
