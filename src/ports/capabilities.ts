/**
 * What a port needs from its runtime before it may serve. Both ports open
 * files with `node:fs` flags: `O_NOFOLLOW`, so a link swapped in fails in the
 * kernel, and `O_NONBLOCK`, so a FIFO cannot hang the process. Node on
 * Windows has neither; a server that quietly opened files without them would
 * break its own confinement, so such a port says why and `openRoot` refuses it.
 *
 * @module
 */

const NEEDED = ["O_NOFOLLOW", "O_NONBLOCK"] as const;

/**
 * Why a runtime with these `node:fs` constants cannot serve (`FsPort.unsupported`), or undefined.
 *
 * @example The flags Linux has, and a platform without them
 * ```ts
 * import assert from "node:assert/strict";
 * import { missingOpenFlags } from "./capabilities.ts";
 * assert.equal(missingOpenFlags({ O_NOFOLLOW: 0o400000, O_NONBLOCK: 0o4000 }), undefined);
 * assert.match(missingOpenFlags({ O_NONBLOCK: 0o4000 }) ?? "", /no O_NOFOLLOW,/);
 * ```
 */
export function missingOpenFlags(constants: Readonly<Record<string, unknown>>): string | undefined {
  const missing = NEEDED.filter((name) => typeof constants[name] !== "number");
  if (missing.length === 0) return undefined;
  return `cannot start on this platform: node:fs has no ${missing.join(" and ")}, without which ` +
    "opening a file could follow a symbolic link or hang on a FIFO (Windows is not supported)";
}
