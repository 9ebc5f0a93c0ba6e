/**
 * One `list_directory` page at the root of the 100,000-file tree against the
 * same call on the 1,000-file tree: the cost of a page must not grow with
 * the tree.
 *
 * @module
 */
import { type Context, ms, type Outcome } from "../context.ts";
import { tree, treeCorpus } from "../corpus.ts";
import { perRuntime } from "../measure.ts";
import { both } from "../report.ts";
import type { RpcClient } from "../rpc.ts";
import { median } from "../stats.ts";

/** Row: the big tree's median page time over the small tree's. */
export async function listRoot(ctx: Context): Promise<Outcome> {
  const shape = tree(ctx.sizes.treeLeafFiles);
  const big = await treeCorpus(shape);
  const small = await treeCorpus(tree(1));
  const want = Array.from({ length: shape.a }, (_, i) => `directory\ta${i}`);
  const notes: string[] = [];
  const once = async (client: RpcClient) => {
    const t0 = performance.now();
    const page = await client.page("list_directory", {});
    const t = performance.now() - t0;
    ctx.sameList(
      page.items.map((i: { kind: string; path: string }) => `${i.kind}\t${i.path}`),
      want,
      "root listing",
    );
    ctx.check(page.next_cursor === null, "the root listing is one page");
    return t;
  };
  const runs = await perRuntime(ctx, async (rt) => {
    const a = rt.server(big);
    const b = rt.server(small);
    try {
      await a.discover();
      await b.discover();
      for (let i = 0; i < 20; i++) {
        await once(a);
        await once(b);
      }
      const ta: number[] = [];
      const tb: number[] = [];
      for (let i = 0; i < (ctx.quick ? 60 : 300); i++) {
        ta.push(await once(a));
        tb.push(await once(b));
      }
      if (ctx.verbose) notes.push(`${rt.name} list_root: big ${ms(median(ta))}, small ${ms(median(tb))}`);
      return median(ta) / median(tb);
    } finally {
      await a.close();
      await b.close();
    }
  });
  const files = shape.a * shape.b * shape.c * shape.files;
  return {
    rows: [{
      section: "warm",
      what: `one list_directory page at the root: ${files.toLocaleString("en-US")}-file tree`,
      baseline: "the same call on a 1,000-file tree",
      unit: "×",
      values: runs,
      target: both(2),
    }],
    notes,
  };
}
