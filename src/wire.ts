/**
 * Tool results as bytes on the wire. The SDK writes a message with
 * `JSON.stringify` and then transcodes the whole line to UTF-8; a read
 * tool's result holds its page twice (as `structuredContent`, and escaped
 * again as the JSON text of the content block), so each page would be
 * serialised three times, and a page of non-ASCII text transcoded from
 * UTF-16 on top. Measured on a 64 MiB read with 1 MiB results, that was
 * about half of the server's busy time.
 *
 * `toolResult` registers how its page's JSON is written as UTF-8 bytes, and
 * the stdio transport writes such a result with `encodeLine`: the page's
 * JSON once, copied as is, and once escaped byte by byte for the text block,
 * around a small shell that `JSON.stringify` makes of the rest of the
 * message. A page whose text came from file bytes (`read_text_file`)
 * writes its JSON straight from those bytes. The bytes are exactly those of
 * `JSON.stringify(message) + "\n"` (tests compare them), so page fitting,
 * which counts that line, is unchanged.
 *
 * @module
 */

const encoder = new TextEncoder();

/** A growable byte buffer that lines are written into, reused from line to line. */
export class ByteSink {
  #bytes: Uint8Array;
  #length = 0;

  constructor(capacity = 64 * 1024) {
    this.#bytes = new Uint8Array(capacity);
  }

  /** The bytes written since the last `clear` (a view, valid until the next write). */
  view(): Uint8Array {
    return this.#bytes.subarray(0, this.#length);
  }

  /** Forgets what was written; the memory is kept. */
  clear(): void {
    this.#length = 0;
  }

