// The temporary files of atomic writes: never served, so one a crash leaves behind leaks nothing. Writes land
// only in the root, so only a root-level name of exactly this form is one; any other is an ordinary name.
const PREFIX = ".ptc-fs-mcp-";
const SUFFIX = ".tmp";
const TEMP_NAME = /^\.ptc-fs-mcp-[0-9a-f]{16}\.tmp$/;

/** How long a temporary name is, in bytes. */
export const TEMP_NAME_BYTES: number = PREFIX.length + 16 + SUFFIX.length;

/** A fresh temporary name for a write, from 8 random bytes as hex. */
export const tempName = (random: string): string => `${PREFIX}${random}${SUFFIX}`;

/** Whether a root-level name is a write's temporary file. */
export const isTempName = (name: string): boolean => TEMP_NAME.test(name);
