/**
 * SHA-256 helpers. `content_hash` is `"sha256:"` + hex over the bytes a call
 * returned; state digests bind cursors to what a traversal depends on.
 *
 * @module
 */
import { createHash, type Hash } from "node:crypto";

/** The `content_hash` prefix. */
export const HASH_PREFIX = "sha256:";

/** An incremental SHA-256 over strings (UTF-8) and bytes. */
export class Digest {
  readonly #hash: Hash = createHash("sha256");

  /** Adds a string's UTF-8 bytes. */
  text(value: string): this {
    this.#hash.update(value, "utf8");
    return this;
  }

  /** Adds raw bytes. */
  bytes(value: Uint8Array): this {
    this.#hash.update(value);
    return this;
  }

  /** The hex digest. */
  hex(): string {
    return this.#hash.digest("hex");
  }

  /** The digest as a `content_hash`. */
  contentHash(): string {
    return HASH_PREFIX + this.hex();
  }
}