  /** Makes room for `n` more bytes and returns the buffer to write them into. */
  #reserve(n: number): Uint8Array {
    const need = this.#length + n;
    if (need > this.#bytes.length) {
      const grown = new Uint8Array(Math.max(need, 2 * this.#bytes.length));
      grown.set(this.#bytes.subarray(0, this.#length));
      this.#bytes = grown;
    }
    return this.#bytes;
  }

  /** Appends `text` as UTF-8. */
  text(text: string): void {
    const out = this.#reserve(3 * text.length); // a UTF-16 unit is at most 3 UTF-8 bytes
    this.#length += encoder.encodeInto(text, out.subarray(this.#length)).written;
  }

  /** Appends bytes as they are. */
  bytes(bytes: Uint8Array): void {
    this.#reserve(bytes.length).set(bytes, this.#length);
    this.#length += bytes.length;
  }

  /**
   * Appends what `JSON.stringify` writes between the quotes for the text
   * that `utf8` encodes: `"`, `\` and control characters escaped, all else
   * as is. `utf8` must be well-formed UTF-8 (its text then holds no lone
   * surrogate, the only other thing `JSON.stringify` escapes).
   */
  jsonStringBody(utf8: Uint8Array): void {
    for (let from = 0; from < utf8.length; from += BLOCK) {
      const to = Math.min(from + BLOCK, utf8.length);
      const out = this.#reserve(6 * (to - from)); // `\u001f` is the longest escape
      let at = this.#length;
      for (let i = from; i < to; i++) {
        const b = utf8[i];
        if (b >= 0x20 && b !== 0x22 && b !== 0x5c) {
          out[at++] = b;
          continue;
        }
        const escape = STRING_ESCAPES[b];
        for (let k = 0; k < escape.length; k++) out[at++] = escape[k];
      }
      this.#length = at;
    }
  }

  /**
   * Appends JSON text (UTF-8) as the inside of a JSON string: a backslash
   * before each `"` and `\`. JSON text holds no control character, so
   * nothing else needs escaping.
   */
  jsonTextBody(json: Uint8Array): void {
    for (let from = 0; from < json.length; from += BLOCK) {
      const to = Math.min(from + BLOCK, json.length);
      const out = this.#reserve(2 * (to - from));
      let at = this.#length;
      for (let i = from; i < to; i++) {
        const b = json[i];
        if (b === 0x22 || b === 0x5c) out[at++] = 0x5c;
        out[at++] = b;
      }
      this.#length = at;
    }
  }
}

/** Bytes escaped per step: bounds how far a sink grows ahead of what it holds. */
const BLOCK = 16 * 1024;

/** What `JSON.stringify` writes for each ASCII character inside a string, as bytes. */
const STRING_ESCAPES: readonly Uint8Array[] = Array.from(
  { length: 0x80 },
  (_, b) => encoder.encode(JSON.stringify(String.fromCharCode(b)).slice(1, -1)),
);

/** Writes the UTF-8 bytes of `JSON.stringify(value)` for one value. */
export type JsonWriter = (sink: ByteSink) => void;

/** A page `toolResult` sent, with its JSON text and how to write that JSON as bytes. */
interface SentPage {
  readonly page: { readonly items: unknown; readonly next_cursor: unknown; readonly content_hash: unknown };
  readonly json: string;
  readonly write: JsonWriter;
}

/** Pages that know how to write their own JSON, by the page object. */
const pageWriters = new WeakMap<object, JsonWriter>();

/**
 * The pages `toolResult` made, by their `items` array. The SDK validates a
 * tool result by parsing it, which copies every object but passes the
 * values of `structuredContent` (and every string) through as they are: the
 * items array is what still identifies the page when the message is sent.
 */
const sentPages = new WeakMap<object, SentPage>();

/**
 * Gives `page` its own byte form: `write` must append exactly the UTF-8 of
 * `JSON.stringify(page)`. Without one, a page is written from its JSON text.
 */
export function setJsonWriter(page: object, write: JsonWriter): void {
  pageWriters.set(page, write);
}

/**
 * The MCP tool result for a structured value: the value as structured
 * content, and its JSON as the one text block. A page (a value with an
 * `items` array) is remembered for `encodeLine`; it must not change after.
 */
export function toolResult(value: object) {
  const json = JSON.stringify(value);
  const items = (value as { items?: unknown }).items;
  if (Array.isArray(items)) {
    const page = value as SentPage["page"];
    sentPages.set(items, { page, json, write: pageWriters.get(value) ?? ((sink) => sink.text(json)) });
  }
  return {
    content: [{ type: "text" as const, text: json }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** The sent page a result carries, if it is one `toolResult` made and nothing was added to it. */
function sentPageOf(result: { content?: unknown; structuredContent?: unknown } | undefined) {
  const page = result?.structuredContent as Record<string, unknown> | undefined;
  const items = page?.items;
  if (typeof items !== "object" || items === null) return undefined;
  const sent = sentPages.get(items);
  if (
    sent === undefined || Object.keys(page!).length !== 3 || page!.next_cursor !== sent.page.next_cursor ||
    page!.content_hash !== sent.page.content_hash
  ) return undefined;
  const content = result!.content as Record<string, unknown>[] | undefined;
  const block = Array.isArray(content) && content.length === 1 ? content[0] : undefined;
  if (block?.type !== "text" || block.text !== sent.json || Object.keys(block).length !== 2) return undefined;
  return sent;
}

// Stand-ins for the page and the content block in the line's shell; a
// shell that holds them other than once each (a client can choose a string
// id) is written the plain way.
const PAGE_STAND_IN = "\u0000ptc-fs-mcp:page\u0000";
const TEXT_STAND_IN = "\u0000ptc-fs-mcp:text\u0000";
const PAGE_MARK = JSON.stringify(PAGE_STAND_IN);
const TEXT_MARK = JSON.stringify(TEXT_STAND_IN);

/** The page's JSON, made once per line (lines are encoded one at a time). */
const pageJson = new ByteSink();

/**
 * Appends the JSON-RPC line for `message` (with its newline) to `sink`: the
 * bytes of `JSON.stringify(message) + "\n"`, made from the page's own byte
 * form when the message carries a result of `toolResult`.
 */
export function encodeLine(message: unknown, sink: ByteSink): void {
  const result = (message as { result?: { content?: unknown; structuredContent?: unknown } }).result;
  const known = sentPageOf(result);
  if (known === undefined) {
    sink.text(JSON.stringify(message) + "\n");
    return;
  }
  const shell = JSON.stringify(message, function (this: unknown, key: string, value: unknown) {
    if (this !== result) return value;
    if (key === "structuredContent") return PAGE_STAND_IN;
    if (key === "content") return TEXT_STAND_IN;
    return value;
  });
  const pageAt = shell.indexOf(PAGE_MARK);
  const textAt = shell.indexOf(TEXT_MARK);
  if (
    pageAt < 0 || textAt < 0 || shell.lastIndexOf(PAGE_MARK) !== pageAt ||
    shell.lastIndexOf(TEXT_MARK) !== textAt
  ) {
    sink.text(JSON.stringify(message) + "\n");
    return;
  }
  pageJson.clear();
  known.write(pageJson);
  const json = pageJson.view();
  const marks = [
    { at: pageAt, length: PAGE_MARK.length, write: () => sink.bytes(json) },
    {
      at: textAt,
      length: TEXT_MARK.length,
      write: () => {
        sink.text('[{"type":"text","text":"');
        sink.jsonTextBody(json);
        sink.text('"}]');
      },
    },
  ].sort((a, b) => a.at - b.at);
  let from = 0;
  for (const mark of marks) {
    sink.text(shell.slice(from, mark.at));
    mark.write();
    from = mark.at + mark.length;
  }
  sink.text(shell.slice(from) + "\n");
}
