/**
 * Campaign `arguments`: tool calls whose arguments are random JSON per
 * field, with extra keys, huge strings and deep nesting. Every call must be
 * answered in time — a known tool with an object of arguments by a result
 * (an `isError` one for bad arguments, never a JSON-RPC error), an unknown
 * tool by `-32602` — the server must keep answering, and nothing outside
 * the root may change.
 *
 * @module
 */
import fc from "fast-check";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { META, Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, Tally, tempDir } from "./util.ts";

const TOOLS: Record<string, { fields: string[]; valid: Record<string, unknown>; keys: string[] }> = {
  list_directory: {
    fields: ["path", "cursor", "limit"],
    valid: { path: "d" },
    keys: ["items", "next_cursor", "content_hash"],
  },
  search_files: {
    fields: ["query", "cursor", "limit"],
    valid: { query: "a" },
    keys: ["items", "next_cursor", "content_hash"],
  },
  search_text: {
    fields: ["query", "path", "cursor", "limit"],
    valid: { query: "needle" },
    keys: ["items", "next_cursor", "content_hash"],
  },
  read_text_file: {
    fields: ["path", "cursor", "limit"],
    valid: { path: "a.txt" },
    keys: ["items", "next_cursor", "content_hash"],
  },
  write_text_file: {
    fields: ["path", "content"],
    valid: { path: "w.txt", content: "hello" },
    keys: ["path", "bytes", "content_hash"],
  },
};

/** A JSON value as raw text, so nesting deeper than `JSON.stringify` allows can be sent. */
const rawValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 3, arbitrary: fc.string({ unit: "binary", maxLength: 40 }).map((v) => JSON.stringify(v)) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "",
      "..",
      "/etc/passwd",
      "\0",
      "a\nb",
      "C:\\x",
      "*",
      "d/",
      "a.txt/",
      "d/../a.txt",
    )
      .map((v) => JSON.stringify(v)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom("0", "-1", "1.5", "1e308", "-0", "9007199254740993", "1e-300", "true", "null"),
  },
  { weight: 1, arbitrary: fc.constantFrom(300_000, 1 << 20).map((n) => JSON.stringify("x".repeat(n))) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: 100, max: 20_000 }), fc.boolean()).map(([depth, array]) =>
      array ? "[".repeat(depth) + "]".repeat(depth) : '{"a":'.repeat(depth) + "1" + "}".repeat(depth)
    ),
  },
);

const callArbitrary = fc.record({
  tool: fc.oneof(
    { weight: 10, arbitrary: fc.constantFrom(...Object.keys(TOOLS)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom("no_such_tool", "", "list_directory ", "LIST_DIRECTORY", "__proto__"),
    },
  ),
  replace: fc.array(fc.tuple(fc.nat({ max: 3 }), rawValue), { maxLength: 3 }),
  drop: fc.array(fc.nat({ max: 3 }), { maxLength: 2 }),
  extra: fc.array(
    fc.tuple(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "_meta")),
      rawValue,
    ),
    { maxLength: 2 },
  ),
  shape: fc.oneof(
    { weight: 12, arbitrary: fc.constant("object" as const) },
    { weight: 1, arbitrary: fc.constant("missing" as const) },
    { weight: 1, arbitrary: rawValue },
  ),
});

function specOf(tool: string) {
  return Object.hasOwn(TOOLS, tool) ? TOOLS[tool] : undefined;
}

type Call = typeof callArbitrary extends fc.Arbitrary<infer T> ? T : never;

/** The raw JSON text of the `arguments` a call sends, and whether it is an object. */
function argumentsOf(call: Call): { raw: string | null; object: boolean } {
  if (call.shape === "missing") return { raw: null, object: true }; // read as {}
  if (call.shape !== "object") return { raw: call.shape, object: call.shape.trimStart().startsWith("{") };
  const spec = specOf(call.tool);
  const fields = new Map<string, string>();
  for (const [k, v] of Object.entries(spec?.valid ?? {})) fields.set(k, JSON.stringify(v));
  for (const i of call.drop) if (spec) fields.delete(spec.fields[i % spec.fields.length]);
  for (const [i, v] of call.replace) if (spec) fields.set(spec.fields[i % spec.fields.length], v);
  for (const [k, v] of call.extra) fields.set(k, v);
  const members = [...fields].map(([k, v]) => `${JSON.stringify(k)}:${v}`);
  return { raw: `{${members.join(",")}}`, object: true };
}

async function run(options: CampaignOptions) {
  const tally = new Tally("arguments", options);
  const long = options.scale === "long";
  const base = tempDir("arguments");
  try {
    const root = join(base.path, "root");
    mkdirSync(join(root, "d"), { recursive: true });
    writeFileSync(join(root, "a.txt"), "needle a\n");
    writeFileSync(join(root, "d", "b.txt"), "needle b\n");
    writeFileSync(join(base.path, "outside.txt"), "outside");
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    try {
      const calls = fc.sample(callArbitrary, { seed: options.seed, numRuns: long ? 3_000 : 250 });
      for (const call of calls) {
        tally.iterations++;
        const { raw, object } = argumentsOf(call);
        const id = peer.nextId();
        const params = `{"name":${JSON.stringify(call.tool)},${raw === null ? "" : `"arguments":${raw},`}` +
          `"_meta":${JSON.stringify(META)}}`;
        const line = `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":${params}}`;
        const label = () => `${call.tool}(${(raw ?? "<none>").slice(0, 120)})`;
        let reply;
        try {
          reply = await peer.sendLine(line, id, 60_000);
        } catch (error) {
          tally.fail(`${label()}: ${String(error)}`);
          if (!peer.alive) break;
          continue;
        }
        const spec = specOf(call.tool);
        if (!spec) {
          tally.check(
            reply.error?.code === -32602,
            () => `${label()}: unknown tool got ${JSON.stringify(reply)}`,
          );
          continue;
        }
        if (!object) {
          tally.check(
            reply.error?.code === -32602 || reply.result?.isError === true,
            () => `${label()}: got ${JSON.stringify(reply).slice(0, 300)}`,
          );
          continue;
        }
        if (
          !tally.check(
            reply.result !== undefined,
            () => `${label()}: JSON-RPC error ${JSON.stringify(reply.error)}`,
          )
        ) {
          continue;
        }
        if (reply.result.isError === true) {
          const text = String(reply.result.content?.[0]?.text);
          tally.check(
            !text.includes("\n") && text.length <= 8_192, // one line; it may echo a 4 KiB path
            () => `${label()}: error text ${text.slice(0, 300)}`,
          );
        } else {
          const keys = Object.keys(reply.result.structuredContent ?? {}).sort();
          tally.check(
            JSON.stringify(keys) === JSON.stringify([...spec.keys].sort()),
            () => `${label()}: result keys ${keys}`,
          );
        }
        if (tally.iterations % 100 === 0) {
          tally.check(await peer.answers(), () => "the server stopped answering");
        }
      }
      await tally.checkCleanExit(peer);
    } finally {
      await peer.kill();
      tally.absorb(peer);
    }
    tally.check(
      JSON.stringify(readdirSync(base.path).sort()) === '["outside.txt","root"]' &&
        readFileSync(join(base.path, "outside.txt"), "utf8") === "outside",
      () => `something changed outside the root: ${readdirSync(base.path)}`,
    );
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `arguments` campaign. */
export const argumentsCampaign: Campaign = { name: "arguments", run };
