/**
 * The warm traversals again, each run on a freshly started server timed
 * from its first call (spawn, wait for discover, then time the traversal),
 * against the same `grep` and `find` baselines: what a host that spawns one
 * server per job sees. Under each, two floors: a fresh bare SDK server
 * answering the same calls, and the same first making the system calls the
 * server made for each; under `search_files`, a third: the same also doing
 * the least work the contract asks of it on what those calls return. Under
 * `search_text`, for reference, the Deno server run with `--allow-all`, which
 * checks no path against a grant: what Deno's permission checks cost there.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { textCorpus, tree, treeCorpus } from "../corpus.ts";
import { cold as coldTiming, floorRow, mapRuntimes, uncheckedRow } from "../measure.ts";
import { both, type Row } from "../report.ts";
import { listAll, searchFiles, searchText, type Traversal } from "../traversals.ts";

/** Rows: cold `search_text`, `search_files` and listing every directory, as ratios to their baselines. */
export async function cold(ctx: Context): Promise<Outcome> {
  const { textFiles, textFileBytes, treeLeafFiles } = ctx.sizes;
  const treeRoot = await treeCorpus(tree(treeLeafFiles));
  const plan: [string, string, Traversal, number][] = [
    [
      "search_text",
      `search_text, rare needle, ${textFiles.toLocaleString("en-US")} files`,
      await searchText(ctx, await textCorpus(textFiles, textFileBytes)),
      3,
    ],
    ["search_files", "search_files, 10% of the tree", await searchFiles(ctx, treeRoot), 4],
    ["list_all", "list_directory of every directory", await listAll(ctx, treeRoot), 12],
  ];
  const rows: Row[] = [];
  const notes: string[] = [];
  for (const [id, what, t, target] of plan) {
    console.error(`bench:   cold ${id}`);
    const timings = await coldTiming(ctx, t, {
      leastWork: id === "search_files",
      unchecked: id === "search_text",
      reps: ctx.traversalReps,
    });
    const runs = mapRuntimes(timings, (rt, r) => {
      notes.push(
        `${rt} cold ${id}: ${r.calls} calls; server ${ms(r.server)}` +
          (r.unchecked === undefined ? "" : ` (with --allow-all ${ms(r.unchecked)})`) +
          `, its cold floor ${ms(r.floor)}, with the server's system calls ${ms(r.syscalls)}` +
          (r.work === undefined ? "" : `, and the least work ${ms(r.work)}`) + `, baseline ${ms(r.base)}`,
      );
      return r;
    });
    const ratio = (key: "server" | "floor" | "syscalls" | "work" | "unchecked") => {
      const out: Row["values"] = {};
      for (const [name, r] of Object.entries(runs)) {
        if (r[key] !== undefined) out[name as keyof typeof out] = r[key] / r.base;
      }
      return out;
    };
    rows.push(
      {
        section: "cold",
        what: `COLD ${what}: fresh server, timed from its first call`,
        baseline: t.baselineText,
        unit: "×",
        values: ratio("server"),
        target: both(target),
      },
      floorRow("cold", t.baselineText, ratio("floor")),
      floorRow(
        "cold",
        t.baselineText,
        ratio("syscalls"),
        id === "search_text" ? "syscalls and search" : "syscalls",
      ),
    );
    if (id === "search_files") {
      rows.push(floorRow("cold", t.baselineText, ratio("work"), "syscalls and least work"));
    }
    if (id === "search_text") rows.push(uncheckedRow("cold", t.baselineText, ratio("unchecked")));
  }
  return { rows, notes };
}
