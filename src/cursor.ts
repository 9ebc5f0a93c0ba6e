/**
 * Signed cursors, `<payload>.<mac>`: the payload is base64url of the digest of the state the traversal
 * depends on (32 bytes) and the position (UTF-8); the mac is base64url of HMAC-SHA-256, under a per-process
 * key, of the tool's name, a digest of the traversal's arguments (never `limit`) and the payload, compared
 * whole. So a cursor is bound to its tool and arguments without carrying them: only the state and the
 * position, which the next page needs, take room in a result (where a cursor appears twice).
 *
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Buffer } from "node:buffer";
import {
  CANCELLED_MESSAGE,
  INVALID_CURSOR_MESSAGE,
  ROOT_MOVED_MESSAGE,
  STALE_CURSOR_MESSAGE,
  ToolError,
} from "./errors.ts";
import { Digest } from "./hashing.ts";
import { DEFAULT_LIMITS } from "./limits.ts";
import { FsError } from "./ports/fs_port.ts";

/** Longest cursor a codec for the default `maxPathBytes` accepts. */
export const MAX_CURSOR_LENGTH: number = maxCursorLength(DEFAULT_LIMITS.maxPathBytes);

/** The longest cursor whose position holds a path of `maxPathBytes`: base64 of the payload, and the mac. */
function maxCursorLength(maxPathBytes: number): number {
  return Math.ceil((maxPathBytes + 256) * 4 / 3) + 64;
}

/** A verified cursor: the digest of the state it was issued under, and where the traversal continues. */
export type CursorClaims = { readonly state: string; readonly position: string };

const STATE = /^[0-9a-f]{64}$/; // a state is a SHA-256 digest in hex
const STATE_BYTES = 32;
const MAC_LENGTH = 43; // base64url of a 32-byte HMAC-SHA-256, unpadded

/**
 * The length of every cursor `issue` makes for a position of `positionBytes` UTF-8 bytes: a page can be
 * fitted with its cursor's room before the cursor is signed.
 */
export function cursorLength(positionBytes: number): number {
  return Math.ceil((STATE_BYTES + positionBytes) * 4 / 3) + 1 + MAC_LENGTH;
}

/** Issues and verifies the cursors of one process. */
export class CursorCodec {
  readonly #key: Uint8Array;
  /** Longest cursor accepted before any decoding: what a position of `maxPathBytes` makes. */
  readonly maxLength: number;

  /**
   * @param key The HMAC key; a fresh random one by default.
   * @param maxPathBytes The longest path a position may hold, in UTF-8 bytes.
   */
  constructor(key: Uint8Array = randomBytes(32), maxPathBytes: number = DEFAULT_LIMITS.maxPathBytes) {
    this.#key = key;
    this.maxLength = maxCursorLength(maxPathBytes);
  }

  // NUL: no tool name holds one, and the arguments' digest is hex.
  #mac(tool: string, args: unknown, payload: string): string {
    return createHmac("sha256", this.#key).update(`${tool}\0${argsDigest(args)}\0${payload}`).digest(
      "base64url",
    );
  }

  /** Issues a cursor for `tool` with traversal arguments `args`; `state` is a SHA-256 hex digest. */
  issue(tool: string, args: unknown, state: string, position: string): string {
    if (!STATE.test(state)) throw new TypeError("a cursor's state must be a SHA-256 hex digest");
    const payload = Buffer.concat([Buffer.from(state, "hex"), Buffer.from(position)]).toString("base64url");
    return `${payload}.${this.#mac(tool, args, payload)}`;
  }

  /** Verifies a cursor for `tool` and `args`; throws `cursor is not valid` unless it was issued exactly so. */
  open(cursor: string, tool: string, args: unknown): CursorClaims {
    const invalid = () => new ToolError(INVALID_CURSOR_MESSAGE);
    if (cursor.length > this.maxLength) throw invalid();
    const dot = cursor.indexOf(".");
    if (dot < 0) throw invalid();
    const payload = cursor.slice(0, dot);
    const given = Buffer.from(cursor.slice(dot + 1));
    const expected = Buffer.from(this.#mac(tool, args, payload));
    // Whole, so an edit even to the unused low bits of the last base64 character is refused.
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
    const bytes = Buffer.from(payload, "base64url");
    if (bytes.length < STATE_BYTES) throw invalid(); // a guard: every cursor this key signed holds a state
    return {
      state: bytes.subarray(0, STATE_BYTES).toString("hex"),
      position: bytes.subarray(STATE_BYTES).toString(),
    };
  }
}

/** Refuses a cursor whose bound state no longer matches. */
export function assertState(claims: CursorClaims, current: string): void {
  if (claims.state !== current) throw new ToolError(STALE_CURSOR_MESSAGE);
}

// What a target that cannot be resolved may have become since a cursor was issued: gone, or another kind.
const GONE = new Set(["not_found", "not_directory", "symlink", "not_regular", "changed"]);

/**
 * Resolves the target of a call (`claims`: the verified cursor it continues, if any). A cursor was issued for
 * the same arguments while its target was served, so a target now gone or of another kind is the state the
 * cursor bound having changed: that call is refused as stale, not as `not found`. A moved root, a permission
 * denied, a busy or failing disk and a cancellation keep their own answer, which says what to do instead.
 */
export async function targetOf<T>(claims: CursorClaims | undefined, target: Promise<T>): Promise<T> {
  try {
    return await target;
  } catch (error) {
    if (claims === undefined || !(error instanceof ToolError)) throw error;
    if (error.message === ROOT_MOVED_MESSAGE || error.message === CANCELLED_MESSAGE) throw error;
    if (error.cause instanceof FsError && !GONE.has(error.cause.code)) throw error;
    throw new ToolError(STALE_CURSOR_MESSAGE, { cause: error });
  }
}

function argsDigest(args: unknown): string {
  return new Digest().text(JSON.stringify(args)).hex().slice(0, 32);
}
