/**
 * `search_files`: served file paths containing a literal substring, by path,
 * bytewise. Content-blind: no file is opened. Cursor state: every served path
 * of the root that contains the query (`matchesDigest`). content_hash
 * framing: one line `<path>\n` per item, the path escaped by `hashField`.
 *
 * @module
 */
import * as z from "zod";
import { refusal } from "../confine.ts";
import { assertState } from "../cursor.ts";
import { Digest, hashField } from "../hashing.ts";
import { fitPage, pageSchema } from "../page.ts";
import { itemCost } from "../result_line.ts";
import { Pacer } from "../pacing.ts";
import { matchesDigest } from "../path_search.ts";
import { searchMethodFor } from "../search/find_bytes.ts";
import { argumentsSchema, checkQuery, pageCap, pagingArgs, queryArg, READ_ONLY, type Tool } from "./tool.ts";

const item = z.object({ path: z.string().describe("Relative to the root.") });

const inputSchema = argumentsSchema({
  query: queryArg.describe("Literal substring of the relative path (case-sensitive)."),
  ...pagingArgs,
});

const NAME = "search_files";
const EMPTY_ITEM_COST = itemCost({ path: "" }); // for `leastCost`

/** The `search_files` tool. */
export const searchFiles: Tool<typeof inputSchema, ReturnType<typeof pageSchema<typeof item>>> = {
  name: NAME,
  title: "Find files by path",
  description: "Find served files whose relative path contains `query` as a literal, case-sensitive " +
    "substring (no wildcards). Results are sorted by path. Follow `next_cursor` until it is null.",
  inputSchema,
  outputSchema: pageSchema(item),
  annotations: READ_ONLY,
  async run({ query, cursor, limit }, ctx) {
    checkQuery(ctx.root, query);
    const args = { query };
    const claims = cursor === undefined ? undefined : ctx.cursors.open(cursor, NAME, args);
    const after = claims?.position;
    const pacer = new Pacer(ctx.root, ctx.signal);
    const found = await ctx.root.walkPaced(
      "",
      Infinity,
      pacer,
      () => ctx.root.find(query, after, pageCap(ctx, limit)),
    ).catch((error) => {
      throw refusal(error, ""); // the root itself unreadable: `permission denied: the root`, as the others say
    });
    const state = await matchesDigest(found.tree, query, pacer, searchMethodFor(ctx.root.fs)); // the page's tree
    if (claims) assertState(claims, state);
    const candidates = found.paths.map((path) => ({ path }));

    const page = fitPage(ctx, candidates, {
      cursor: (n) =>
        n === candidates.length && !found.more
          ? null
          : ctx.cursors.issue(NAME, args, state, candidates[n - 1]?.path ?? after ?? ""),
      hash: (items) => new Digest().text(items.map((i) => `${hashField(i.path)}\n`).join("")).contentHash(),
      leastCost: (i) => EMPTY_ITEM_COST + 2 * i.path.length,
    });
    return { value: page };
  },
};
