/**
 * A checker of the bounded JSON Schema profile that hosts such as PtcRunner
 * compile tool schemas with (SPEC section 2, "Tool schemas every host can
 * compile"). Written from the SPEC's rules, which are stricter than the host
 * itself: no type lists at all, `additionalProperties` only as a boolean, and
 * only the SPEC's keywords.
 *
 * Depth counts as the host counts it: the root is depth 1, and each descent
 * through `properties` or `items` adds 1.
 *
 * @module
 */

/** One way a schema leaves the profile: the rule (named as the host names it) and where. */
export interface ProfileViolation {
  readonly rule:
    | "not_a_schema_object"
    | "unsupported_keyword"
    | "type_missing"
    | "unsupported_type"
    | "unsupported_format"
    | "keyword_not_applicable"
    | "invalid_keyword_value"
    | "bounds_inverted"
    | "required_property_undeclared"
    | "root_not_object"
    | "unsupported_dialect"
    | "depth_exceeded"
    | "too_many_properties"
    | "too_many_enum_members"
    | "schema_too_large";
  /** A JSON Pointer into the checked schema (`""` is the root). */
  readonly at: string;
}

/** The keywords a node may carry. `default` and `x-*` keys are ignored; a root `$schema` is checked apart. */
const KEYWORDS = new Set([
  "type",
  "title",
  "description",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "minimum",
  "maximum",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "format",
]);
const TYPES = new Set(["null", "boolean", "object", "array", "number", "integer", "string"]);
const DIALECTS = new Set([
  "https://json-schema.org/draft/2020-12/schema",
  "http://json-schema.org/draft-07/schema#",
]);
/** Keywords that only an object, an array or a string may carry. */
const ONLY_ON: Record<string, string> = {
  properties: "object",
  required: "object",
  additionalProperties: "object",
  items: "array",
  format: "string",
};
const BOUND_PAIRS = [["minimum", "maximum"], ["minLength", "maxLength"], ["minItems", "maxItems"]] as const;

/** The profile's limits. */
export const PROFILE_LIMITS = Object.freeze({
  maxDepth: 16,
  maxProperties: 128,
  maxEnumMembers: 256,
  maxSchemaBytes: 65_536,
});

/**
 * Every way `schema` leaves the profile; an empty list when a host can
 * compile it.
 */
export function checkSchemaProfile(schema: unknown): ProfileViolation[] {
  const found: ProfileViolation[] = [];
  if (!isObject(schema)) return [{ rule: "not_a_schema_object", at: "" }];
  const bytes = new TextEncoder().encode(JSON.stringify(schema)).length;
  if (bytes > PROFILE_LIMITS.maxSchemaBytes) found.push({ rule: "schema_too_large", at: "" });
  const { $schema, ...rest } = schema;
  if ("$schema" in schema && !DIALECTS.has($schema as string)) {
    found.push({ rule: "unsupported_dialect", at: "/$schema" });
  }
  if (rest.type !== "object") found.push({ rule: "root_not_object", at: "" });
  checkNode(rest, "", 1, found);
  return found;
}

function checkNode(node: unknown, at: string, depth: number, found: ProfileViolation[]): void {
  const fail = (rule: ProfileViolation["rule"], where = at) => found.push({ rule, at: where });
  if (depth > PROFILE_LIMITS.maxDepth) return void fail("depth_exceeded");
  if (!isObject(node)) return void fail("not_a_schema_object");
  const key = (name: string) => pointer(at, name);

  for (const name of Object.keys(node)) {
    if (KEYWORDS.has(name) || name === "default" || name.startsWith("x-")) continue;
    fail("unsupported_keyword", key(name));
  }
  const type = node.type;
  if (!("type" in node)) fail("type_missing");
  else if (typeof type !== "string" || !TYPES.has(type)) fail("unsupported_type", key("type"));
  for (const [name, only] of Object.entries(ONLY_ON)) {
    if (name in node && typeof type === "string" && type !== only) fail("keyword_not_applicable", key(name));
  }
  for (const name of ["title", "description"]) {
    if (name in node && typeof node[name] !== "string") fail("invalid_keyword_value", key(name));
  }
  for (const [low, high] of BOUND_PAIRS) {
    const valid = low === "minimum" ? isNumber : isCount;
    for (const name of [low, high]) {
      if (name in node && !valid(node[name])) fail("invalid_keyword_value", key(name));
    }
    if (valid(node[low]) && valid(node[high]) && node[low] > node[high]) fail("bounds_inverted", key(low));
  }
  if ("format" in node && node.format !== "sha256") fail("unsupported_format", key("format"));
  if ("enum" in node) checkEnum(node.enum, key("enum"), found);

  const properties = node.properties;
  if ("properties" in node) {
    if (!isObject(properties)) fail("invalid_keyword_value", key("properties"));
    else {
      if (Object.keys(properties).length > PROFILE_LIMITS.maxProperties) {
        fail("too_many_properties", key("properties"));
      }
      for (const [name, child] of Object.entries(properties)) {
        checkNode(child, pointer(key("properties"), name), depth + 1, found);
      }
    }
  }
  if ("required" in node) {
    checkRequired(node.required, isObject(properties) ? properties : {}, key("required"), found);
  }
  if ("additionalProperties" in node && typeof node.additionalProperties !== "boolean") {
    fail("invalid_keyword_value", key("additionalProperties"));
  }
  if ("items" in node) checkNode(node.items, key("items"), depth + 1, found);
}

function checkEnum(members: unknown, at: string, found: ProfileViolation[]): void {
  if (!Array.isArray(members) || members.length === 0) {
    return void found.push({ rule: "invalid_keyword_value", at });
  }
  if (members.length > PROFILE_LIMITS.maxEnumMembers) found.push({ rule: "too_many_enum_members", at });
  const encoded = members.map((m) => JSON.stringify(canonical(m)));
  if (new Set(encoded).size !== encoded.length) found.push({ rule: "invalid_keyword_value", at });
}

function checkRequired(
  required: unknown,
  properties: Record<string, unknown>,
  at: string,
  found: ProfileViolation[],
): void {
  const names = Array.isArray(required) ? required : [];
  const unique = new Set(names);
  if (
    !Array.isArray(required) || names.length > PROFILE_LIMITS.maxProperties ||
    !names.every((n) => typeof n === "string") || unique.size !== names.length
  ) {
    return void found.push({ rule: "invalid_keyword_value", at });
  }
  if (!names.every((n) => Object.hasOwn(properties, n))) {
    found.push({ rule: "required_property_undeclared", at });
  }
}

/** `base` extended by one JSON Pointer token. */
function pointer(base: string, name: string): string {
  return `${base}/${name.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** A value with its object keys sorted, so equal enum members encode equally. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical(value[k])]));
}

// deno-lint-ignore no-explicit-any
function isObject(value: unknown): value is Record<string, any> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isNumber(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

function isCount(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 0;
}
