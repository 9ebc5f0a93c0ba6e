/**
 * A read tool's result is a page, `{items, next_cursor, content_hash}`,
 * fitted against the fully encoded JSON-RPC result line (`result_line.ts`
 * knows its size): items are dropped from the end, and the cursor re-issued
 * for the shorter page, until the line fits the ceiling.
 *
 * @module
 */
import * as z from "zod";
import { ToolError } from "./errors.ts";
import { encodedSize, type Envelope, itemCost } from "./result_line.ts";

/** One page of a read tool; `next_cursor` is `null` when the traversal is complete. */
export type Page<T> = { items: T[]; next_cursor: string | null; content_hash: string };

/** Where a `JsonWriter` appends a value's JSON, as UTF-8. */
export interface JsonSink {
  /** Appends `text` as UTF-8. */
  text(text: string): void;
  /** Appends what `JSON.stringify` writes between the quotes for the well-formed UTF-8 `utf8`. */
  jsonString(utf8: Uint8Array): void;
}

/** Appends exactly the UTF-8 of `JSON.stringify(value)`: a read page writes itself from the file's bytes. */
export type JsonWriter = (sink: JsonSink) => void;

/**
 * The schema of a page of `item`s. `next_cursor` is not declared: nullable
 * needs a type list (`["string", "null"]`), which hosts with a bounded schema
 * profile (PtcRunner) refuse; the root's description documents it instead.
 * `additionalProperties: true` goes through `meta` because zod writes
 * "anything" as `{}`, not the boolean those hosts require.
 */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    items: z.array(item),
    content_hash: z.string().describe("sha256:<hex> of the bytes this call returned."),
  }).meta({ description: PAGE_DESCRIPTION, additionalProperties: true });
}

const PAGE_DESCRIPTION = "One page: `items`, `content_hash`, and `next_cursor`, a string to pass back as " +
  "`cursor` (with the same other arguments) for the next page, or null when the traversal is complete.";

/**
 * The longest prefix page of `items` that fits the ceiling; `build(n)` makes
 * the page of the first `n` items, with its cursor. Throws when not one fits.
 */
export function fitPage<T>(envelope: Envelope, items: readonly T[], build: (n: number) => Page<T>): Page<T> {
  // sums[n]: what the first n items add, each after a first one (a comma in each copy included).
  const sums = [0];
  for (const item of items) sums.push(sums[sums.length - 1] + itemCost(item));
  // Exact: the page's shell, plus its items' costs when they are a prefix of `items`.
  const sizeOf = (page: Page<T>): number => {
    const n = page.items.length;
    if (n === 0 || !isPrefix(page.items, items)) return encodedSize(envelope, page);
    return encodedSize(envelope, { ...page, items: [] }) + sums[n] - 2;
  };
  const fits = (page: Page<T>) => sizeOf(page) <= envelope.maxBytes;
  // Estimate with the empty page's shell (its cursor stands in for the real one), then correct exactly.
  const room = envelope.maxBytes - sizeOf(build(0)) + 2;
  let n = 0;
  while (n < items.length && sums[n + 1] <= room) n++;
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
    throw new ToolError(
      "one item is larger than the result ceiling (maxResultBytes, --max-result-bytes); raise it",
    );
  }
  return build(0);
}

function isPrefix<T>(page: readonly T[], items: readonly T[]): boolean {
  if (page.length > items.length) return false;
  for (let i = 0; i < page.length; i++) if (page[i] !== items[i]) return false;
  return true;
}
