/**
 * What a port needs from its runtime before it may serve. Both ports open
 * files with `node:fs` flags (the Node port today, the Deno port through
 * Deno's built-in `node:fs`): `O_NOFOLLOW`, so a link swapped in at the
 * final component fails in the kernel, and `O_NONBLOCK`, so a FIFO swapped in
 * cannot hang the process. Node on Windows has neither, and a server that
 * quietly opened files without them would break its own confinement, so such
 * a port says why it cannot serve and `openRoot` refuses it.
 *
 * @module
 */

/** The open flags the contract cannot do without. */
const NEEDED = ["O_NOFOLLOW", "O_NONBLOCK"] as const;

/**
 * Says why a runtime with these `node:fs` constants cannot serve, for
 * `FsPort.unsupported`.
 *
 * @example The flags Linux has, and a platform without them
 * ```ts
 * import assert from "node:assert/strict";
 * import { missingOpenFlags } from "./capabilities.ts";
 * assert.equal(missingOpenFlags({ O_NOFOLLOW: 0o400000, O_NONBLOCK: 0o4000 }), undefined);
 * assert.match(missingOpenFlags({ O_NONBLOCK: 0o4000 }) ?? "", /no O_NOFOLLOW,/);
 * ```
 *
 * @param constants `constants` of `node:fs`, or a stand-in (a test removes a flag).
 * @returns One line naming the missing flags, or undefined when none is missing.
 */
export function missingOpenFlags(constants: Readonly<Record<string, unknown>>): string | undefined {
  const missing = NEEDED.filter((name) => typeof constants[name] !== "number");
  if (missing.length === 0) return undefined;
  return `cannot start on this platform: node:fs has no ${missing.join(" and ")}, without which ` +
    "opening a file could follow a symbolic link or hang on a FIFO (Windows is not supported)";
}
