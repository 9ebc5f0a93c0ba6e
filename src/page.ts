/**
 * Pages and their fitting. A read tool's result is exactly
 * `{items, next_cursor, content_hash}`, sent both as `structuredContent` and
 * as the JSON text of the single content block. A page is fitted against the
 * fully encoded JSON-RPC result line: items are dropped from the end (and
 * the cursor re-issued for the shorter page) until the line fits the ceiling.
 *
 * Sizes are computed, not measured on built lines: the line is a fixed
 * envelope around the page's JSON `J` twice, once as `structuredContent` and
 * once as the JSON string of the text block, which adds a backslash before
 * every `"` and `\` of `J` (`J` holds no other character JSON escapes). So a
 * page costs one `JSON.stringify`, and an item the same bytes whichever page
 * it lands on. (`toolResult` in `wire.ts` builds the result; its stdio
 * encoding writes these same bytes.)
 *
 * @module
 */
import * as z from "zod";
import { ToolError } from "./errors.ts";
import { utf8Length } from "./bytes.ts";

/** One page of a read tool. */
export type Page<T> = {
  /** The items of this page. */
  items: T[];
  /** Pass back to get the next page; `null` when the traversal is complete. */
  next_cursor: string | null;
  /** `sha256:<hex>` over the bytes this page returned (framing per tool). */
  content_hash: string;
};

/**
 * The zod schema of a page of `item`s, as `tools/list` advertises it.
 *
 * `next_cursor` is not declared: a nullable property needs a type list
 * (`["string", "null"]`), which hosts with a bounded schema profile (PtcRunner)
 * refuse. The root allows extra properties instead and its description
 * documents `next_cursor`; `Page` types it. The root says
 * `additionalProperties: true` through `meta`, because zod writes "anything"
 * as the empty schema `{}`, which means the same but is not the boolean those
 * hosts require.
 */
export function pageSchema<T extends z.ZodType>(item: T) {
  return z.looseObject({
    items: z.array(item),
    content_hash: z.string().describe("sha256:<hex> of the bytes this call returned."),
  }).meta({ description: PAGE_DESCRIPTION, additionalProperties: true });
}

const PAGE_DESCRIPTION = "One page: `items`, `content_hash`, and `next_cursor`, a string to pass back as " +
  "`cursor` (with the same other arguments) for the next page, or null when the traversal is complete.";

/** What fitting needs to know about the response being built. */
export interface Envelope {
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The ceiling for the encoded result line, in bytes. */
  readonly maxBytes: number;
  /** The `serverInfo` the SDK stamps into every result's `_meta`. */
  readonly serverInfo: { readonly name: string; readonly version: string };
}

/** The JSON-RPC line that carries a tool result, as the SDK writes it. */
function resultLine(envelope: Envelope, text: string, structured: unknown) {
  return {
    result: {
      content: [{ type: "text" as const, text }],
      structuredContent: structured,
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": envelope.serverInfo },
    },
    jsonrpc: "2.0",
    id: envelope.requestId,
  };
}

/** Per `serverInfo`: the line around the page with request id 0, measured once. */
const aroundSizes = new WeakMap<object, { name: string; version: string; size: number }>();

/** The bytes of the line around the page: all of it but the two copies of the page's JSON. */
function envelopeSize(envelope: Envelope): number {
  const info = envelope.serverInfo;
  let known = aroundSizes.get(info);
  if (known === undefined || known.name !== info.name || known.version !== info.version) {
    // An empty text ("") and the structured value 0 stand in for the page (3 bytes), 0 for the id.
    const size = utf8Length(JSON.stringify(resultLine({ ...envelope, requestId: 0 }, "", 0))) - 3 - 1;
    known = { name: info.name, version: info.version, size };
    aroundSizes.set(info, known);
  }
  const id = envelope.requestId;
  return known.size + (typeof id === "number" ? String(id).length : utf8Length(JSON.stringify(id)));
}

/**
 * The bytes a JSON text `json` adds to a result line: itself once, and once
 * more as a JSON string, which escapes each `"` and `\` with a backslash
 * (JSON text holds no control character and no lone surrogate, the only
 * other characters a JSON string escapes) and adds two quotes.
 */
function twiceSize(json: string): number {
  let escapes = 0;
  let multiByte = false;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 0x22 || c === 0x5c) escapes++;
    else if (c >= 0x80) multiByte = true;
  }
  return 2 * (multiByte ? utf8Length(json) : json.length) + escapes + 2;
}

/** The exact byte length of the JSON-RPC line that carries `structured`. */
export function encodedSize(envelope: Envelope, structured: object): number {
  return envelopeSize(envelope) + twiceSize(JSON.stringify(structured));
}

/** Bytes one item adds: once in `structuredContent`, once escaped in the text, plus commas. */
export function itemCost(item: unknown): number {
  return twiceSize(JSON.stringify(item)) - 2 + 2;
}

/**
 * What each UTF-8 byte of a string value costs in a result line: its JSON
 * escape in `structuredContent`, plus that escape escaped again in the text
 * block. Derived from `JSON.stringify` for the ASCII bytes (2 for most, 6
 * for `"` and `\`, 5 for `\n`-style escapes, 13 for `\u00XX` ones); a byte
 * of a multi-byte character is never escaped (`JSON.stringify` leaves
 * non-ASCII alone, U+2028 and U+2029 included), so it costs 2. Valid for
 * well-formed UTF-8 only (decoded, it holds no lone surrogate).
 */
export const STRING_BYTE_COST: Readonly<Uint8Array> = (() => {
  const costs = new Uint8Array(256).fill(2);
  for (let b = 0; b < 0x80; b++) {
    costs[b] = twiceSize(JSON.stringify(String.fromCharCode(b))) - twiceSize('""');
  }
  return costs;
})();

/**
 * Returns the longest prefix page of `items` that fits the ceiling.
 * `build(n)` makes the page of the first `n` items, with its cursor.
 *
 * @throws {ToolError} when not even one item fits.
 */
export function fitPage<T>(envelope: Envelope, items: readonly T[], build: (n: number) => Page<T>): Page<T> {
  const around = envelopeSize(envelope);
  // costs[i]: what items[i] adds after a first item (a comma in each copy included).
  const costs = items.map(itemCost);
  const sums = [0];
  for (const cost of costs) sums.push(sums[sums.length - 1] + cost);
  /** The exact size of a page: its shell, plus its items when they are a prefix of `items`. */
  const sizeOf = (page: Page<T>): number => {
    const n = page.items.length;
    if (n === 0 || !isPrefix(page.items, items)) return around + twiceSize(JSON.stringify(page));
    return around + twiceSize(JSON.stringify({ ...page, items: [] })) + sums[n] - 2;
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
    throw new ToolError("one item is larger than the result ceiling (--max-result-bytes); raise it");
  }
  return build(0);
}

/** Whether `page` holds exactly the first items of `items`, the same values. */
function isPrefix<T>(page: readonly T[], items: readonly T[]): boolean {
  if (page.length > items.length) return false;
  for (let i = 0; i < page.length; i++) if (page[i] !== items[i]) return false;
  return true;
}
