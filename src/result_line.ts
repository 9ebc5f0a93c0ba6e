/**
 * The JSON-RPC line that carries a tool result: how long it is (so pages can
 * be fitted to the ceiling) and how it is written as bytes (so the binary's
 * stdio transport need not serialise a page three times). One piece of
 * knowledge, kept in one place.
 *
 * The line is a fixed envelope around the result's JSON `J` twice: once as
 * `structuredContent`, once as the JSON string of the single text block,
 * which adds a backslash before every `"` and `\` of `J` (JSON text holds no
 * other character a JSON string escapes). So an item costs the same bytes
 * whichever page it lands on, and a page costs one `JSON.stringify`.
 *
 * Writing: the SDK would `JSON.stringify` the message (the page a second and
 * third time, as the text block's escaped string) and transcode the line to
 * UTF-8. Measured on a 64 MiB read, that was a quarter of the server's busy
 * time at the default ceiling and half of it with 1 MiB results. So a server
 * given a `ResultLines` records each result's JSON (and, for a read page, a
 * writer of the same bytes straight from the file), keyed by request id, and
 * the transport takes the record back when it sends that id's response:
 * `encodeLine` writes the page's bytes once, copies them escaped for the
 * text block, around a small shell. The bytes are exactly those of
 * `JSON.stringify(message) + "\n"` (tests compare them).
 *
 * @module
 */
import { utf8Length } from "./bytes.ts";
import type { JsonSink, JsonWriter } from "./page.ts";

// ---------------------------------------------------------------- sizes

/** What fitting needs to know about the response being built. */
export interface Envelope {
  /** The JSON-RPC id of the request. */
  readonly requestId: string | number;
  /** The ceiling for the encoded result line, in bytes. */
  readonly maxBytes: number;
  /** The `serverInfo` the SDK stamps into every result's `_meta`. */
  readonly serverInfo: { readonly name: string; readonly version: string };
}

/** The bytes of the line around the result: all of it but the two copies of its JSON. */
function envelopeSize({ requestId, serverInfo }: Envelope): number {
  // The SDK's line, with an empty text ("") and the value 0 standing in for the two copies (3 bytes).
  const line = {
    result: {
      content: [{ type: "text", text: "" }],
      structuredContent: 0,
      resultType: "complete",
      _meta: { "io.modelcontextprotocol/serverInfo": serverInfo },
    },
    jsonrpc: "2.0",
    id: requestId,
  };
  return utf8Length(JSON.stringify(line)) - 3;
}

/** The bytes a JSON text adds to a result line: itself once, and once more as a JSON string. */
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

/** Bytes one item adds to a page: once in `structuredContent`, once escaped in the text, plus commas. */
export function itemCost(item: unknown): number {
  return twiceSize(JSON.stringify(item)) - 2 + 2;
}

/**
 * What each UTF-8 byte of a string value costs in a result line: its JSON
 * escape in `structuredContent`, plus that escape escaped again in the text
 * block. Derived from `JSON.stringify` for the ASCII bytes (2 for most, 6
 * for `"` and `\`, 5 for `\n`-style escapes, 13 for `\u00XX` ones); a byte
 * of a multi-byte character is never escaped, so it costs 2. Valid for
 * well-formed UTF-8 only.
 */
export const STRING_BYTE_COST: Readonly<Uint8Array> = (() => {
  const costs = new Uint8Array(256).fill(2);
  for (let b = 0; b < 0x80; b++) {
    costs[b] = twiceSize(JSON.stringify(String.fromCharCode(b))) - twiceSize('""');
  }
  return costs;
})();

// ---------------------------------------------------------------- bytes

const encoder = new TextEncoder();

/** Bytes escaped per step: bounds how far a sink grows ahead of what it holds. */
const BLOCK = 16 * 1024;

/** What `JSON.stringify` writes for each ASCII character inside a string, as bytes. */
const STRING_ESCAPES: readonly Uint8Array[] = Array.from(
  { length: 0x80 },
  (_, b) => encoder.encode(JSON.stringify(String.fromCharCode(b)).slice(1, -1)),
);

/** A growable byte buffer that lines are written into, reused from line to line. */
export class ByteSink implements JsonSink {
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

  text(text: string): void {
    const out = this.#reserve(3 * text.length); // a UTF-16 unit is at most 3 UTF-8 bytes
    this.#length += encoder.encodeInto(text, out.subarray(this.#length)).written;
  }

  /** Appends bytes as they are. */
  bytes(bytes: Uint8Array): void {
    this.#reserve(bytes.length).set(bytes, this.#length);
    this.#length += bytes.length;
  }

  jsonString(utf8: Uint8Array): void {
    this.#escaped(utf8, 6, (b) => b < 0x20 || b === 0x22 || b === 0x5c ? STRING_ESCAPES[b] : null);
  }

  /** Appends JSON text as the inside of a JSON string: a backslash before each `"` and `\`. */
  jsonText(json: Uint8Array): void {
    this.#escaped(json, 2, (b) => b === 0x22 ? QUOTE : b === 0x5c ? BACKSLASH : null);
  }

