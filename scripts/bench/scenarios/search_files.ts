/**
 * `search_files` for a name word carried by about 10% of the 100,000-file
 * tree, on a warm server, against `find | grep`; and the peak RSS meanwhile.
 * Under it, its floor (a warm bare SDK server answering the same calls) and,
 * for reference, the Deno server run with `--allow-all`: each page lstats
 * every directory again (the cursor binds every match), and under a grant
 * Deno checks each of those paths against it, so the difference is what its
 * permission checks cost.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { tree, treeCorpus } from "../corpus.ts";
import { floorRow, peakRow, perRuntime, pick, uncheckedRow, warm } from "../measure.ts";
import { both } from "../report.ts";
import { searchFiles as traversal } from "../traversals.ts";

/** Rows: the traversal's ratio to find | grep, and peak RSS over idle. */
export async function searchFiles(ctx: Context): Promise<Outcome> {
  const t = await traversal(ctx, await treeCorpus(tree(ctx.sizes.treeLeafFiles)));
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    const r = await warm(ctx, rt, t, "search_files", "calls", { unchecked: true });
    notes.push(
      `${rt.name} search_files: ${r.calls} calls, ${t.expected} matches; server ${ms(r.server)}` +
        (r.unchecked === undefined ? "" : `, with --allow-all ${ms(r.unchecked)}`) +
        `, find|grep ${ms(r.base)}`,
      r.rss.note,
    );
    return {
      ratio: r.server / r.base,
      floor: r.floor! / r.base,
      unchecked: r.unchecked === undefined ? undefined : r.unchecked / r.base,
      rss: r.rss.ratio,
    };
  });
  return {
    rows: [
      {
        section: "warm",
        what: `search_files full traversal, ${(t.expected / t.files * 100).toFixed(1)}% of a ${
          t.files.toLocaleString("en-US")
        }-file tree`,
        baseline: t.baselineText,
        unit: "×",
        values: pick(runs, "ratio"),
        target: both(5),
      },
      floorRow("warm", t.baselineText, pick(runs, "floor")),
      uncheckedRow("warm", t.baselineText, pick(runs, "unchecked")),
      peakRow("search_files", pick(runs, "rss")),
    ],
    notes,
  };
}
