/**
 * Validates responses against the published MCP 2026-07-28 JSON schema
 * (`tests/fixtures/mcp-2026-07-28/schema.json`, a copy; see the README
 * there for its source and license) with ajv in 2020-12 mode.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { REPO, type Response } from "./_harness.ts";

/** The definitions the end-to-end tests check responses against. */
export type ResponseKind =
  | "DiscoverResultResponse"
  | "ListToolsResultResponse"
  | "CallToolResultResponse"
  | "JSONRPCErrorResponse";

// deno-lint-ignore no-explicit-any
const schema: any = JSON.parse(
  readFileSync(join(REPO, "tests", "fixtures", "mcp-2026-07-28", "schema.json"), "utf8"),
);
// The published `JSONValue` omits numbers and `null`, so a structuredContent with
// `line: 3` or `next_cursor: null` would fail. Patch the loaded copy to the JSON
// value space the protocol actually carries.
if (schema.$defs?.JSONValue) {
  schema.$defs.JSONValue = {
    anyOf: [
      { type: "string" },
      { type: "number" },
      { type: "boolean" },
      { type: "null" },
      { type: "array", items: { $ref: "#/$defs/JSONValue" } },
      { type: "object", additionalProperties: { $ref: "#/$defs/JSONValue" } },
    ],
  };
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
ajv.addSchema(schema, "mcp");

/** Throws unless `response` is valid as the named schema definition. */
export function assertValid(kind: ResponseKind, response: Response): void {
  const validate = ajv.getSchema(`mcp#/$defs/${kind}`);
  if (!validate) throw new Error(`schema has no definition ${kind}`);
  if (!validate(response)) {
    throw new Error(
      `${kind} invalid: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(response).slice(0, 500)}`,
    );
  }
}
