import { test } from "node:test";
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import { RUNTIME, structured, withServer } from "./_harness.ts";
import { checkSchemaProfile, PROFILE_LIMITS, type ProfileViolation } from "./_schema_profile.ts";

const READ_TOOLS = ["list_directory", "search_files", "search_text", "read_text_file"];

// deno-lint-ignore no-explicit-any
type Schema = Record<string, any>;
// deno-lint-ignore no-explicit-any
type ListedTool = { name: string; inputSchema: Schema; outputSchema: Schema; [k: string]: any };

test(`${RUNTIME}: every schema tools/list advertises is inside the host's schema profile`, async () => {
  await withServer({}, ["--include", "**"], async (server) => {
    const tools: ListedTool[] = (await server.request("tools/list")).result.tools;
    assert.equal(tools.length, 5);
    const outside: Record<string, ProfileViolation[]> = {};
    for (const tool of tools) {
      for (const which of ["inputSchema", "outputSchema"] as const) {
        const found = checkSchemaProfile(tool[which]);
        if (found.length > 0) outside[`${tool.name} ${which}`] = found;
      }
    }
    assert.deepEqual(outside, {}, "schemas a host with the bounded profile refuses");
    for (const tool of tools.filter((t) => READ_TOOLS.includes(t.name))) {
      const limit = tool.inputSchema.properties.limit;
      assert.equal(limit.type, "integer", tool.name);
      assert.equal(limit.minimum, 1, tool.name);
      const out = tool.outputSchema;
      assert.equal(out.additionalProperties, true, tool.name);
      assert.equal("next_cursor" in out.properties, false, tool.name);
      assert.deepEqual(out.required, ["items", "content_hash"], tool.name);
      assert.match(
        out.description,
        /`next_cursor`, a string to pass back as `cursor`.*or null when/,
        tool.name,
      );
    }
  });
});

test(`${RUNTIME}: every result validates against the outputSchema tools/list advertises`, async () => {
  const files = { "a.txt": "one needle\ntwo needle\n", "b/c.txt": "needle three\n" };
  await withServer(files, ["--include", "**"], async (server) => {
    const tools: ListedTool[] = (await server.request("tools/list")).result.tools;
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const calls: [string, Record<string, unknown>][] = [
      ["list_directory", {}],
      ["list_directory", { limit: 1 }],
      ["search_files", { query: "txt" }],
      ["search_files", { query: "txt", limit: 1 }],
      ["search_text", { query: "needle" }],
      ["search_text", { query: "needle", limit: 1 }],
      ["read_text_file", { path: "a.txt" }],
      ["write_text_file", { path: "new.txt", content: "written\n" }],
    ];
    const cursors = new Set<string>();
    for (const [name, args] of calls) {
      const tool = tools.find((t) => t.name === name)!;
      const validate = ajv.compile(tool.outputSchema);
      const result = structured(await server.call(name, args));
      if (READ_TOOLS.includes(name)) {
        assert.ok(typeof result.next_cursor === "string" || result.next_cursor === null, name);
        cursors.add(result.next_cursor === null ? "null" : "string");
      }
      assert.ok(validate(result), `${name} ${JSON.stringify(args)}: ${ajv.errorsText(validate.errors)}`);
    }
    assert.deepEqual([...cursors].sort(), ["null", "string"], "both kinds of next_cursor were checked");
  });
});

/** A schema inside the profile, touching every keyword it allows. */
function valid(): Schema {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    title: "t",
    description: "d",
    properties: {
      name: { type: "string", minLength: 1, maxLength: 10, default: "x", "x-note": { anything: [1] } },
      count: { type: "integer", minimum: 1, maximum: 9 },
      ratio: { type: "number", minimum: 0.5, maximum: 0.5 },
      hash: { type: "string", format: "sha256" },
      kind: { type: "string", enum: ["a", "b"] },
      fixed: { type: "boolean", const: true },
      none: { type: "null" },
      list: {
        type: "array",
        minItems: 0,
        maxItems: 3,
        items: { type: "object", additionalProperties: true },
      },
    },
    required: ["name", "kind"],
    additionalProperties: false,
  };
}

