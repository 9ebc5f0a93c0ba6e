/**
 * `list_directory` of every directory of the 100,000-file tree, each
 * listing a full traversal, on a warm server, against `find`, with its
 * floors: a warm bare SDK server answering the same calls, the same
 * first making the system calls a warm server made for each (recorded in
 * process on a server that had made the same traversal once, its listings
 * cached: the lstats of the root pin and of each directory's chain), and the
 * same also doing the least work the contract asks of each call.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { tree, treeCorpus } from "../corpus.ts";
import { floorRow, mapRuntimes, pick, warm } from "../measure.ts";
import { both } from "../report.ts";
import { listAll as traversal } from "../traversals.ts";

/** Row: listing every directory, as a ratio to `find . -type f | wc -l`. */
export async function listAll(ctx: Context): Promise<Outcome> {
  const t = await traversal(ctx, await treeCorpus(tree(ctx.sizes.treeLeafFiles)));
  const notes: string[] = [];
  const runs = mapRuntimes(await warm(ctx, t, "list_all", "work", { reps: ctx.traversalReps }), (rt, r) => {
    notes.push(
      `${rt} list_all: ${r.calls} calls for ${t.expected} directories` +
        `; server ${ms(r.server)}, its floor ${ms(r.floor!)}, with the server's system calls ` +
        `${ms(r.syscalls!)}, and the least work ${ms(r.work!)}, find ${ms(r.base)}`,
    );
    return {
      ratio: r.server / r.base,
      floor: r.floor! / r.base,
      syscalls: r.syscalls! / r.base,
      work: r.work! / r.base,
    };
  });
  return {
    rows: [
      {
        section: "warm",
        what: `list_directory of every directory (${
          t.expected.toLocaleString("en-US")
        }), each a full traversal`,
        baseline: t.baselineText,
        unit: "×",
        values: pick(runs, "ratio"),
        target: both(10),
      },
      floorRow("warm", t.baselineText, pick(runs, "floor")),
      floorRow(
        "warm",
        t.baselineText,
        pick(runs, "syscalls"),
        "syscalls",
      ),
      floorRow("warm", t.baselineText, pick(runs, "work"), "syscalls and least work"),
    ],
    notes,
  };
}
