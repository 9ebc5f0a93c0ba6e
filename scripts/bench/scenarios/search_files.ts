/**
 * `search_files` for a name word carried by about 10% of the 100,000-file
 * tree, on a warm server, against `find | grep`; and the peak RSS meanwhile.
 * Under it, its floors (a warm bare SDK server answering the same calls, and
 * the same first making the server's system calls for each) and, for
 * reference, the Deno server run with `--allow-all`: each page lstats
 * every directory again (the cursor binds every match), and under a grant
 * Deno checks each of those paths against it, so the difference is what its
 * permission checks cost. Also for reference, the peak RSS of the bare
 * server making those system calls.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { tree, treeCorpus } from "../corpus.ts";
import { floorRow, mapRuntimes, peakRow, pick, uncheckedRow, warm } from "../measure.ts";
import { both, REFERENCE } from "../report.ts";
import { searchFiles as traversal } from "../traversals.ts";

/** Rows: the traversal's ratio to find | grep, and peak RSS over idle. */
export async function searchFiles(ctx: Context): Promise<Outcome> {
  const t = await traversal(ctx, await treeCorpus(tree(ctx.sizes.treeLeafFiles)));
  const notes: string[] = [];
  const runs = mapRuntimes(
    await warm(ctx, t, "search_files", "syscalls", {
      unchecked: true,
      reps: ctx.traversalReps,
    }),
    (rt, r) => {
      notes.push(
        `${rt} search_files: ${r.calls} calls, ${t.expected} matches; server ${ms(r.server)}` +
          `, with the server's system calls ${ms(r.syscalls!)}` +
          (r.unchecked === undefined ? "" : `, with --allow-all ${ms(r.unchecked)}`) +
          `, find|grep ${ms(r.base)}`,
        r.rss.note,
        r.syscallsRss!.note,
      );
      return {
        ratio: r.server / r.base,
        floor: r.floor! / r.base,
        syscalls: r.syscalls! / r.base,
        unchecked: r.unchecked === undefined ? undefined : r.unchecked / r.base,
        rss: r.rss.ratio,
        syscallsRss: r.syscallsRss!.ratio,
      };
    },
  );
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
      floorRow("warm", t.baselineText, pick(runs, "syscalls"), "syscalls"),
      uncheckedRow("warm", t.baselineText, pick(runs, "unchecked")),
      peakRow("search_files", pick(runs, "rss")),
      peakRow(
        "the same traversal on the bare server making the server's system calls " +
          "(reference: what the runtime holds for them alone)",
        pick(runs, "syscallsRss"),
        REFERENCE,
      ),
    ],
    notes,
  };
}
