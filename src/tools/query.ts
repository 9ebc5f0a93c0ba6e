import { utf8Length } from "../bytes.ts";
import { ToolError } from "../errors.ts";
import type { Root } from "../root.ts";

/** Refuses a query that is empty, spans lines, or exceeds the byte cap. */
export function checkQuery(root: Root, query: string): void {
  if (query === "") throw new ToolError("query must not be empty");
  if (/[\r\n]/.test(query)) throw new ToolError("query must be one line");
  const max = root.limits.maxQueryBytes;
  if (utf8Length(query) > max) throw new ToolError(`query is longer than ${max} bytes`);
}
