import { createHash, type Hash } from "node:crypto";

/** An incremental SHA-256 over strings (UTF-8) and bytes: `content_hash`es and the state digests cursors bind. */
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

  /** The digest as a `content_hash`: `sha256:<hex>`. */
  contentHash(): string {
    return "sha256:" + this.hex();
  }
}
