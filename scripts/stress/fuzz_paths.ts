/**
 * Campaign `paths`: `normalizeRelative` against an independent reference of
 * the path contract (in process, many runs), then a sample of the same
 * strings sent to the real server, whose answer must agree: the path-rule
 * refusal exactly when the contract rejects, and never a byte from outside.
 *
 * @module
 */
import fc from "fast-check";
import { Buffer } from "node:buffer";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, posix } from "node:path";
import { normalizeRelative } from "../../src/paths.ts";
import { DEFAULT_LIMITS } from "../../src/limits.ts";
import { type Message, Peer } from "./peer.ts";
import { type Campaign, type CampaignOptions, Tally, tempDir } from "./util.ts";

const PATH_RULE =
  "path must be relative, with no '.', '..' or empty segments, no backslash, NUL or drive prefix";
const LONG_SEGMENT_RULE = "path has a segment longer than 255 bytes";
const SURROGATE_RULE = "path must be Unicode text, without a lone surrogate";
const SECRET = "OUTSIDE-SECRET-7f3a";

/** The contract, written out independently of `src/paths.ts`. */
export function referenceAccepts(path: string, maxBytes = DEFAULT_LIMITS.maxPathBytes): boolean {
  if (path === "") return true;
  if (Buffer.byteLength(path) > maxBytes) return false;
  if (path.includes("\0") || path.includes("\\")) return false;
  if (hasLoneSurrogate(path)) return false; // no file can be named so: UTF-8 cannot encode it
  if (path[0] === "/") return false;
  if (path.length >= 2 && path[1] === ":" && /[A-Za-z]/.test(path[0])) return false;
  return path.split("/").every((s) => s !== "" && s !== "." && s !== ".." && Buffer.byteLength(s) <= 255);
}

function hasLoneSurrogate(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (!(d >= 0xdc00 && d <= 0xdfff)) return true;
      i++;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

/** Strings that look like paths, hostile ones included. */
export const pathArbitrary: fc.Arbitrary<string> = fc.oneof(
  fc.array(
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc.constantFrom("a", "b.txt", "dir", "é", "😀", "x y", "-", "~", "*", "C:", "c"),
      },
      { weight: 3, arbitrary: fc.constantFrom("", ".", "..", "...", ".a", "a\\b", "a\0", "\0", "\\") },
      { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
      { weight: 1, arbitrary: fc.constantFrom("x".repeat(255), "x".repeat(256), "é".repeat(128)) },
      { weight: 1, arbitrary: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) },
    ),
    { minLength: 0, maxLength: 8 },
  ).map((segments) => segments.join("/")),
  fc.tuple(fc.constantFrom("/", "//", "C:/", "c:", "\\\\?\\", "./", "../"), fc.string({ maxLength: 12 }))
    .map(([a, b]) => a + b),
  fc.string({ unit: "binary", maxLength: 24 }),
  fc.nat({ max: 3 }).map((n) => Array.from({ length: 200 + n * 400 }, (_, i) => `s${i % 10}`).join("/")),
);

async function run(options: CampaignOptions) {
  const tally = new Tally("paths", options);
  const long = options.scale === "long";

  // In process: the implementation equals the reference, and an accepted path stays inside.
  const samples = fc.sample(pathArbitrary, { seed: options.seed, numRuns: long ? 20_000 : 2_000 });
  for (const path of samples) {
    tally.iterations++;
    const got = normalizeRelative(path);
    const want = referenceAccepts(path);
    if (!tally.check((got !== null) === want, () => `normalizeRelative(${JSON.stringify(path)}) = ${got}`)) {
      continue;
    }
    if (got === null) continue;
    tally.check(got === path, () => `an accepted path did not round-trip: ${JSON.stringify(path)}`);
    const joined = posix.join("/root", got);
    tally.check(
      joined === "/root" || joined.startsWith("/root/"),
      () => `an accepted path escapes: ${JSON.stringify(path)}`,
    );
  }

  // Over the wire: the server agrees with the contract and never reads outside.
  const base = tempDir("paths");
  try {
    const root = join(base.path, "root");
    mkdirSync(join(root, "d"), { recursive: true });
    writeFileSync(join(root, "a.txt"), "inside-a");
    writeFileSync(join(root, "d", "b.txt"), "inside-b");
    writeFileSync(join(base.path, "secret.txt"), SECRET);
    const peer = new Peer(options.target, root, ["--include", "**"], [base.path]);
    try {
      const wire = fc.sample(pathArbitrary, { seed: options.seed + 1, numRuns: long ? 1_500 : 150 });
      wire.push("../secret.txt", "d/../../secret.txt", "/" + join(base.path, "secret.txt"), "a.txt");
      for (const path of wire) {
        tally.iterations++;
        const tool = tally.iterations % 2 === 0 ? "read_text_file" : "list_directory";
        const reply: Message = await peer.call(tool, { path }).catch((e) => ({
          error: { message: String(e) },
        }));
        const text = JSON.stringify(reply);
        if (
          !tally.check(!text.includes(SECRET), () => `outside bytes returned for ${JSON.stringify(path)}`)
        ) {
          continue;
        }
        if (reply.error) {
          tally.fail(`${tool}(${JSON.stringify(path)}): ${reply.error.message}`);
          continue;
        }
        // The refusal names the path after the rule it broke, quoted (see `src/quote.ts`).
        const refusal = reply.result?.isError === true ? String(reply.result.content?.[0]?.text) : "";
        const rules = [
          PATH_RULE,
          "path is longer than 4096 bytes (maxPathBytes)",
          LONG_SEGMENT_RULE,
          SURROGATE_RULE,
        ];
        // A lone surrogate is named as the reason, whatever else the path breaks.
        const expected = hasLoneSurrogate(path) ? [SURROGATE_RULE] : rules;
        const refused = expected.some((rule) => refusal.startsWith(`${rule}: "`)) && !/[\n\r]/.test(refusal);
        const accepted = normalizeRelative(path) !== null;
        tally.check(
          refused === !accepted,
          () => `${tool}(${JSON.stringify(path)}): accepted=${accepted} but got ${text.slice(0, 200)}`,
        );
      }
      await tally.checkCleanExit(peer);
    } finally {
      await peer.kill();
      tally.absorb(peer);
    }
  } finally {
    base.remove();
  }
  return tally.result();
}

/** The `paths` campaign. */
export const pathsCampaign: Campaign = { name: "paths", run };
