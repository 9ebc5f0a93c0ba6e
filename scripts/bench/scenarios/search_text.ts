/**
 * `search_text` for a rare needle over the text corpus, on a warm server,
 * against `grep -rFn`; and the server's peak RSS meanwhile. Its floors: a
 * bare SDK server answering the recorded calls, the same first making the
 * system calls the server made for each and searching what they read, and
 * `scan_floor.mjs`: the same files opened, read and searched by a bare loop
 * with the port's `node:fs` calls and byte search, in a process of its own
 * each round, timed on its warm passes. For reference, the peak RSS
 * of the bare server making the system calls and searching.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { NEEDLE, textCorpus } from "../corpus.ts";
import { floorRow, mapRuntimes, peakRow, pick, warm } from "../measure.ts";
import type { Runtime } from "../runtimes.ts";
import { both, BOTH_RUNTIMES, REFERENCE } from "../report.ts";
import { median } from "../stats.ts";
import { searchText as traversal } from "../traversals.ts";

/** How many times the bare loop runs in its process each round (the first, cold, not counted). */
const BARE_LOOP_PASSES = 4;

/** Rows: the traversal's ratio to grep, and peak RSS over idle. */
export async function searchText(ctx: Context): Promise<Outcome> {
  const { textFiles, textFileBytes } = ctx.sizes;
  const t = await traversal(ctx, await textCorpus(textFiles, textFileBytes));
  const notes: string[] = [];
  // Each round, the bare loop runs BARE_LOOP_PASSES times in a fresh process: its figure is the median of
  // all but the first, cold pass, since the server it bounds is warm.
  const bareLoop = (rt: Runtime) => async () => {
    const args = [t.root, NEEDLE, String(BARE_LOOP_PASSES)];
    const scan = JSON.parse(await rt.script("scan_floor.mjs", args, [t.root]));
    ctx.check(scan.matches >= t.expected, `the scan floor found ${scan.matches} of ${t.expected} matches`);
    return median(scan.times.slice(1));
  };
  const timings = await warm(ctx, t, "search_text", "syscalls", { reps: ctx.traversalReps, bareLoop });
  const runs = mapRuntimes(timings, (rt, r) => {
    const bare = r.bareLoop!;
    notes.push(
      `${rt} search_text: ${r.calls} calls, ${t.expected} matches; server ${ms(r.server)}, ` +
        `with the server's system calls and search ${ms(r.syscalls!)}, its runtime floor ${ms(bare)}, ` +
        `grep ${ms(r.base)}`,
      r.rss.note,
      r.syscallsRss!.note,
    );
    return {
      ratio: r.server / r.base,
      floor: r.floor! / r.base,
      syscalls: r.syscalls! / r.base,
      scan: bare / r.base,
      rss: r.rss.ratio,
      syscallsRss: r.syscallsRss!.ratio,
    };
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
      floorRow("warm", t.baselineText, pick(runs, "syscalls"), "syscalls and search"),
      {
        section: "warm",
        what: "the same files opened, read and searched by a bare loop with the port's node:fs calls and " +
          "byte search: no checks, pages or protocol (runtime floor)",
        baseline: t.baselineText,
        unit: "×",
        values: pick(runs, "scan"),
        target: REFERENCE,
        floorOn: BOTH_RUNTIMES,
      },
      peakRow("search_text", pick(runs, "rss")),
      peakRow(
        "the same traversal on the bare server making the server's system calls and searching what they read " +
          "(reference: what the runtime holds for that work alone)",
        pick(runs, "syscallsRss"),
        REFERENCE,
      ),
    ],
    notes,
  };
}
