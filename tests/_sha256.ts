/**
 * SHA-256 for the suite, the stress campaigns and the benchmark.
 *
 * @module
 */
import { createHash } from "node:crypto";

/** Hex SHA-256 of the parts, one after the other (a string counts as its UTF-8 bytes). */
export function sha256(...parts: (string | Uint8Array)[]): string {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part);
  return hash.digest("hex");
}

/** A `content_hash` as the server frames it: `sha256:` and the hex digest of the parts. */
export function contentHash(...parts: (string | Uint8Array)[]): string {
  return `sha256:${sha256(...parts)}`;
}
