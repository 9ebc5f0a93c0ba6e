/**
 * What a port needs from its runtime before it may serve: `node:fs`'s `O_NOFOLLOW` and `O_NONBLOCK`
 * (Node on Windows has neither, and a port opening files without them would break confinement).
 *
 * @module
 */

/** Why a runtime with these `node:fs` constants cannot serve (`FsPort.unsupported`), or undefined. */
export function missingOpenFlags(constants: Readonly<Record<string, unknown>>): string | undefined {
  const missing = ["O_NOFOLLOW", "O_NONBLOCK"].filter((name) => typeof constants[name] !== "number");
  if (missing.length === 0) return undefined;
  return `cannot start on this platform: node:fs has no ${missing.join(" and ")}, without which ` +
    "opening a file could follow a symbolic link or hang on a FIFO (Windows is not supported)";
}
