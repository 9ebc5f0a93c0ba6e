/**
 * A read tool's result is a page, `{items, next_cursor, content_hash}`, fitted against its exactly sized
 * result line (`result_line.ts`): items are dropped from the end, the cursor re-issued, until it fits.
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
 * The schema of a page of `item`s, for hosts with a bounded schema profile (PtcRunner): `next_cursor` is
 * described, not declared (nullable needs a type list), and `additionalProperties: true` set through `meta`.
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
 * The longest prefix page of `items` that fits the ceiling; `build(n)` makes the page of the first `n`
 * items (`items.slice(0, n)`), with its cursor. Throws when not one fits.
 */
export function fitPage<T>(envelope: Envelope, items: readonly T[], build: (n: number) => Page<T>): Page<T> {
  // Most pages hold every candidate (a listing of a directory, a last page): one exact measure settles them.
  const whole = build(items.length);
  if (encodedSize(envelope, whole) <= envelope.maxBytes) return whole;
  // sum(n): what the first n items add, a comma in each copy included (the first item has none: - 2).
  // Summed only as far as asked: a full page never measures the candidates beyond the ceiling.
  const sums = [0];
  const sum = (n: number): number => {
    for (let i = sums.length - 1; i < n; i++) sums.push(sums[i] + itemCost(items[i]));
    return sums[n];
  };
  const sizeOf = (page: Page<T>): number => {
    const n = page.items.length;
    return encodedSize(envelope, { ...page, items: [] }) + (n === 0 ? 0 : sum(n) - 2);
  };
  const fits = (page: Page<T>) => sizeOf(page) <= envelope.maxBytes;
  // Estimate with the empty page's shell (its cursor stands in for the real one), then correct exactly.
  const room = envelope.maxBytes - sizeOf(build(0)) + 2;
  let n = 0;
  while (n < items.length && sum(n + 1) <= room) n++;
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
    // Name what did not fit: with a cursor (issued twice, in the structure and the text) an item may fit alone.
    const what = build(1).next_cursor === null ? "one item" : "one item with the page's cursor";
    throw new ToolError(
      `${what} is larger than the result ceiling (maxResultBytes, --max-result-bytes); raise it`,
    );
  }
  return build(0);
}
