/**
 * The `read` scenario with `--max-result-bytes 1048576`: the same file in
 * pages of up to 1 MiB, against `cat` and the same floors.
 *
 * @module
 */
import type { Context, Outcome } from "../context.ts";
import { readRows } from "./read.ts";

/** Rows: as `read`'s, for 1 MiB results. */
export function read1m(ctx: Context): Promise<Outcome> {
  return readRows(ctx, true);
}
