/**
 * `list_directory`: the served files and directories directly inside a
 * directory, by name, bytewise; a directory only when something below it is
 * served. Content-blind: no file is opened. Cursor state: the names and
 * kinds. content_hash framing: one line `<kind>\t<path>\n` per item, the path
 * escaped by `hashField`.
 *
 * @module
 */
import * as z from "zod";
import { shownPath } from "../quote.ts";
import { compareBytewise } from "../bytes.ts";
import { assertState, targetOf } from "../cursor.ts";
import { admit, checkPathArgument, notFound, notServed, refusal } from "../confine.ts";
import { Digest, hashField } from "../hashing.ts";
import { ToolError } from "../errors.ts";
import { fitPage, pageSchema } from "../page.ts";
import { itemCost } from "../result_line.ts";
import { Pacer } from "../pacing.ts";
import { firstIndex, type ServedEntries } from "../listing.ts";
import { joinRelative, parentOf } from "../paths.ts";
import type { Root } from "../root.ts";
import { argumentsSchema, pageCap, pagingArgs, READ_ONLY, stringArg, type Tool } from "./tool.ts";

const item = z.object({
  name: z.string(),
  kind: z.enum(["file", "directory"]),
  path: z.string().describe("Relative to the root; pass it to the other tools."),
});
type Item = z.infer<typeof item>;

const inputSchema = argumentsSchema({
  path: stringArg().optional().describe("Directory relative to the root; omit for the root."),
  ...pagingArgs,
});

const NAME = "list_directory";
const EMPTY_ITEM_COST = itemCost({ name: "", kind: "file", path: "" }); // for `leastCost`: "file" is the shorter

/** Pages whose `content_hash` a directory's served entries keep (`pageHash`): a few sizes interleaved. */
const HASHES_PER_ENTRIES = 4;
const pageHashes = new WeakMap<ServedEntries, Map<string, string>>();

/**
 * The `content_hash` of a page of `items`, entries `start` on. Served entries are immutable and belong to one
 * directory (a changed directory gets new ones), so a page of them is hashed once and kept with them: listing
 * an unchanged directory again hashes nothing.
 */
function pageHash(entries: ServedEntries, start: number, items: readonly Item[]): string {
  const key = `${start}:${items.length}`;
  const kept = pageHashes.get(entries) ?? new Map<string, string>();
  let hash = kept.get(key);
  if (hash === undefined) {
    hash = new Digest().text(items.map((i) => `${i.kind}\t${hashField(i.path)}\n`).join("")).contentHash();
    if (kept.size >= HASHES_PER_ENTRIES) kept.delete(kept.keys().next().value!); // the oldest
    pageHashes.set(entries, kept.set(key, hash));
  }
  return hash;
}

/** The served entries of the directory `dir`; a refusal when it is none, or a file. */
async function servedEntries(root: Root, dir: string, pacer: Pacer): Promise<ServedEntries> {
  const may = admit(root, dir, "either"); // from the name first: an unserved path is never touched
  let entries: ServedEntries | null = null;
  // The directories validated on the way, taken as they were by the lookups after the walk: a big one that
  // changed just now is not trusted from the cache, and would otherwise be read again in one go.
  const validated = new Map<string, unknown>();
  try {
    if (may.directory) {
      // Its subdirectories are read too: which of them serve something decides what it shows.
      entries = await root.walkPaced(dir, 1, pacer, () => root.entries(dir), validated);
    }
    if (entries === null && may.file) {
      const isFile = () => root.isFile(dir);
      // The walk validated the directories above it; without one, they are validated here.
      const file = may.directory
        ? root.accepting(validated, isFile)
        : await root.prepared(parentOf(dir), pacer, isFile, validated);
      if (file) {
        throw new ToolError(`${shownPath(dir)} is a file, not a directory; read it with read_text_file`);
      }
    }
  } catch (error) {
    throw refusal(error, dir); // passes the ToolError through
  }
  if (entries === null) throw root.accepting(validated, () => notServed(root, dir));
  if (dir !== "" && entries.length === 0) throw notFound(dir); // an unserved directory never shows
  return entries;
}

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
  async run({ path = "", cursor, limit }, ctx) {
    const { root } = ctx;
    const dir = checkPathArgument(root, path, true);
    const args = { path: dir };
    const claims = cursor === undefined ? undefined : ctx.cursors.open(cursor, NAME, args);
    const pacer = new Pacer(root, ctx.signal);
    const entries = await targetOf(claims, servedEntries(root, dir, pacer));
    if (entries.length > pageCap(ctx, limit)) await entries.settle(() => pacer.checkpoint()); // its cursors' state
    let start = 0;
    if (claims) {
      assertState(claims, entries.state);
      start = firstIndex(entries.length, (i) => compareBytewise(entries.name(i), claims.position) > 0);
    }
    const candidates: Item[] = [];
    const end = Math.min(entries.length, start + pageCap(ctx, limit));
    for (let i = start; i < end; i++) {
      const name = entries.name(i);
      candidates.push({ name, kind: entries.isDir(i) ? "directory" : "file", path: joinRelative(dir, name) });
    }
    const page = fitPage(ctx, candidates, {
      cursor(n) {
        const last = n > 0 ? candidates[n - 1].name : start > 0 ? entries.name(start - 1) : "";
        return start + n >= entries.length ? null : ctx.cursors.issue(NAME, args, entries.state, last);
      },
      hash: (items) => pageHash(entries, start, items),
      leastCost: (i) => EMPTY_ITEM_COST + 2 * (i.name.length + i.path.length),
    });
    return { value: page };
  },
};
