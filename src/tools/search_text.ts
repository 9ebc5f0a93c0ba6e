/**
 * `search_text`: lines of served files holding a literal query, in file then line order (the scan is
 * `search/scan.ts`). A page may hold no items and still carry a cursor. Cursor state: the paths in scope and
 * the identity of every file up to the position. content_hash framing: `<path>\t<line>\t<text>\n` per item,
 * the path escaped by `hashField` (a line's text holds no newline).
 *
 * @module
 */
import * as z from "zod";
import { Buffer } from "node:buffer";
import { compareBytewise } from "../bytes.ts";
import { checkPathArgument, checkRoot } from "../confine.ts";
import { assertState, targetOf } from "../cursor.ts";
import { CANCELLED_MESSAGE, STALE_CURSOR_MESSAGE, ToolError } from "../errors.ts";
import { Digest, hashField } from "../hashing.ts";
import { identityOf, IdentityRecords } from "../identity.ts";
import { fitPage, type Page, pageSchema } from "../page.ts";
import { itemCost } from "../result_line.ts";
import { Pacer } from "../pacing.ts";
import { type Match, MAX_LINE_TEXT_BYTES, type Position, Scan, scanSlot } from "../search/scan.ts";
import { pathsDigest, scopeFiles } from "../search/scope.ts";
import {
  argumentsSchema,
  checkQuery,
  pageCap,
  pagingArgs,
  queryArg,
  READ_ONLY,
  type Reply,
  stringArg,
  type Tool,
  type ToolContext,
} from "./tool.ts";

/**
 * `n` with a comma between groups of three digits, as `toLocaleString("en-US")` writes it. Not that: the first
 * `Intl` call loads the runtime's locale data, 16–25 ms of a start-up that needs none.
 */
function withThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+$)/g, ",");
}

const item = z.object({
  path: z.string(),
  line: z.int().min(1).describe("1-based line number."),
  text: z.string().describe(
    `The whole line without its line break, cut to ${withThousands(MAX_LINE_TEXT_BYTES)} bytes.`,
  ),
});
type Item = z.infer<typeof item> & Match;

const inputSchema = argumentsSchema({
  query: queryArg,
  path: stringArg().optional().describe("Only search this directory (or file), relative to the root."),
  ...pagingArgs,
});

const NAME = "search_text";
const EMPTY_ITEM_COST = itemCost({ path: "", line: 1, text: "" }); // for `leastCost`: a line has a digit or more

/** The `search_text` tool. */
export const searchText: Tool<typeof inputSchema, ReturnType<typeof pageSchema<typeof item>>> = {
  name: NAME,
  title: "Search file contents",
  description: "Find lines containing `query` as a literal, case-sensitive byte string in the served " +
    "files (optionally only under `path`). Items are `{path, line, text}` in path order, then line order. " +
    "A page may be empty and still carry `next_cursor` (the scan budget ran out): keep following " +
    "`next_cursor` until it is null.",
  inputSchema,
  outputSchema: pageSchema(item),
  annotations: READ_ONLY,
  async run(args, ctx) {
    // At most `MAX_CONCURRENT_SCANS` calls scan at once; the others wait here, holding nothing.
    const release = await scanSlot();
    try {
      // Cancelled while it waited: not even the scope is listed, and the slot goes to the next call at once.
      if (ctx.signal.aborted) throw new ToolError(CANCELLED_MESSAGE);
      return await searchPage(args, ctx);
    } finally {
      release();
    }
  },
};

/** One page of `search_text`, in a scan slot. */
async function searchPage(
  { query, path = "", cursor, limit }: z.infer<typeof inputSchema>,
  ctx: ToolContext,
): Promise<Reply<Page<Item>>> {
  const { root } = ctx;
  checkQuery(root, query);
  const scope = checkPathArgument(root, path, true);
  const args = { query, path: scope };
  const claims = cursor === undefined ? undefined : ctx.cursors.open(cursor, NAME, args);
  const pacer = new Pacer(root, ctx.signal);
  const validated = new Map<string, unknown>(); // the directories its listing validated, for the scan's opens
  const { files, named } = await targetOf(claims, scopeFiles(root, scope, pacer, validated));

  const paths = await pathsDigest(files, pacer);
  const identities = new IdentityRecords(files.length); // of every file up to the position
  const stateAt = (f: string) => {
    let through = 0;
    while (through < identities.count && compareBytewise(files[through], f) <= 0) through++;
    return identities.digest(paths, through);
  };
  let start: Position = { f: files[0] ?? "", o: 0, l: 1 };
  let index = 0;
  if (claims) {
    start = parsePosition(claims.position);
    for (; index < files.length && compareBytewise(files[index], start.f) <= 0; index++) {
      if (index % 256 === 0) await pacer.checkpoint(); // one lstat a file, for every file before the position
      identities.set(index, identityOf(root, files[index]));
    }
    assertState(claims, stateAt(start.f));
    if (index > 0 && files[index - 1] === start.f) index--; // resume in it
  }

  const scan = new Scan(root, Buffer.from(query), pageCap(ctx, limit), ctx.maxBytes, pacer, validated);
  let position: Position | null = null; // where this call stopped, if it did
  try {
    for (; index < files.length && position === null; index++) {
      const file = files[index];
      const resumed = claims !== undefined && file === start.f;
      position = await scan.file(resumed ? start : { f: file, o: 0, l: 1 }, (info) => {
        // The file a cursor resumes in must be the very one its state was checked against: if it
        // was replaced since, the offset points into another version.
        if (resumed && !identities.same(index, info)) throw new ToolError(STALE_CURSOR_MESSAGE);
        identities.set(index, info);
      }, named);
    }
  } finally {
    scan.release();
  }
  // The scan yielded: a root replaced meanwhile may have led it elsewhere, so its result is dropped.
  checkRoot(root);

  const page = fitPage(ctx, scan.items, {
    cursor(n) {
      const at = n === scan.items.length ? position : scan.after[n - 1] ?? start;
      return at === null ? null : ctx.cursors.issue(NAME, args, stateAt(at.f), positionText(at));
    },
    hash: (items) =>
      items.reduce((d, i) => d.text(`${hashField(i.path)}\t${i.line}\t${i.text}\n`), new Digest())
        .contentHash(),
    leastCost: (i) => EMPTY_ITEM_COST + 2 * (i.path.length + i.text.length),
  });
  return { value: page };
}

/** A cursor's position as text: offset and line first, so the path may hold any character. */
function positionText({ f, o, l }: Position): string {
  return `${o}:${l}:${f}`;
}

function parsePosition(text: string): Position {
  const [o, l] = text.split(":", 2);
  return { o: Number(o), l: Number(l), f: text.slice(o.length + l.length + 2) };
}