/** `valid()` changed by `change`; returns the rules the checker reports, with their places. */
function violations(change: (schema: Schema) => void): ProfileViolation[] {
  const schema = valid();
  change(schema);
  return checkSchemaProfile(schema);
}

/** A root object whose deepest node sits at `depth` (the root is depth 1). */
function nested(depth: number): Schema {
  let node: Schema = { type: "string" };
  for (let d = depth - 1; d >= 1; d--) {
    node = d % 2 ? { type: "object", properties: { p: node } } : { type: "array", items: node };
  }
  return node; // depth 1 is odd: the root is an object
}

test("the profile checker accepts a schema that uses every allowed keyword", () => {
  assert.deepEqual(checkSchemaProfile(valid()), []);
  assert.deepEqual(
    checkSchemaProfile({ ...valid(), $schema: "http://json-schema.org/draft-07/schema#" }),
    [],
  );
  const { $schema: _, ...bare } = valid();
  assert.deepEqual(checkSchemaProfile(bare), []);
});

test("the profile checker refuses each rule of the profile", () => {
  const cases: [string, ProfileViolation, (s: Schema) => void][] = [
    [
      "exclusiveMinimum",
      { rule: "unsupported_keyword", at: "/properties/count/exclusiveMinimum" },
      (s) => (s.properties.count.exclusiveMinimum = 0),
    ],
    [
      "a type list",
      { rule: "unsupported_type", at: "/properties/name/type" },
      (s) => (s.properties.name.type = ["string", "null"]),
    ],
    [
      "an unknown type",
      { rule: "unsupported_type", at: "/properties/name/type" },
      (s) => (s.properties.name.type = "text"),
    ],
    [
      "anyOf",
      { rule: "unsupported_keyword", at: "/properties/none/anyOf" },
      (s) => (s.properties.none.anyOf = [{ type: "string" }, { type: "null" }]),
    ],
    ["oneOf", { rule: "unsupported_keyword", at: "/oneOf" }, (s) => (s.oneOf = [{ type: "object" }])],
    [
      "$ref",
      { rule: "unsupported_keyword", at: "/properties/list/$ref" },
      (s) => (s.properties.list.$ref = "#"),
    ],
    [
      "pattern",
      { rule: "unsupported_keyword", at: "/properties/name/pattern" },
      (s) => (s.properties.name.pattern = "a"),
    ],
    [
      "a missing type",
      { rule: "type_missing", at: "/properties/kind" },
      (s) => delete s.properties.kind.type,
    ],
    ["a missing root type", { rule: "root_not_object", at: "" }, (s) => delete s.type],
    ["a format other than sha256", { rule: "unsupported_format", at: "/properties/hash/format" }, (s) => {
      s.properties.hash.format = "date-time";
    }],
    ["a format on a number", { rule: "keyword_not_applicable", at: "/properties/count/format" }, (s) => {
      s.properties.count.format = "sha256";
    }],
    [
      "a schema as additionalProperties",
      { rule: "invalid_keyword_value", at: "/properties/list/items/additionalProperties" },
      (s) => (s.properties.list.items.additionalProperties = {}),
    ],
    [
      "additionalProperties on a string",
      { rule: "keyword_not_applicable", at: "/properties/name/additionalProperties" },
      (s) => (s.properties.name.additionalProperties = false),
    ],
    [
      "required naming an undeclared property",
      { rule: "required_property_undeclared", at: "/required" },
      (s) => {
        s.required.push("next_cursor");
      },
    ],
    ["required twice", { rule: "invalid_keyword_value", at: "/required" }, (s) => s.required.push("name")],
    [
      "items on an object",
      { rule: "keyword_not_applicable", at: "/items" },
      (s) => (s.items = { type: "string" }),
    ],
    [
      "properties on an array",
      { rule: "keyword_not_applicable", at: "/properties/list/properties" },
      (s) => (s.properties.list.properties = {}),
    ],
    ["inverted minimum/maximum", { rule: "bounds_inverted", at: "/properties/count/minimum" }, (s) => {
      s.properties.count.minimum = 10;
    }],
    ["inverted minLength/maxLength", { rule: "bounds_inverted", at: "/properties/name/minLength" }, (s) => {
      s.properties.name.maxLength = 0;
    }],
    ["inverted minItems/maxItems", { rule: "bounds_inverted", at: "/properties/list/minItems" }, (s) => {
      s.properties.list.minItems = 4;
    }],
    ["a negative maxItems", { rule: "invalid_keyword_value", at: "/properties/list/maxItems" }, (s) => {
      s.properties.list.maxItems = -1;
    }],
    ["a fractional minLength", { rule: "invalid_keyword_value", at: "/properties/name/minLength" }, (s) => {
      s.properties.name.minLength = 1.5;
    }],
    ["an empty enum", { rule: "invalid_keyword_value", at: "/properties/kind/enum" }, (s) => {
      s.properties.kind.enum = [];
    }],
    ["a repeated enum member", { rule: "invalid_keyword_value", at: "/properties/kind/enum" }, (s) => {
      s.properties.kind.enum = ["a", "a"];
    }],
    ["257 enum members", { rule: "too_many_enum_members", at: "/properties/kind/enum" }, (s) => {
      s.properties.kind.enum = Array.from({ length: PROFILE_LIMITS.maxEnumMembers + 1 }, (_, i) => `m${i}`);
    }],
    ["129 properties", { rule: "too_many_properties", at: "/properties" }, (s) => {
      for (let i = 0; Object.keys(s.properties).length <= PROFILE_LIMITS.maxProperties; i++) {
        s.properties[`p${i}`] = { type: "string" };
      }
    }],
    [
      "a non-string description",
      { rule: "invalid_keyword_value", at: "/description" },
      (s) => (s.description = 1),
    ],
    ["another dialect", { rule: "unsupported_dialect", at: "/$schema" }, (s) => {
      s.$schema = "http://json-schema.org/draft-04/schema#";
    }],
    ["a nested $schema", { rule: "unsupported_keyword", at: "/properties/name/$schema" }, (s) => {
      s.properties.name.$schema = "https://json-schema.org/draft/2020-12/schema";
    }],
    ["a root that is not an object", { rule: "root_not_object", at: "" }, (s) => {
      s.type = "array";
      delete s.properties;
      delete s.required;
      delete s.additionalProperties;
    }],
    ["a 65 KiB schema", { rule: "schema_too_large", at: "" }, (s) => (s.description = "x".repeat(65 * 1024))],
  ];
  for (const [why, expected, change] of cases) {
    const found = violations(change);
    assert.ok(
      found.some((v) => v.rule === expected.rule && v.at === expected.at),
      `${why}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(found)}`,
    );
  }
});

test("the profile checker allows depth 16 and refuses depth 17", () => {
  assert.deepEqual(checkSchemaProfile(nested(PROFILE_LIMITS.maxDepth)), []);
  const deeper = checkSchemaProfile(nested(PROFILE_LIMITS.maxDepth + 1));
  assert.deepEqual(deeper.map((v) => v.rule), ["depth_exceeded"]);
});

test("the profile checker allows a schema of exactly 64 KiB and refuses one byte more", () => {
  const sized = (bytes: number): Schema => {
    const schema = { type: "object", description: "" };
    schema.description = "x".repeat(bytes - JSON.stringify(schema).length);
    return schema;
  };
  assert.deepEqual(checkSchemaProfile(sized(PROFILE_LIMITS.maxSchemaBytes)), []);
  assert.deepEqual(checkSchemaProfile(sized(PROFILE_LIMITS.maxSchemaBytes + 1)), [{
    rule: "schema_too_large",
    at: "",
  }]);
});
