import { utf8Length } from "../bytes.ts";
import { refuseArgument } from "../quote.ts";
import type { Root } from "../root.ts";

/** Refuses a query that is empty, spans lines, or exceeds the byte cap, naming it. */
export function checkQuery(root: Root, query: string): void {
  if (query === "") throw refuseArgument("query must not be empty", query);
  if (/[\r\n]/.test(query)) throw refuseArgument("query must be one line", query);
  const max = root.limits.maxQueryBytes;
  if (utf8Length(query) > max) throw refuseArgument(`query is longer than ${max} bytes`, query);
}
