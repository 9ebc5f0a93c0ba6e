/**
 * Campaign `cursors`: random mutations of real cursors are never accepted.
 * In process, cursors issued by `CursorCodec` are edited, truncated,
 * extended, spliced and replayed against other tools, arguments and keys;
 * each must be refused with exactly `cursor is not valid` (never another
 * exception). Over the wire, real cursors of all four read tools get the
 * same treatment, plus cursors from another server process, while the
 * unedited cursor (with another `limit`) is still accepted.
 *
 * @module
 */
import fc from "fast-check";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CursorCodec } from "../../src/cursor.ts";
import { INVALID_CURSOR_MESSAGE, ToolError } from "../../src/errors.ts";
import { Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, Tally, tempDir } from "./util.ts";

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.= é\0";

/** An edit of a cursor string. */
export interface Mutation {
  kind: "replace" | "delete" | "insert" | "truncate" | "append" | "splice" | "swapHalves" | "case";
  index: number;
  char: string;
}

export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom("replace", "delete", "insert", "truncate", "append", "splice", "swapHalves", "case"),
  index: fc.nat({ max: 100_000 }),
  char: fc.constantFrom(...ALPHABET),
});

/** Applies an edit; `other` is another valid cursor (for splicing). */
export function mutate(cursor: string, other: string, m: Mutation): string {
  const i = m.index % (cursor.length + 1);
  const dot = cursor.indexOf(".");
  switch (m.kind) {
    case "replace":
      return cursor.slice(0, i) + m.char + cursor.slice(i + 1);
    case "delete":
      return cursor.slice(0, i) + cursor.slice(i + 1);
    case "insert":
      return cursor.slice(0, i) + m.char + cursor.slice(i);
    case "truncate":
      return cursor.slice(0, i);
    case "append":
      return cursor + m.char;
    case "splice": // this payload with the other mac, or the other way round
      return i % 2 === 0
        ? cursor.slice(0, dot) + other.slice(other.indexOf("."))
        : other.slice(0, other.indexOf(".")) + cursor.slice(dot);
    case "swapHalves":
      return cursor.slice(dot + 1) + "." + cursor.slice(0, dot);
    case "case": {
      const c = cursor[i] ?? "";
      const flipped = c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase();
      return cursor.slice(0, i) + flipped + cursor.slice(i + 1);
    }
  }
}

const issueArbitrary = fc.record({
  tool: fc.constantFrom("list_directory", "search_files", "search_text", "read_text_file"),
  args: fc.dictionary(fc.constantFrom("path", "query"), fc.string({ maxLength: 8 })),
  state: fc.stringMatching(/^[0-9a-f]{64}$/),
  position: fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value) ?? "null"), // a position is text
  mutation: mutationArbitrary,
  otherArgs: fc.dictionary(fc.constantFrom("path", "query"), fc.string({ maxLength: 8 })),
});

function refusal(open: () => unknown): string | null {
  try {
    open();
    return "accepted";
  } catch (error) {
    if (!(error instanceof ToolError)) return `threw ${String(error)}`;
    return error.message === INVALID_CURSOR_MESSAGE ? null : `refused with ${error.message}`;
  }
}

