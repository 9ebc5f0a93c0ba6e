/**
 * Names of the temporary files an atomic write creates in the root. No tool
 * ever serves them, so a crash that leaves one behind leaks nothing.
 *
 * @module
 */

const PREFIX = ".ptc-fs-mcp-";
const SUFFIX = ".tmp";

/** A fresh temporary name for a write. */
export function tempName(random: string): string {
  return `${PREFIX}${random}${SUFFIX}`;
}

/** Whether a name is (or looks like) a write's temporary file. */
export function isTempName(name: string): boolean {
  return name.startsWith(PREFIX) && name.endsWith(SUFFIX);
}
