/**
 * How `search_files` grows with the tree: full traversals of the 1,000,
 * 10,000 and 100,000-file trees on warm servers, with `find | grep` beside.
 *
 * @module
 */
import type { Context, Outcome } from "../context.ts";
import { tree, treeCorpus } from "../corpus.ts";
import { growthFigure, type Timing, warm } from "../measure.ts";
import type { RuntimeName } from "../report.ts";
import { searchFiles, type Traversal } from "../traversals.ts";

/** A figure line: time per tree size, and the ratio to `find | grep`. */
export async function growthTree(ctx: Context): Promise<Outcome> {
  const traversals: (Traversal & { files: number })[] = [];
  for (const files of ctx.sizes.growthLeafFiles) {
    traversals.push(await searchFiles(ctx, await treeCorpus(tree(files))));
  }
  const runs: Partial<Record<RuntimeName, Timing[]>> = {};
  for (const t of traversals) {
    for (const [name, timing] of Object.entries(await warm(ctx, t, "search_files"))) {
      (runs[name as RuntimeName] ??= []).push(timing);
    }
  }
  const sizes = traversals.map((t) => t.files.toLocaleString("en-US")).join(" / ");
  return {
    rows: [],
    figures: [
      growthFigure(
        `search_files full traversal of ${sizes} files`,
        runs,
        (t) => (t.server / t.base).toFixed(2),
        "× find | grep",
      ),
    ],
  };
}