async function run(options: CampaignOptions) {
  const tally = new Tally("cursors", options);
  const long = options.scale === "long";
  const codec = new CursorCodec();
  const stranger = new CursorCodec();

  let previous = codec.issue("search_files", { query: "x" }, "0".repeat(64), "x");
  for (const c of fc.sample(issueArbitrary, { seed: options.seed, numRuns: long ? 20_000 : 2_000 })) {
    tally.iterations++;
    const cursor = codec.issue(c.tool, c.args, c.state, c.position);
    const claims = codec.open(cursor, c.tool, c.args);
    tally.check(
      claims.state === c.state && JSON.stringify(claims.position) === JSON.stringify(c.position),
      () => `a fresh cursor did not round-trip: ${JSON.stringify(c)}`,
    );
    const edited = mutate(cursor, previous, c.mutation);
    if (edited !== cursor) {
      const why = refusal(() => codec.open(edited, c.tool, c.args));
      tally.check(why === null, () => `an edited cursor was ${why}: ${JSON.stringify(c.mutation)}`);
    }
    const otherTool = c.tool === "search_text" ? "search_files" : "search_text";
    const why = refusal(() => codec.open(cursor, otherTool, c.args));
    tally.check(why === null, () => `a cursor for ${c.tool} was ${why} by ${otherTool}`);
    if (JSON.stringify(c.otherArgs) !== JSON.stringify(c.args)) {
      const whyArgs = refusal(() => codec.open(cursor, c.tool, c.otherArgs));
      tally.check(whyArgs === null, () => `a cursor was ${whyArgs} for other arguments`);
    }
    const whyKey = refusal(() => stranger.open(cursor, c.tool, c.args));
    tally.check(whyKey === null, () => `another process's cursor was ${whyKey}`);
    previous = cursor;
  }

  const base = tempDir("cursors");
  try {
    const root = join(base.path, "root");
    mkdirSync(join(root, "d"), { recursive: true });
    for (let i = 0; i < 30; i++) writeFileSync(join(root, "d", `f${i}.txt`), `needle ${i}\n`.repeat(20));
    writeFileSync(join(root, "big.txt"), "0123456789abcdef\n".repeat(8_000));
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    const other = new Peer(options.target, root, ["--include", "**"], [base.path]);
    try {
      const traversals: [string, Record<string, unknown>][] = [
        ["list_directory", { path: "d" }],
        ["search_files", { query: "f" }],
        ["search_text", { query: "needle", path: "d" }],
        ["read_text_file", { path: "big.txt" }],
      ];
      const cursors: { tool: string; args: Record<string, unknown>; cursor: string }[] = [];
      const foreign: string[] = [];
      for (const [tool, args] of traversals) {
        for (const [server, into] of [[peer, null], [other, foreign]] as const) {
          const reply = await server.call(tool, { ...args, limit: 1 });
          const next = reply.result?.structuredContent?.next_cursor;
          if (
            !tally.check(typeof next === "string", () => `${tool} gave no cursor: ${JSON.stringify(reply)}`)
          ) {
            continue;
          }
          if (into === null) cursors.push({ tool, args, cursor: next });
          else into.push(next);
        }
      }
      if (cursors.length === 0) return tally.result();
      const edits = fc.sample(mutationArbitrary, { seed: options.seed + 1, numRuns: long ? 2_000 : 200 });
      for (const [n, m] of edits.entries()) {
        tally.iterations++;
        const real = cursors[n % cursors.length];
        const mode = n % 5;
        let tool = real.tool;
        let args = real.args;
        let cursor: string;
        if (mode === 0) cursor = foreign[n % foreign.length]; // issued by another process
        else if (mode === 1) {
          cursor = real.cursor;
          tool = cursors[(n + 1) % cursors.length].tool; // presented to another tool
          if (tool === real.tool) continue;
          args = cursors[(n + 1) % cursors.length].args;
        } else {
          cursor = mutate(real.cursor, cursors[(n + 1) % cursors.length].cursor, m);
          if (cursor === real.cursor) continue;
        }
        const reply = await peer.call(tool, { ...args, cursor, limit: 1 });
        const text = reply.result?.isError
          ? reply.result.content?.[0]?.text
          : JSON.stringify(reply).slice(0, 200);
        tally.check(text === INVALID_CURSOR_MESSAGE, () => `${tool}: a bad cursor (${mode}) got ${text}`);
      }
      // The control: every unedited cursor is still accepted, with another limit.
      for (const real of cursors) {
        const reply = await peer.call(real.tool, { ...real.args, cursor: real.cursor, limit: 2 });
        tally.check(
          reply.result !== undefined && reply.result.isError !== true,
          () => `${real.tool}: an unedited cursor was refused: ${JSON.stringify(reply).slice(0, 200)}`,
        );
      }
      await tally.checkCleanExit(peer);
    } finally {
      await peer.kill();
      await other.kill();
      tally.absorb(peer);
      tally.absorb(other);
    }
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `cursors` campaign. */
export const cursorsCampaign: Campaign = { name: "cursors", run };
