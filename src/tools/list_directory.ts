/**
 * `list_directory`: the served files and directories directly inside a
 * directory, by name, bytewise. A directory is listed only when something
 * below it is served. Content-blind: no file is opened.
 *
 * Cursor state: the listing itself (names and kinds). content_hash framing:
 * one line `<kind>\t<path>\n` per item.
 *
 * @module
 */
import * as z from "zod";
import { compareBytewise } from "../bytes.ts";
import { assertState } from "../cursor.ts";
import { checkParents, checkPathArgument, notFound } from "../confine.ts";
import { Digest } from "../hashing.ts";
import { ToolError } from "../errors.ts";
import { fitPage, pageSchema } from "../page.ts";
import { joinRelative } from "../paths.ts";
import { pageCap, pagingArgs, READ_ONLY, type Tool } from "./tool.ts";

const item = z.object({
  name: z.string(),
  kind: z.enum(["file", "directory"]),
  path: z.string().describe("Relative to the root; pass it to the other tools."),
});
type Item = z.infer<typeof item>;

const inputSchema = z.strictObject({
  path: z.string().optional().describe("Directory relative to the root; omit for the root."),
  ...pagingArgs,
});

const NAME = "list_directory";

/** The `list_directory` tool. */
export const listDirectory: Tool<typeof inputSchema, ReturnType<typeof pageSchema<typeof item>>> = {
  name: NAME,
  title: "List a directory",
  description: "List the served files and subdirectories directly inside a directory of the root, " +
    "sorted by name. Omit `path` for the root. Directories appear only when they contain served files. " +
    "Follow `next_cursor` until it is null to see every entry.",
  inputSchema,
  outputSchema: pageSchema(item),
  annotations: READ_ONLY,
  run({ path = "", cursor, limit }, ctx) {
    const { root } = ctx;
    const dir = checkPathArgument(root, path, true);
    if (dir !== "") checkParents(root, dir);
    const listing = root.inventory.listing(dir);
    if (listing === null) {
      const isFile = root.selector.isServed(dir) && root.fs.lstat(root.inventory.abs(dir))?.kind === "file";
      throw isFile
        ? new ToolError(`${dir} is a file, not a directory; read it with read_text_file`)
        : notFound(dir);
    }
    const all: Item[] = [];
    for (const entry of listing.entries) {
      const child = joinRelative(dir, entry.name);
      if (!entry.dir) all.push({ name: entry.name, kind: "file", path: child });
      else if (root.inventory.hasServed(child)) {
        all.push({ name: entry.name, kind: "directory", path: child });
      }
    }
    if (dir !== "" && all.length === 0) throw notFound(dir); // an unserved directory never shows
    all.sort((a, b) => compareBytewise(a.name, b.name));

    const state = all.reduce((d, i) => d.text(`${i.kind}\t${i.name}\n`), new Digest()).hex();
    const args = { path: dir };
    let start = 0;
    if (cursor !== undefined) {
      const claims = ctx.cursors.open<string>(cursor, NAME, args);
      assertState(claims, state);
      start = all.findIndex((i) => compareBytewise(i.name, claims.position) > 0);
      if (start < 0) start = all.length;
    }
    const candidates = all.slice(start, start + pageCap(ctx, limit));
    return fitPage(ctx, candidates, (n) => {
      const items = candidates.slice(0, n);
      const done = start + n >= all.length;
      return {
        items,
        next_cursor: done
          ? null
          : ctx.cursors.issue(NAME, args, state, items.at(-1)?.name ?? positionBefore(all, start)),
        content_hash: items.reduce((d, i) => d.text(`${i.kind}\t${i.path}\n`), new Digest()).contentHash(),
      };
    });
  },
};

/** The position just before `start`, for a page that holds no item. */
function positionBefore(all: readonly Item[], start: number): string {
  return start > 0 ? all[start - 1].name : "";
}
