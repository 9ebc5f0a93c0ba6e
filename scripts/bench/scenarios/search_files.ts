/**
 * `search_files` for a name word carried by about 10% of the 100,000-file
 * tree, on a warm server, against `find | grep`; and the peak RSS meanwhile.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { tree, treeCorpus } from "../corpus.ts";
import { floorRow, peakRow, perRuntime, pick, warm } from "../measure.ts";
import { both } from "../report.ts";
import { searchFiles as traversal } from "../traversals.ts";

/** Rows: the traversal's ratio to find | grep, and peak RSS over idle. */
export async function searchFiles(ctx: Context): Promise<Outcome> {
  const t = await traversal(ctx, await treeCorpus(tree(ctx.sizes.treeLeafFiles)));
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    const r = await warm(ctx, rt, t, "search_files", "calls");
    notes.push(
      `${rt.name} search_files: ${r.calls} calls, ${t.expected} matches` +
        (ctx.verbose ? `; server ${ms(r.server)}, find|grep ${ms(r.base)}` : ""),
      r.rss.note,
    );
    return { ratio: r.server / r.base, floor: r.floor! / r.base, rss: r.rss.ratio };
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
      peakRow("search_files", pick(runs, "rss")),
    ],
    notes,
  };
}
