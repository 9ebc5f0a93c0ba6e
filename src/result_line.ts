/**
 * The JSON-RPC line that carries a tool result: its exact length (pages are
 * fitted to the ceiling) and its bytes (the binary's stdio transport).
 *
 * The line is a fixed envelope around the result's JSON `J` twice: as
 * `structuredContent`, and as the text block's JSON string, which adds a
 * backslash before every `"` and `\` of `J` (JSON text holds no other
 * character a string escapes). So an item costs the same on any page.
 *
 * The SDK would stringify the page twice more and transcode the line: on a
 * 64 MiB read that was a quarter of the server's busy time at the default
 * ceiling, half with 1 MiB results. So a server given a `ResultLines` records
 * each result (for a read page, with a writer of its JSON straight from the
 * file bytes) by request id; the transport takes it back, and `encodeLine`
 * writes the JSON once and copies it escaped. The bytes equal
 * `JSON.stringify(message) + "\n"` (tests compare them). Sizes and bytes stay
 * in one module, past 250 lines: they are one piece of knowledge and must agree.
 *
 * @module
 */
import { utf8Length } from "./bytes.ts";
import type { JsonSink, JsonWriter } from "./page.ts";

/** What fitting needs of the response: the request's id, the line's ceiling, the `serverInfo` in `_meta`. */
export interface Envelope {
  readonly requestId: string | number;
  readonly maxBytes: number;
  readonly serverInfo: { readonly name: string; readonly version: string };
}

/** The line around the result, all but its JSON's two copies (an empty text and a 0 stand in: 3 bytes). */
function envelopeSize({ requestId, serverInfo }: Envelope): number {
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

/** What a JSON text adds to a result line: itself, and itself as a JSON string. */
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

/** What one item adds to a page: its JSON twice (as `twiceSize`), and a comma in each copy. */
export function itemCost(item: unknown): number {
  return twiceSize(JSON.stringify(item)) - 2 + 2;
}

/**
 * What each byte of a string value's well-formed UTF-8 costs in a result
 * line: its JSON escape, plus that escape escaped again in the text block
 * (2 for most, 6 for `"` and `\`, 5 for `\n`, 13 for `\u00XX`). A byte of a
 * multi-byte character is never escaped: 2.
 */
export const STRING_BYTE_COST: Readonly<Uint8Array> = (() => {
  const costs = new Uint8Array(256).fill(2);
  for (let b = 0; b < 0x80; b++) {
    costs[b] = twiceSize(JSON.stringify(String.fromCharCode(b))) - twiceSize('""');
  }
  return costs;
})();

const encoder = new TextEncoder();

const BLOCK = 16 * 1024; // bytes escaped per step: bounds how far a sink grows ahead of what it holds

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

/** A result recorded for the transport: its value, its JSON, and a writer of that JSON as bytes. */
type Recorded = { readonly value: object; readonly json: string; readonly write: JsonWriter };

/**
 * The results a server made, by request id, until the transport sends them:
 * made per connection by the binary, the server records, the transport takes.
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

const valueJson = new ByteSink(); // the value's JSON, made once per line (lines are encoded one at a time)

/** The index of `mark` in `shell` when it occurs exactly once, else -1. */
function onlyAt(shell: string, mark: string): number {
  const at = shell.indexOf(mark);
  return at === shell.lastIndexOf(mark) ? at : -1;
}

/**
 * Appends the line for `message` (with its newline) to `sink`: the bytes of
 * `JSON.stringify(message) + "\n"`, made from the recorded result's own
 * bytes when `message` carries it unchanged.
 */
export function encodeLine(message: unknown, sink: ByteSink, recorded?: Recorded): void {
  const result = (message as { result?: { content?: unknown; structuredContent?: unknown } }).result;
  const shell = recorded && carries(result, recorded)
    ? JSON.stringify(message, function (this: unknown, key: string, value: unknown) {
      if (this !== result) return value;
      return key === "structuredContent" ? VALUE_STAND_IN : key === "content" ? TEXT_STAND_IN : value;
    })
    : "";
  const valueAt = onlyAt(shell, VALUE_MARK);
  const textAt = onlyAt(shell, TEXT_MARK);
  if (!recorded || valueAt < 0 || textAt < 0) {
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
 * JSON, and the same fields with the same values (the SDK's validation
 * copies objects but keeps each field's value).
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
