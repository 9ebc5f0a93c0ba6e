/**
 * The 1,000,000-file root: discover, the first root listing page and the
 * first two `search_files` pages are timed, and the RSS after them weighed
 * against the RSS after discover, as every memory row is. The times are
 * reported, not compared: no baseline pages a tree this way.
 *
 * @module
 */
import { byString, type Context, ms, type Outcome } from "../context.ts";
import { TREE_HUGE, TREE_QUERY, treeCorpus, treeFileName, treeLeaves } from "../corpus.ts";
import { perRuntime, pick } from "../measure.ts";
import { DENO_OVER_NODE } from "../report.ts";
import { memoryOf } from "../rpc.ts";

/** Rows: the times as text, and the RSS as a ratio to idle (Deno against Node). */
export async function huge(ctx: Context): Promise<Outcome> {
  const root = await treeCorpus(TREE_HUGE);
  const leaves = treeLeaves(TREE_HUGE);
  const matches: string[] = [];
  for (let l = 0; l < leaves.length && matches.length < 5_000; l++) {
    for (let i = 0; i < TREE_HUGE.files; i++) {
      const path = `${leaves[l]}/${treeFileName(l, i)}`;
      if (path.includes(TREE_QUERY)) matches.push(path);
    }
  }
  matches.sort(byString);
  const notes: string[] = [];
  const runs = await perRuntime(ctx, async (rt) => {
    const t0 = performance.now();
    const client = rt.server(root);
    try {
      await client.discover();
      const tDiscover = performance.now() - t0;
      await new Promise((r) => setTimeout(r, 200)); // let start-up garbage settle, as for every memory row
      const idle = (await memoryOf(client.pid)).rssKiB / 1024;
      let t = performance.now();
      const listing = await client.page("list_directory", {});
      const tList = performance.now() - t;
      ctx.sameList(
        listing.items.map((i: { path: string }) => i.path),
        Array.from({ length: TREE_HUGE.a }, (_, i) => `a${i}`),
        "1,000,000-file root listing",
      );
      t = performance.now();
      const page = await client.page("search_files", { query: TREE_QUERY });
      const tSearch = performance.now() - t;
      const got = page.items.map((i: { path: string }) => i.path);
      ctx.sameList(got, matches.slice(0, got.length), "first search_files page of the 1,000,000-file root");
      ctx.check(got.length > 0 && page.next_cursor !== null, "the first page holds matches and a cursor");
      t = performance.now();
      await client.page("search_files", { query: TREE_QUERY, cursor: page.next_cursor });
      const tSecond = performance.now() - t;
      const rss = (await memoryOf(client.pid)).rssKiB / 1024;
      const text = `discover ${ms(tDiscover)} · first root page ${ms(tList)} · first search_files page ` +
        `${ms(tSearch)} (second ${ms(tSecond)}) · RSS ${rss.toFixed(0)} MiB (after discover ${
          idle.toFixed(0)
        } MiB)`;
      notes.push(`${rt.name} huge: ${text}`);
      return { text, rss: rss / idle };
    } finally {
      await client.close();
    }
  });
  return {
    rows: [
      {
        section: "scale",
        what: "1,000,000-file root: discover, first root listing page, first search_files page",
        baseline: "—",
        unit: "ms",
        values: {},
        texts: pick(runs, "text"),
        target: {},
        targetText: "completes; times reported",
      },
      {
        section: "scale",
        what: "1,000,000-file root: RSS after the first two search_files pages",
        baseline: "RSS after server/discover",
        unit: "×",
        values: pick(runs, "rss"),
        target: { denoOverNode: DENO_OVER_NODE },
      },
    ],
    notes,
  };
}
