/**
 * Pages and their fitting. A read tool's result is exactly
 * `{items, next_cursor, content_hash}`, sent both as `structuredContent` and
 * as the JSON text of the single content block. A page is fitted against the
 * fully encoded JSON-RPC result line: items are dropped from the end (and
 * the cursor re-issued for the shorter page) until the line fits the ceiling.
 *
 * @module
 */
import * as z from "zod";
import { ToolError } from "./errors.ts";
import { utf8Length } from "./bytes.ts";

/** One page of a read tool. */
export interface Page<T> {
  /** The items of this page. */
  items: T[];
  /** Pass back to get the next page; `null` when the traversal is complete. */
  next_cursor: string | null;
  /** `sha256:<hex>` over the bytes this page returned (framing per tool). */
  content_hash: string;
}

/** The zod schema of a page of `item`s. */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.object({
    items: z.array(item),
    next_cursor: z.string().nullable().describe("Pass back as `cursor` for the next page; null when done."),
    content_hash: z.string().describe("sha256:<hex> of the bytes this call returned."),
  });
}

/** What fitting needs to know about the response being built. */
export interface Envelope {
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The ceiling for the encoded result line, in bytes. */
  readonly maxBytes: number;
  /** The `serverInfo` the SDK stamps into every result's `_meta`. */
  readonly serverInfo: { readonly name: string; readonly version: string };
}

/** The MCP tool result for a structured value: structured content plus the same JSON as text. */
export function toolResult<T extends object>(structured: T) {
  return {
    content: [{ type: "text" as const, text: JSON.stringify(structured) }],
    structuredContent: structured as unknown as Record<string, unknown>,
  };
}

/** The exact byte length of the JSON-RPC line that carries `structured`. */
export function encodedSize(envelope: Envelope, structured: object): number {
  const line = {
    result: {
      ...toolResult(structured),
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": envelope.serverInfo },
    },
    jsonrpc: "2.0",
    id: envelope.requestId,
  };
  return utf8Length(JSON.stringify(line));
}

/** Bytes one item adds: once in `structuredContent`, once escaped in the text, plus commas. */
export function itemCost(item: unknown): number {
  const json = JSON.stringify(item);
  return utf8Length(json) + utf8Length(JSON.stringify(json)) - 2 + 2;
}

/**
 * Returns the longest prefix page of `items` that fits the ceiling.
 * `build(n)` makes the page of the first `n` items, with its cursor.
 *
 * @throws {ToolError} when not even one item fits.
 */
export function fitPage<T>(envelope: Envelope, items: readonly T[], build: (n: number) => Page<T>): Page<T> {
  const fits = (page: Page<T>) => encodedSize(envelope, page) <= envelope.maxBytes;
  // Estimate from the empty page (its cursor stands in for the real one), then correct exactly.
  let n = 0;
  let size = encodedSize(envelope, build(0));
  while (n < items.length) {
    size += itemCost(items[n]);
    if (size > envelope.maxBytes) break;
    n++;
  }
  n = Math.max(n, Math.min(1, items.length));
  let page = build(n);
  if (fits(page)) {
    while (n < items.length) {
      const longer = build(n + 1);
      if (!fits(longer)) break;
      page = longer;
      n++;
    }
    return page;
  }
  for (n--; n > 0; n--) {
    page = build(n);
    if (fits(page)) return page;
  }
  if (items.length > 0) {
    throw new ToolError("one item is larger than the result ceiling (--max-result-bytes); raise it");
  }
  return build(0);
}
