/**
 * The traversals the scenarios time, each with its baseline command and its
 * correctness check: `search_text` against `grep -rFn`, `search_files` and
 * listing every directory against `find`, and reading a file against its
 * sha256. A traversal's `run` times only its calls, then checks every item,
 * so a fast wrong answer fails the run. Warm, cold and growth scenarios
 * share them, and every scenario pages with the suite's one `traverse`.
 *
 * @module
 */
import { type Caller, traverse } from "../../tests/_client.ts";
import { sha256 } from "../../tests/_sha256.ts";
import { byString, type Context } from "./context.ts";
import { NEEDLE, TREE_QUERY } from "./corpus.ts";
import { timeShell } from "./rpc.ts";

export { traverse } from "../../tests/_client.ts";

/** An item of a page, as parsed from the wire. */
// deno-lint-ignore no-explicit-any
export type Item = any;

/** A checked traversal of one corpus. */
export interface Traversal {
  root: string;
  /** The shell command whose time is the baseline, run in `root`. */
  baseline: string;
  /** The baseline as the table shows it. */
  baselineText: string;
  /** How many results a complete traversal has (for the notes). */
  expected: number;
  /** Traverses on a started server; returns the calls' wall time and count; throws when a result is wrong. */
  run(client: Caller, pages?: Item[]): Promise<{ ms: number; calls: number }>;
}

/** Times `traverse` (only), then checks its items. */
async function timedTraverse(
  client: Caller,
  tool: string,
  args: Record<string, unknown>,
  pages?: Item[],
): Promise<{ ms: number; calls: number; items: Item[] }> {
  const t0 = performance.now();
  const result = await traverse(client, tool, args);
  const ms = performance.now() - t0;
  pages?.push(...result.pages);
  return { ms, calls: result.pages.length, items: result.items };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A line as `search_text` reports it: cut to 1,024 UTF-8 bytes on a character boundary. */
function cutLine(text: string): string {
  const bytes = encoder.encode(text);
  if (bytes.length <= 1024) return text;
  let end = 1024;
  while ((bytes[end] & 0xc0) === 0x80) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** `search_text` for the rare needle over `root`, checked against `grep -rFn`. */
export async function searchText(ctx: Context, root: string): Promise<Traversal> {
  const { stdout } = await timeShell(`grep -rFn ${NEEDLE} .`, root);
  const want = stdout.split("\n").filter((l) => l !== "").map((l) => {
    const m = l.match(/^\.\/([^:]*):(\d+):(.*)$/s)!;
    return [m[1], Number(m[2]), cutLine(m[3])] as const;
  }).sort((x, y) => byString(x[0], y[0]) || x[1] - y[1]).map(([p, n, t]) => `${p}\t${n}\t${t}`);
  ctx.check(want.length > 0, "the needle occurs in the corpus");
  return {
    root,
    baseline: `grep -rFn ${NEEDLE} . | wc -l`,
    baselineText: "`grep -rFn NEEDLE . \\| wc -l`",
    expected: want.length,
    async run(client) {
      const r = await timedTraverse(client, "search_text", { query: NEEDLE });
      ctx.sameList(
        r.items.map((i) => `${i.path}\t${i.line}\t${i.text}`),
        want,
        "search_text matches equal grep -rFn's",
      );
      return r;
    },
  };
}

async function find(root: string, type: "f" | "d"): Promise<string[]> {
  const { stdout } = await timeShell(`find . -mindepth 1 -type ${type}`, root);
  return stdout.split("\n").filter((l) => l !== "").map((l) => l.slice(2)).sort(byString);
}

/** `search_files` for the tree query over `root`, checked against `find`. */
export async function searchFiles(ctx: Context, root: string): Promise<Traversal & { files: number }> {
  const files = await find(root, "f");
  const want = files.filter((p) => p.includes(TREE_QUERY));
  return {
    root,
    baseline: `find . -type f | grep -cF -e '${TREE_QUERY}'`,
    baselineText: "`find . -type f \\| grep -c QUERY`",
    expected: want.length,
    files: files.length,
    async run(client) {
      const r = await timedTraverse(client, "search_files", { query: TREE_QUERY });
      ctx.sameList(r.items.map((i) => i.path), want, "search_files matches equal find | grep's");
      return r;
    },
  };
}

/** `list_directory` of every directory of `root`, breadth first, checked against `find`. */
export async function listAll(ctx: Context, root: string): Promise<Traversal> {
  const wantFiles = await find(root, "f");
  const wantDirs = await find(root, "d");
  return {
    root,
    baseline: "find . -type f | wc -l",
    baselineText: "`find . -type f \\| wc -l`",
    expected: wantDirs.length + 1,
    async run(client) {
      const files: string[] = [];
      const dirs: string[] = [];
      const queue = [""];
      let calls = 0;
      const t0 = performance.now();
      while (queue.length > 0) {
        const dir = queue.shift()!;
        const result = await traverse(client, "list_directory", dir === "" ? {} : { path: dir });
        calls += result.pages.length;
        for (const item of result.items) {
          if (item.kind === "directory") {
            dirs.push(item.path);
            queue.push(item.path);
          } else files.push(item.path);
        }
      }
      const ms = performance.now() - t0;
      ctx.sameList(files.sort(byString), wantFiles, "list_directory files equal find -type f");
      ctx.sameList(dirs.sort(byString), wantDirs, "list_directory directories equal find -type d");
      return { ms, calls };
    },
  };
}

/** `read_text_file` of `root/name` from the first page to the last, checked by offsets and sha256. */
export async function readFile(ctx: Context, root: string, name: string): Promise<Traversal> {
  const bytes = await Deno.readFile(`${root}/${name}`);
  const want = sha256(bytes);
  return {
    root,
    baseline: `cat ${name} > /dev/null`,
    baselineText: "`cat FILE > /dev/null`",
    expected: bytes.length,
    async run(client, pages) {
      const r = await timedTraverse(client, "read_text_file", { path: name }, pages);
      let offset = 0;
      for (const item of r.items) {
        ctx.check(item.byte_offset === offset, `byte_offset ${item.byte_offset} follows ${offset}`);
        offset += encoder.encode(item.text).length;
      }
      ctx.check(offset === bytes.length, `read ${offset} bytes of ${bytes.length}`);
      ctx.check(
        sha256(...r.items.map((i: { text: string }) => i.text)) === want,
        "sha256 of the reconstructed file equals the file's",
      );
      return r;
    },
  };
}

/** Times the traversal's baseline command once. */
export async function baseline(traversal: Traversal): Promise<number> {
  return (await timeShell(traversal.baseline, traversal.root)).ms;
}
