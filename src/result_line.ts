/**
 * The JSON-RPC line that carries a tool result: its exact length (pages are fitted to the ceiling) and its
 * bytes (the binary's stdio transport), kept in one module because they must agree. The line holds the
 * result's JSON twice: as `structuredContent`, and as the text block's string (`"` and `\` escaped).
 *
 * @module
 */
import { SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import { utf8Length } from "./bytes.ts";
import type { JsonSink, JsonWriter, Page } from "./page.ts";

/** What fitting needs of the response: the request's id, the line's ceiling, the `serverInfo` in `_meta`. */
export interface Envelope {
  readonly requestId: string | number;
  readonly maxBytes: number;
  readonly serverInfo: { readonly name: string; readonly version: string };
}

/** A value's two copies in a result line: its JSON, and that JSON as a JSON string (the text block's). */
interface Copies {
  readonly json: string;
  readonly quoted: string;
}

// The copies `encodedSize` made, by value. A page is never changed after it was measured: when it was
// measured whole (most pages: every candidate fits), its line is written from them (`writersOf`, which drops
// them), not stringified again; a page fitted from its items' costs is stringified once, when it is written.
const measured = new WeakMap<object, Copies>();

function copiesOf(value: unknown): Copies {
  const json = JSON.stringify(value);
  return { json, quoted: JSON.stringify(json) }; // `"` and `\`: all a JSON text holds that needs escaping
}

const NON_ASCII = /[\u0080-\uffff]/; // any UTF-16 unit outside ASCII, surrogates included

/** What a value's copies add to a result line, in UTF-8 bytes. */
function twiceSize({ json, quoted }: Copies): number {
  return NON_ASCII.test(json) ? utf8Length(json) + utf8Length(quoted) : json.length + quoted.length;
}

/**
 * The exact byte length of the JSON-RPC line that carries `structured`, its newline included: the ceiling
 * bounds what goes down the pipe, however a client counts it.
 */
export function encodedSize({ requestId, serverInfo }: Envelope, structured: object): number {
  const line = {
    result: {
      content: [{ type: "text", text: "" }],
      structuredContent: 0,
      resultType: "complete",
      _meta: { [SERVER_INFO_META_KEY]: serverInfo },
    },
    jsonrpc: "2.0",
    id: requestId,
  };
  const copies = copiesOf(structured);
  measured.set(structured, copies);
  // The envelope less its stand-ins for the two copies (an empty text and a 0: 3 bytes), the copies, the `\n`.
  return utf8Length(JSON.stringify(line)) - 3 + twiceSize(copies) + 1;
}

/** What one item adds to a page, the same on any page: its JSON twice, and a comma in each copy. */
export function itemCost(item: unknown): number {
  return twiceSize(copiesOf(item)); // the 2 that counts a string's quotes counts the two commas
}

/**
 * What each byte of a string value's well-formed UTF-8 costs in a result line: its JSON escape, plus that
 * escape escaped again (2 for most, 6 for `"` and `\`, 5 for `\n`, 13 for `\u00XX`, 2 in a multi-byte one).
 */
export const STRING_BYTE_COST: Readonly<Uint8Array> = Uint8Array.from(
  { length: 256 },
  (_, b) => b < 0x80 ? twiceSize(copiesOf(String.fromCharCode(b))) - twiceSize(copiesOf("")) : 2,
);

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const BLOCK = 16 * 1024; // bytes escaped per step: bounds how far a sink grows ahead of what it holds

/** Per byte, what `JSON.stringify` writes for it inside a string when `escaped(byte)`, else `null`. */
const escapes = (escaped: (b: number) => boolean): readonly (Uint8Array | null)[] =>
  Array.from(
    { length: 256 },
    (_, b) => escaped(b) ? encoder.encode(JSON.stringify(String.fromCharCode(b)).slice(1, -1)) : null,
  );
const STRING_ESCAPES = escapes((b) => b < 0x20 || b === 0x22 || b === 0x5c);
const TEXT_ESCAPES = escapes((b) => b === 0x22 || b === 0x5c);
/**
 * Per byte, its `STRING_ESCAPES` escape escaped again by `TEXT_ESCAPES` (`\n` becomes `\\n`), else `null`: what
 * the text block's copy holds for it. A byte with no string escape needs no text escape either (it is neither
 * `"` nor `\`).
 */
const QUOTED_STRING_ESCAPES = STRING_ESCAPES.map((escape) =>
  escape && Uint8Array.from([...escape].flatMap((b) => [...(TEXT_ESCAPES[b] ?? [b])]))
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
    this.#escaped(utf8, 6, STRING_ESCAPES);
  }

  /**
   * `jsonString`, and at once into `quoted` what `jsonText` would make of what it wrote: a string's two copies
   * in a result line from one pass over its bytes.
   */
  jsonStringTwice(utf8: Uint8Array, quoted: ByteSink): void {
    for (let from = 0; from < utf8.length; from += BLOCK) {
      const to = Math.min(from + BLOCK, utf8.length);
      const out = this.#reserve(6 * (to - from));
      const outQuoted = quoted.#reserve(7 * (to - from)); // the widest: a `\u00XX` escaped again
      let at = this.#length;
      let atQuoted = quoted.#length;
      for (let i = from; i < to; i++) {
        const byte = utf8[i];
        const escaped = STRING_ESCAPES[byte];
        if (escaped === null) {
          out[at++] = byte;
          outQuoted[atQuoted++] = byte;
          continue;
        }
        for (let k = 0; k < escaped.length; k++) out[at++] = escaped[k];
        const twice = QUOTED_STRING_ESCAPES[byte]!;
        for (let k = 0; k < twice.length; k++) outQuoted[atQuoted++] = twice[k];
      }
      this.#length = at;
      quoted.#length = atQuoted;
    }
  }

  /** Appends JSON text as the inside of a JSON string: a backslash before each `"` and `\`. */
  jsonText(json: Uint8Array): void {
    this.#escaped(json, 2, TEXT_ESCAPES);
  }

  /** Appends `bytes`, each through `escapes` (none longer than `widest`). */
  #escaped(bytes: Uint8Array, widest: number, escapes: readonly (Uint8Array | null)[]): void {
    for (let from = 0; from < bytes.length; from += BLOCK) {
      const to = Math.min(from + BLOCK, bytes.length);
      const out = this.#reserve(widest * (to - from));
      let at = this.#length;
      for (let i = from; i < to; i++) {
        const escaped = escapes[bytes[i]];
        if (escaped === null) out[at++] = bytes[i];
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

/** A tool result as the SDK takes it: the value, and its JSON as the one text block. */
export function toolResult(value: object, json: string = JSON.stringify(value)) {
  return {
    content: [{ type: "text" as const, text: json }],
    structuredContent: value as Record<string, unknown>,
  };
}

/**
 * A result recorded for the transport: its value, the stand-in its text block carries until the line is
 * written, and a writer of the value's JSON as bytes, if it has one (a read page).
 */
type Recorded = { readonly value: object; readonly standIn: string; readonly write?: JsonWriter };

/**
 * Where a page recorded with a writer keeps it, hidden from JSON and schemas (a symbol key, not enumerable): on
 * its `items`, which the SDK's copy of the structured content keeps as they are (as `carries` relies on). So a
 * line written the plain way, its record gone (an id reused), is still made by the writer, not from a shape.
 */
const WRITER = Symbol("ptc-fs-mcp.writer");

const STAND_IN_START = "\u0000ptc-fs-mcp:result:"; // then a serial number and a NUL: what `record` puts in a text block

/** Whether `text` is a stand-in `ResultLines.record` made. */
const isStandIn = (text: string) =>
  text.startsWith(STAND_IN_START) && text.endsWith("\u0000") &&
  /^\d+$/.test(text.slice(STAND_IN_START.length, -1));

/**
 * The results a server made, until the transport writes them (one per binary connection). The SDK's result
 * carries a stand-in as its text block, not the value's JSON: the line is written from the value's own bytes
 * when it has a writer, so the binary never makes a read page's JSON as a string (on Deno's V8, stringifying
 * a page of long fresh strings cost more than the rest of a read), and else from the JSON its measure made.
 */
export class ResultLines {
  readonly #recorded = new Map<string, Recorded>(); // by stand-in
  readonly #standIns = new Map<string, Set<string>>(); // by the JSON of the request id: dropped once answered
  #serial = 0;

  /**
   * Records the result for request `id` and returns it for the SDK. Without `write`, its JSON text is used; with
   * it, `value` is a page, perhaps only its shape (`Reply#shape`), whose line `write` makes.
   */
  record(id: string | number, value: object, write?: JsonWriter) {
    if (write) Object.defineProperty((value as Page<unknown>).items, WRITER, { value: write });
    const standIn = `${STAND_IN_START}${this.#serial++}\u0000`;
    this.#recorded.set(standIn, { value, standIn, write });
    const key = JSON.stringify(id);
    this.#standIns.set(key, (this.#standIns.get(key) ?? new Set()).add(standIn));
    return toolResult(value, standIn);
  }

  /**
   * Takes back, for the response `message`, the record whose stand-in it carries, and drops any other record
   * of its id: an answer the SDK made in place of a recorded result (an error), or a request that reused the
   * id (its line is then written the plain way). So no record outlives its request's answer.
   */
  take(message: unknown): Recorded | undefined {
    const { id, result } = message as { id?: string | number; result?: { content?: unknown } };
    const text = textBlock(result)?.text;
    const recorded = typeof text === "string" ? this.#recorded.get(text) : undefined;
    if (id !== undefined) this.drop(id);
    return recorded;
  }

  /** Drops what request `id` recorded: it was cancelled, or answered. */
  drop(id: string | number): void {
    const key = JSON.stringify(id);
    for (const standIn of this.#standIns.get(key) ?? []) this.#recorded.delete(standIn);
    this.#standIns.delete(key);
  }

  /** How many records wait for their answer (for tests). */
  get size(): number {
    return this.#recorded.size;
  }
}

/** A result's one text block, when it has exactly one. */
function textBlock(result: { content?: unknown } | undefined): Record<string, unknown> | undefined {
  const content = result?.content;
  return Array.isArray(content) && content.length === 1 && typeof content[0] === "object" &&
      content[0] !== null
    ? content[0]
    : undefined;
}

// Stand-ins for the value and the content block in the line's shell; a shell that holds them other than
// once each (a client can choose a string id) is written the plain way.
const STAND_INS: Record<string, string> = {
  structuredContent: "\u0000ptc-fs-mcp:value\u0000",
  content: "\u0000ptc-fs-mcp:text\u0000",
};
const MARK = /"\\u0000ptc-fs-mcp:(value|text)\\u0000"/; // a stand-in as JSON; split() keeps its name

/**
 * A value's two copies in a result line, written side by side by its `JsonWriter`: its JSON, and that JSON as
 * the inside of a JSON string (the text block's). Reused from line to line (lines are encoded one at a time).
 */
class JsonCopies implements JsonSink {
  readonly json = new ByteSink();
  readonly quoted = new ByteSink();

  clear(): void {
    this.json.clear();
    this.quoted.clear();
  }

  text(text: string): void {
    const from = this.json.view().length;
    this.json.text(text);
    this.quoted.jsonText(this.json.view().subarray(from));
  }

  jsonString(utf8: Uint8Array): void {
    this.json.jsonStringTwice(utf8, this.quoted);
  }
}

const valueCopies = new JsonCopies();

/**
 * Appends the line of `message`: the bytes of `JSON.stringify(message) + "\n"`, a recorded result's stand-in
 * replaced by the JSON of the structured content. Made from the recorded result's copies (`writersOf`) when
 * `message` carries it unchanged.
 */
export function encodeLine(message: unknown, sink: ByteSink, recorded?: Recorded): void {
  const result = (message as { result?: { content?: unknown; structuredContent?: unknown } }).result;
  const pieces = recorded && carries(result, recorded)
    ? JSON.stringify(message, function (this: unknown, key: string, value: unknown) {
      return this === result && Object.hasOwn(STAND_INS, key) ? STAND_INS[key] : value;
    }).split(MARK)
    : [];
  if (pieces.length !== 5 || pieces[1] === pieces[3]) {
    sink.text(plainJson(message, result) + "\n");
    return;
  }
  const writers = writersOf(recorded!);
  pieces.forEach((piece, i) => {
    if (i % 2 === 0) sink.text(piece);
    else if (piece === "value") writers.value(sink);
    else writers.text(sink);
  });
  sink.text("\n");
}

/**
 * Writers of a recorded result's two copies: its JSON, and the text block holding that JSON as a string.
 * From the result's own writer, both are written as bytes in one pass (`JsonCopies`); without one, from the
 * copies made when the value was measured (or now, natively, if it was not).
 */
function writersOf({ value, write }: Recorded): Record<"value" | "text", (sink: ByteSink) => void> {
  if (write === undefined) {
    const { json, quoted } = measured.get(value) ?? copiesOf(value);
    measured.delete(value); // written once: the copies die with the line, not with the page
    return {
      value: (sink) => sink.text(json),
      text: (sink) => sink.text(`[{"type":"text","text":${quoted}}]`),
    };
  }
  valueCopies.clear();
  write(valueCopies);
  return {
    value: (sink) => sink.bytes(valueCopies.json.view()),
    text: (sink) => {
      sink.text('[{"type":"text","text":"');
      sink.bytes(valueCopies.quoted.view());
      sink.text('"}]');
    },
  };
}

/**
 * `JSON.stringify(message)`, a recorded result's stand-in replaced by the JSON of the structured content; a
 * value recorded with a writer (perhaps only its shape) replaced by what that writer makes.
 */
function plainJson(message: unknown, result: { content?: unknown; structuredContent?: unknown } | undefined) {
  const block = textBlock(result);
  if (typeof block?.text !== "string" || !isStandIn(block.text)) return JSON.stringify(message);
  const structured = result?.structuredContent;
  const items = (structured as Partial<Page<unknown>> | null | undefined)?.items;
  const write = typeof items === "object" && items !== null
    ? (items as { [WRITER]?: JsonWriter })[WRITER]
    : undefined;
  const json = write ? jsonOf(write) : JSON.stringify(structured ?? null);
  const value = write ? JSON.parse(json) : structured;
  return JSON.stringify(message, function (this: unknown, key: string, field: unknown) {
    if (this === block && key === "text") return json;
    return this === result && key === "structuredContent" ? value : field;
  });
}

/** The JSON a writer makes, as a string. */
function jsonOf(write: JsonWriter): string {
  valueCopies.clear();
  write(valueCopies);
  return decoder.decode(valueCopies.json.view());
}

/**
 * Whether `result` still carries the recorded result: one text block with its stand-in, and the same fields
 * with the same values (the SDK's validation copies objects but keeps each field's value).
 */
function carries(result: { content?: unknown; structuredContent?: unknown } | undefined, recorded: Recorded) {
  const value = result?.structuredContent as Record<string, unknown> | undefined;
  const block = textBlock(result);
  if (typeof value !== "object" || value === null || block === undefined) return false;
  const own = recorded.value as Record<string, unknown>;
  const keys = Object.keys(own);
  return block.type === "text" && block.text === recorded.standIn && Object.keys(block).length === 2 &&
    Object.keys(value).length === keys.length && keys.every((k) => value[k] === own[k]);
}
