/**
 * Signed cursors: `<payload>.<mac>`, the payload base64url JSON of the tool,
 * a digest of the traversal's arguments (never `limit`), the digest of the
 * state it depends on, and a position; the mac HMAC-SHA-256 over the payload
 * *string* under a per-process key. The mac string is compared whole, so any
 * edit, even to the unused low bits of the last base64 character, is refused.
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Buffer } from "node:buffer";
import { INVALID_CURSOR_MESSAGE, STALE_CURSOR_MESSAGE, ToolError } from "./errors.ts";
import { Digest } from "./hashing.ts";

/** Longest cursor string accepted before any decoding. */
export const MAX_CURSOR_LENGTH = 8_192;

/** A verified cursor: the digest of the state it was issued under, and where the traversal continues. */
export type CursorClaims<P> = { readonly state: string; readonly position: P };

type Payload<P> = { t: string; a: string; s: string; p: P };

/** Issues and verifies the cursors of one process. */
export class CursorCodec {
  readonly #key: Uint8Array;

  /** @param key The HMAC key; a fresh random one by default. */
  constructor(key: Uint8Array = randomBytes(32)) {
    this.#key = key;
  }

  #mac(payload: string): string {
    return createHmac("sha256", this.#key).update(payload).digest("base64url");
  }

  /** Issues a cursor for `tool` with traversal arguments `args`. */
  issue<P>(tool: string, args: unknown, state: string, position: P): string {
    const payload: Payload<P> = { t: tool, a: argsDigest(args), s: state, p: position };
    const encoded = Buffer.from(JSON.stringify(payload)).toString("base64url");
    return `${encoded}.${this.#mac(encoded)}`;
  }

  /** Verifies a cursor for `tool` and `args`; throws `cursor is not valid` unless it was issued exactly so. */
  open<P>(cursor: string, tool: string, args: unknown): CursorClaims<P> {
    const invalid = () => new ToolError(INVALID_CURSOR_MESSAGE);
    if (cursor.length > MAX_CURSOR_LENGTH) throw invalid();
    const dot = cursor.indexOf(".");
    if (dot < 0) throw invalid();
    const encoded = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.#mac(encoded));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    const payload = JSON.parse(Buffer.from(encoded, "base64url").toString()) as Payload<P>;
    if (payload.t !== tool || payload.a !== argsDigest(args)) throw invalid();
    return { state: payload.s, position: payload.p };
  }
}

/** Refuses a cursor whose bound state no longer matches. */
export function assertState(claims: CursorClaims<unknown>, current: string): void {
  if (claims.state !== current) throw new ToolError(STALE_CURSOR_MESSAGE);
}

function argsDigest(args: unknown): string {
  return new Digest().text(JSON.stringify(args)).hex().slice(0, 32);
}
