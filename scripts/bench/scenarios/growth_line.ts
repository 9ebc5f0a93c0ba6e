/**
 * How `search_text` grows with line length: the rare needle over files of
 * about 1 MB whose lines are all 100 B, 10 KB or 1 MB long, on warm servers,
 * with `grep -rFn` beside.
 *
 * @module
 */
import type { Context, Outcome } from "../context.ts";
import { lineCorpus } from "../corpus.ts";
import { growthFigure, type Timing, warm } from "../measure.ts";
import type { RuntimeName } from "../report.ts";
import { searchText, type Traversal } from "../traversals.ts";

const LINES: [number, string][] = [[100, "100 B"], [10_000, "10 KB"], [1_000_000, "1 MB"]];

/** A figure line: time per line length, and the ratio to grep. */
export async function growthLine(ctx: Context): Promise<Outcome> {
  const files = ctx.sizes.growthLineFiles;
  const traversals: Traversal[] = [];
  for (const [bytes] of LINES) traversals.push(await searchText(ctx, await lineCorpus(bytes, files)));
  const runs: Partial<Record<RuntimeName, Timing[]>> = {};
  for (const t of traversals) {
    for (const [name, timing] of Object.entries(await warm(ctx, t, "search_text"))) {
      (runs[name as RuntimeName] ??= []).push(timing);
    }
  }
  return {
    rows: [],
    figures: [
      growthFigure(
        `search_text over ${files} files of 1 MB whose lines are ${LINES.map(([, l]) => l).join(" / ")}`,
        runs,
        (t) => (t.server / t.base).toFixed(2),
        "× grep",
      ),
    ],
  };
}
