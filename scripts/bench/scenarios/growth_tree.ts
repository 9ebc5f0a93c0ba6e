/**
 * How `search_files` grows with the tree: full traversals of the 1,000,
 * 10,000 and 100,000-file trees on warm servers, with `find | grep` beside.
 *
 * @module
 */
import type { Context, Outcome } from "../context.ts";
import { tree, treeCorpus } from "../corpus.ts";
import { growthFigure, perRuntime, warm } from "../measure.ts";
import { searchFiles, type Traversal } from "../traversals.ts";

/** A figure line: time per tree size, and the ratio to `find | grep`. */
export async function growthTree(ctx: Context): Promise<Outcome> {
  const traversals: (Traversal & { files: number })[] = [];
  for (const files of ctx.sizes.growthLeafFiles) {
    traversals.push(await searchFiles(ctx, await treeCorpus(tree(files))));
  }
  const runs = await perRuntime(ctx, async (rt) => {
    const timings = [];
    for (const t of traversals) timings.push(await warm(ctx, rt, t, "search_files"));
    return timings;
  });
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
