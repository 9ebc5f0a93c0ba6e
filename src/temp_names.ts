// The temporary files of atomic writes: never served, so one a crash leaves behind leaks nothing.
const PREFIX = ".ptc-fs-mcp-";
const SUFFIX = ".tmp";

/** A fresh temporary name for a write. */
export const tempName = (random: string): string => `${PREFIX}${random}${SUFFIX}`;

/** Whether a name is (or looks like) a write's temporary file. */
export const isTempName = (name: string): boolean => name.startsWith(PREFIX) && name.endsWith(SUFFIX);