  /** Appends `bytes`, each through `escape` (`null`: as it is); no escape is longer than `widest`. */
  #escaped(bytes: Uint8Array, widest: number, escape: (b: number) => Uint8Array | null): void {
    for (let from = 0; from < bytes.length; from += BLOCK) {
      const to = Math.min(from + BLOCK, bytes.length);
      const out = this.#reserve(widest * (to - from));
      let at = this.#length;
      for (let i = from; i < to; i++) {
        const b = bytes[i];
        const escaped = b >= 0x20 && b !== 0x22 && b !== 0x5c ? null : escape(b);
        if (escaped === null) out[at++] = b;
        else for (let k = 0; k < escaped.length; k++) out[at++] = escaped[k];
      }
      this.#length = at;
    }
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
}

const QUOTE = encoder.encode('\\"');
const BACKSLASH = encoder.encode("\\\\");

/** A tool result as the SDK takes it: the value, and its JSON as the one text block. */
export function toolResult(value: object, json: string = JSON.stringify(value)) {
  return {
    content: [{ type: "text" as const, text: json }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** A result recorded for the transport: its value, its JSON, and how to write that JSON as bytes. */
interface Recorded {
  readonly value: object;
  readonly json: string;
  readonly write: JsonWriter;
}

/**
 * The results a server made, by request id, until the transport sends
 * them. Created per connection by the binary and handed to both sides:
 * `createServer` records, the stdio transport takes.
 */
export class ResultLines {
  readonly #recorded = new Map<string | number, Recorded>();

  /** Records the result for request `id` and returns it for the SDK. `write` defaults to the JSON text. */
  record(id: string | number, value: object, write?: JsonWriter) {
    const json = JSON.stringify(value);
    this.#recorded.set(id, { value, json, write: write ?? ((sink) => sink.text(json)) });
    return toolResult(value, json);
  }

  /** Takes the record for request `id` back (also when the request was cancelled and gets no answer). */
  take(id: string | number | undefined): Recorded | undefined {
    const recorded = this.#recorded.get(id!);
    this.#recorded.delete(id!);
    return recorded;
  }
}

// Stand-ins for the structured value and the content block in the line's shell; a shell that
// holds them other than once each (a client can choose a string id) is written the plain way.
const VALUE_STAND_IN = "\u0000ptc-fs-mcp:value\u0000";
const TEXT_STAND_IN = "\u0000ptc-fs-mcp:text\u0000";
const VALUE_MARK = JSON.stringify(VALUE_STAND_IN);
const TEXT_MARK = JSON.stringify(TEXT_STAND_IN);

/** The value's JSON, made once per line (lines are encoded one at a time). */
const valueJson = new ByteSink();

/**
 * Appends the line for `message` (with its newline) to `sink`: the bytes of
 * `JSON.stringify(message) + "\n"`, made from the recorded result's own
 * bytes when `message` carries it unchanged.
 */
export function encodeLine(message: unknown, sink: ByteSink, recorded?: Recorded): void {
  const result = (message as { result?: { content?: unknown; structuredContent?: unknown } }).result;
  if (recorded === undefined || !carries(result, recorded)) {
    sink.text(JSON.stringify(message) + "\n");
    return;
  }
  const shell = JSON.stringify(message, function (this: unknown, key: string, value: unknown) {
    if (this !== result) return value;
    return key === "structuredContent" ? VALUE_STAND_IN : key === "content" ? TEXT_STAND_IN : value;
  });
  const valueAt = shell.indexOf(VALUE_MARK);
  const textAt = shell.indexOf(TEXT_MARK);
  if (
    valueAt < 0 || textAt < 0 || shell.lastIndexOf(VALUE_MARK) !== valueAt ||
    shell.lastIndexOf(TEXT_MARK) !== textAt
  ) {
    sink.text(JSON.stringify(message) + "\n");
    return;
  }
  valueJson.clear();
  recorded.write(valueJson);
  const json = valueJson.view();
  const parts = [
    { at: valueAt, length: VALUE_MARK.length, write: () => sink.bytes(json) },
    {
      at: textAt,
      length: TEXT_MARK.length,
      write: () => {
        sink.text('[{"type":"text","text":"');
        sink.jsonText(json);
        sink.text('"}]');
      },
    },
  ].sort((a, b) => a.at - b.at);
  let from = 0;
  for (const part of parts) {
    sink.text(shell.slice(from, part.at));
    part.write();
    from = part.at + part.length;
  }
  sink.text(shell.slice(from) + "\n");
}

/**
 * Whether `result` still carries the recorded result: one text block of its
 * JSON, and the same fields with the same values. (The SDK validates a
 * result by parsing it, which copies objects but keeps each field's value.)
 */
function carries(
  result: { content?: unknown; structuredContent?: unknown } | undefined,
  recorded: Recorded,
): boolean {
  const value = result?.structuredContent as Record<string, unknown> | undefined;
  const content = result?.content;
  if (typeof value !== "object" || value === null || !Array.isArray(content) || content.length !== 1) {
    return false;
  }
  const block = content[0] as Record<string, unknown>;
  if (block?.type !== "text" || block.text !== recorded.json || Object.keys(block).length !== 2) return false;
  const keys = Object.keys(recorded.value);
  const own = recorded.value as Record<string, unknown>;
  return Object.keys(value).length === keys.length && keys.every((k) => value[k] === own[k]);
}
