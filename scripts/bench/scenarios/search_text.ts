/**
 * `search_text` for a rare needle over the text corpus, on a warm server,
 * against `grep -rFn`; and the server's peak RSS meanwhile.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { textCorpus } from "../corpus.ts";
import { floorRow, peakRow, perRuntime, pick, warm } from "../measure.ts";
import { both } from "../report.ts";
import { searchText as traversal } from "../traversals.ts";

/** Rows: the traversal's ratio to grep, and peak RSS over idle. */
export async function searchText(ctx: Context): Promise<Outcome> {
  const { textFiles, textFileBytes } = ctx.sizes;
  const t = await traversal(ctx, await textCorpus(textFiles, textFileBytes));
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    const r = await warm(ctx, rt, t, "search_text", true);
    notes.push(
      `${rt.name} search_text: ${r.calls} calls, ${t.expected} matches` +
        (ctx.verbose ? `; server ${ms(r.server)}, grep ${ms(r.base)}` : ""),
      r.rss.note,
    );
    return { ratio: r.server / r.base, floor: r.floor! / r.base, rss: r.rss.ratio };
  });
  return {
    rows: [
      {
        section: "warm",
        what: `search_text full traversal, rare needle, ${textFiles.toLocaleString("en-US")} files × ${
          textFileBytes / 1024
        } KiB`,
        baseline: t.baselineText,
        unit: "×",
        values: pick(runs, "ratio"),
        target: both(3),
      },
      floorRow("warm", t.baselineText, pick(runs, "floor")),
      peakRow("search_text", pick(runs, "rss")),
    ],
    notes,
  };
}
