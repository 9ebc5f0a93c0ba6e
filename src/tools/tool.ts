/**
 * What every tool module exports, and the arguments the read tools share.
 *
 * @module
 */
import * as z from "zod";
import { utf8Length } from "../bytes.ts";
import type { CursorCodec } from "../cursor.ts";
import { quoteArgument, refuseArgument, shownValue } from "../quote.ts";
import type { JsonWriter } from "../page.ts";
import type { Envelope } from "../result_line.ts";
import type { Root } from "../root.ts";

/** What a tool handler gets besides its arguments; `signal` aborts when the client cancels the call. */
export interface ToolContext extends Envelope {
  readonly root: Root;
  readonly cursors: CursorCodec;
  readonly signal: AbortSignal;
}

/** MCP tool annotations. */
export type Annotations = Readonly<
  Record<"readOnlyHint" | "destructiveHint" | "idempotentHint" | "openWorldHint", boolean>
>;

/**
 * What a handler returns: its result, and for one written from bytes (a read page) also `writeJson`, a writer of
 * its JSON, and `shape`, the result with every string the writer takes from bytes left empty. When the binary's
 * transport writes the line with `writeJson`, the SDK checks `shape` against the output schema, and `value`
 * (which a read page decodes only when asked) is never made.
 */
export type Reply<T> =
  | { readonly value: T; readonly writeJson?: undefined }
  | { readonly value: T; readonly writeJson: JsonWriter; readonly shape: T };

/** A tool: its MCP metadata, schemas, and handler. */
export interface Tool<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: I;
  readonly outputSchema: O;
  readonly annotations: Annotations;
  run(args: z.infer<I>, ctx: ToolContext): Reply<z.infer<O>> | Promise<Reply<z.infer<O>>>;
}

/** Annotations of the four read tools. */
export const READ_ONLY: Annotations = Object.freeze({
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
});

/**
 * The schema of a tool's arguments: exactly the keys of `shape`. An unknown key is named quoted, as
 * every refused argument is: zod's own message would print it raw, line breaks and all.
 */
export function argumentsSchema<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) => issue.code === "unrecognized_keys" ? unknownArguments(issue.keys) : undefined,
  });
}

/** The refusal of unknown argument names: the first quoted, and how many more. */
export function unknownArguments(keys: readonly string[]): string {
  const more = keys.length > 1 ? ` and ${keys.length - 1} more` : "";
  return `unknown argument ${quoteArgument(keys[0])}${more}`;
}

/**
 * zod's error for an argument that breaks its schema, naming the value given (zod's own names none) unless
 * `echo` is false (a write's content), after which the SDK names the argument: `limit: must be at least 1:
 * 0`; `is required` when there is none.
 */
function refusing(rule: string, echo = true) {
  return {
    error: ({ input }: { input?: unknown }) =>
      input === undefined ? "is required" : echo ? `${rule}: ${shownValue(input)}` : rule,
  };
}

/** A string argument, refused naming the value given unless `echo` is false. */
export const stringArg = (echo = true) => z.string(refusing("must be a string", echo));

/** `cursor` and `limit`, shared by every read tool. */
export const pagingArgs = {
  cursor: stringArg().optional().describe("The next_cursor of the previous page; omit to start."),
  // `min(1)`, not `positive()`: zod writes `positive()` as `exclusiveMinimum`, outside the profile hosts compile.
  limit: z.int(refusing("must be a whole number below 2^53")).min(1, refusing("must be at least 1"))
    .optional()
    .describe("Most items on this page."),
};

/** A `query`: non-empty, one line; its byte cap is a limit, checked by `checkQuery`. */
export const queryArg = stringArg().min(1, refusing("must not be empty"))
  .describe("Literal text to look for (one line, case-sensitive).");

/** Refuses a query that is empty, spans lines, or exceeds the byte cap, naming it. */
export function checkQuery(root: Root, query: string): void {
  if (query === "") throw refuseArgument("query must not be empty", query);
  if (/[\r\n]/.test(query)) throw refuseArgument("query must be one line", query);
  // A lone surrogate has no UTF-8 form: encoded, it would become U+FFFD and match that instead.
  if (/\p{Surrogate}/u.test(query)) {
    throw refuseArgument("query must be Unicode text, without a lone surrogate", query);
  }
  const max = root.limits.maxQueryBytes;
  if (utf8Length(query) > max) throw refuseArgument(`query is longer than ${max} bytes`, query);
}

/** The page item cap for a call. */
export function pageCap(ctx: ToolContext, limit: number | undefined): number {
  return Math.min(limit ?? ctx.root.limits.maxPageItems, ctx.root.limits.maxPageItems);
}
