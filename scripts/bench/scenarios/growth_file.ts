/**
 * How `read_text_file` grows with the file: full traversals of 1, 8 and
 * 64 MiB UTF-8 files at default limits on warm servers, per MiB.
 *
 * @module
 */
import type { Context, Outcome } from "../context.ts";
import { readCorpus } from "../corpus.ts";
import { growthFigure, type Timing, warm } from "../measure.ts";
import type { RuntimeName } from "../report.ts";
import { readFile, type Traversal } from "../traversals.ts";

/** A figure line: time per file size, and the time per MiB. */
export async function growthFile(ctx: Context): Promise<Outcome> {
  const traversals: Traversal[] = [];
  for (const bytes of ctx.sizes.growthReadBytes) {
    traversals.push(await readFile(ctx, await readCorpus(bytes), "big.txt"));
  }
  const runs: Partial<Record<RuntimeName, Timing[]>> = {};
  for (const t of traversals) {
    for (const [name, timing] of Object.entries(await warm(ctx, t, "read_text_file"))) {
      (runs[name as RuntimeName] ??= []).push(timing);
    }
  }
  const mib = ctx.sizes.growthReadBytes.map((b) => b / 1024 / 1024);
  return {
    rows: [],
    figures: [
      growthFigure(
        `read_text_file full traversal of ${mib.join(" / ")} MiB, default limits`,
        runs,
        (t, i) => (t.server / mib[i]).toFixed(0),
        " ms per MiB",
      ),
    ],
  };
}
