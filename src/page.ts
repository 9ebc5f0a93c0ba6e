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

/** What a page of the first `n` candidates is made of, besides the items themselves. */
export interface PageParts<T> {
  /** The cursor after the first `n` candidates, or `null` when they end the traversal. */
  cursor(n: number): string | null;
  /** The page's `content_hash`: always `sha256:` and 64 hex digits (`Digest#contentHash`). */
  hash(items: readonly T[]): string;
  /**
   * At most what one item adds to the result line, found cheaply: `itemCost` of the same item with empty
   * strings, plus twice its strings' UTF-16 length (each unit is a byte or more in each of the two copies).
   * Candidates whose least costs pass the ceiling are never built or measured as one page (one that
   * overestimates changes no page, only costs time: the page is then fitted item by item).
   */
  leastCost?(item: T): number;
}

// Every content_hash is as long, so a page is measured with this one standing in and hashed once, when chosen.
const HASH_STAND_IN = `sha256:${"0".repeat(64)}`;

/**
 * The longest prefix page of `items` that fits the ceiling: the first `n` items, `parts.cursor(n)` and their
 * `parts.hash`. Throws when not one item fits.
 */
export function fitPage<T>(envelope: Envelope, items: readonly T[], parts: PageParts<T>): Page<T> {
  const page = (n: number): Page<T> => {
    const first = items.slice(0, n);
    return { items: first, next_cursor: parts.cursor(n), content_hash: parts.hash(first) };
  };
  // Most pages hold every candidate (a listing of a directory, a last page): one exact measure settles them.
  if (!leastCostsPass(items, parts, envelope.maxBytes)) {
    const whole = page(items.length);
    if (encodedSize(envelope, whole) <= envelope.maxBytes) return whole;
  }
  if (items.length === 0) return page(0);
  // sum(n): what the first n items add, a comma in each copy included (the first item has none: - 2).
  // Summed only as far as asked: a full page never measures the candidates beyond the ceiling.
  const sums = [0];
  const sum = (n: number): number => {
    for (let i = sums.length - 1; i < n; i++) sums.push(sums[i] + itemCost(items[i]));
    return sums[n];
  };
  // The exact size of the page of n items, not built: its shell (the cursor for n, the stand-in hash) and sum(n).
  const shell = (n: number) => ({ items: [], next_cursor: parts.cursor(n), content_hash: HASH_STAND_IN });
  const sizeOf = (n: number): number => encodedSize(envelope, shell(n)) + (n === 0 ? 0 : sum(n) - 2);
  const fits = (n: number) => sizeOf(n) <= envelope.maxBytes;
  // Estimate with the empty page's shell (its cursor stands in for the real one), then correct exactly.
  const room = envelope.maxBytes - sizeOf(0) + 2;
  let n = 1;
  while (n < items.length && sum(n + 1) <= room) n++;
  if (fits(n)) {
    while (n < items.length && fits(n + 1)) n++;
    return page(n);
  }
  for (n--; n > 0; n--) if (fits(n)) return page(n);
  // Name what did not fit: with a cursor (issued twice, in the structure and the text) an item may fit alone.
  const what = parts.cursor(1) === null ? "one item" : "one item with the page's cursor";
  throw new ToolError(
    `${what} is larger than the result ceiling (maxResultBytes, --max-result-bytes); raise it`,
  );
}

/** Whether the items' least costs (`PageParts#leastCost`) alone pass `maxBytes`. */
function leastCostsPass<T>(items: readonly T[], parts: PageParts<T>, maxBytes: number): boolean {
  if (parts.leastCost === undefined) return false;
  let total = 0;
  for (const item of items) if ((total += parts.leastCost(item)) > maxBytes) return true;
  return false;
}
