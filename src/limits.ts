import { ConfigError } from "./errors.ts";

/** Every bound on what one call may cost. All sizes are in bytes. */
export interface Limits {
  /** Ceiling of one fully encoded JSON-RPC line of a tool result, its newline included. */
  readonly maxResultBytes: number;
  /** Most items on one page; a call's `limit` may only lower it. */
  readonly maxPageItems: number;
  /** Largest `read_text_file` item. */
  readonly readChunkBytes: number;
  /** Bytes `search_text` scans in one call before it returns a progress cursor. */
  readonly searchScanBytes: number;
  /** Files `search_text` opens in one call before it returns a progress cursor. */
  readonly searchScanFiles: number;
  /** Longest `query`, in UTF-8 bytes. */
  readonly maxQueryBytes: number;
  /** Largest `write_text_file` payload, in UTF-8 bytes. */
  readonly maxWriteBytes: number;
  /** Largest file `read_text_file` and `search_text` will open for content. */
  readonly maxFileBytes: number;
  /** Deepest directory nesting below the root that is walked. */
  readonly maxDepth: number;
  /** Longest relative path argument, in UTF-8 bytes. */
  readonly maxPathBytes: number;
}

/** The limits a root gets unless `openRoot({limits})` or a flag says otherwise. */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  maxResultBytes: 48_000,
  maxPageItems: 1_000,
  readChunkBytes: 16_384,
  searchScanBytes: 64 * 1024 * 1024,
  searchScanFiles: 10_000,
  maxQueryBytes: 256,
  maxWriteBytes: 65_536,
  maxFileBytes: 256 * 1024 * 1024,
  maxDepth: 64,
  maxPathBytes: 4_096,
});

/** The smallest result ceiling that still leaves room for one item. */
export const MIN_RESULT_BYTES = 1_024;

// Each limit's smallest value, where it is not 1.
const MINIMUMS: Partial<Record<keyof Limits, number>> = {
  maxResultBytes: MIN_RESULT_BYTES,
  readChunkBytes: 4,
  maxWriteBytes: 0,
  maxFileBytes: 0,
};

/** The largest value any limit takes: the largest integer a number holds exactly. */
export const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

/**
 * The largest `maxWriteBytes`: content travels in one request of at most 16 MiB, where JSON may
 * escape a byte in 6, so a larger payload might never arrive.
 */
export const MAX_WRITE_BYTES_LIMIT = 2 * 1024 * 1024;

function limitProblem(value: unknown, min: number, max: number): string | undefined {
  const range = `must be an integer from ${min} to ${max}`;
  if (typeof value !== "number" || Number.isNaN(value)) return range;
  // Name the bound that was crossed: 1e20 is too large, not "not an integer".
  if (value > max) return `must be at most ${max}`;
  if (value < min) return `must be at least ${min}`;
  return Number.isInteger(value) ? undefined : range;
}

/**
 * Merges partial limits over the defaults. An unknown limit throws a `ConfigError`
 * whose `option` is `limits`; a value that is not an integer from its minimum to
 * `MAX_LIMIT` (`MAX_WRITE_BYTES_LIMIT` for `maxWriteBytes`) throws one whose
 * `option` is `limits.<key>`, so the command line can name its flag.
 */
export function resolveLimits(partial: Partial<Limits> = {}): Limits {
  if (typeof partial !== "object" || partial === null || Array.isArray(partial)) {
    throw new ConfigError("must be an object of limits", "limits");
  }
  const limits: Record<string, number> = { ...DEFAULT_LIMITS };
  for (const [key, value] of Object.entries(partial)) {
    if (!Object.hasOwn(DEFAULT_LIMITS, key)) { // a misspelt name too, whatever its value
      throw new ConfigError(`has no limit named ${JSON.stringify(key)}`, "limits");
    }
    if (value === undefined) continue;
    const max = key === "maxWriteBytes" ? MAX_WRITE_BYTES_LIMIT : MAX_LIMIT;
    const problem = limitProblem(value, MINIMUMS[key as keyof Limits] ?? 1, max);
    if (problem !== undefined) throw new ConfigError(problem, `limits.${key}`);
    limits[key] = value;
  }
  return limits as unknown as Limits;
}
