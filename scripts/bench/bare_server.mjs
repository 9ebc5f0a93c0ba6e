/**
 * The floors the benchmark measures the server against, one mode each:
 *
 * - `noop`: `bare_noop.mjs`, an SDK `McpServer` with one tool, `noop`, that
 *   has an input schema and answers "ok" (the small-read baseline);
 * - `mcp PAGES`: an SDK `McpServer` whose `read_text_file`, with input and
 *   output schemas, replays from memory the pages recorded in the JSON-lines
 *   file PAGES;
 * - `server PAGES`: the same replay from the SDK's low-level `Server` with one
 *   `tools/call` handler (no schemas, no tool registry);
 * - `raw PAGES`: the same replay with no SDK at all: JSON-RPC lines in, lines out;
 * - `calls CALLS`: an SDK `McpServer` with `list_directory`,
 *   `search_files`, `search_text` and `read_text_file`, input and output
 *   schemas shaped like the real ones, answering each call with the page the
 *   real server gave for the same tool and arguments (CALLS: JSON lines
 *   `{tool, args, page}`), the floor of the cold traversals and of the small
 *   reads;
 * - `syscalls CALLS ROOT`: the same, each call first making under ROOT the
 *   filesystem operations the server made for it (CALLS lines also carry
 *   `ops`, recorded by `syscalls.ts` with paths relative to the root) with
 *   the port's own primitives (on Node, each directory and file reached
 *   through descriptors from the root down, as its port does), and discarding
 *   what they return, except that a `search_text` call searches the bytes
 *   each read returns for its query with the port's byte search, yielding
 *   every 10 ms of that work as the server's scan must: the floor of a
 *   server that makes the same system calls (and, searching, the same search
 *   and yields);
 * - `work CALLS ROOT`: `syscalls`, and for a `search_files` or
 *   `list_directory` call also the least work the contract asks of it on
 *   what those calls return, done in plain loops (`LeastWork`): each lstat
 *   compared with the last one of its path; for `search_files`, when a
 *   directory was read or changed, every match collected in path order and
 *   hashed (the state a cursor binds); then the page's items, their hash
 *   and a signed cursor. Its answer is still the recorded page, which it
 *   checks it found: the floor of a server that makes those system calls
 *   and keeps that contract;
 * - `extents INDEX FILE`: an SDK `McpServer` whose `read_text_file` reads each
 *   item's bytes from FILE at the offset and length the real server's item had
 *   (INDEX: JSON lines `{cursor, items: [[offset, length], ...], next_cursor,
 *   content_hash}`), holding no page between calls: the memory floor of a read.
 *
 * Apart from `syscalls` and `extents`, no mode opens a file after start, so what is left is
 * the per-call cost of its layer, the pipe and the client, for the same calls
 * and the same bytes as the real server's. Plain JavaScript, so it runs as it
 * is on Deno (import map) and on Node (copied beside the npm build's
 * `node_modules`); the SDK is imported only by the modes that use it.
 *
 * Usage: bare_server.mjs noop | bare_server.mjs mcp|server|raw PAGES | bare_server.mjs calls CALLS
 *        | bare_server.mjs syscalls|work CALLS ROOT
 *        | bare_server.mjs extents INDEX FILE
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { createHash, createHmac, randomBytes } from "node:crypto";
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
} from "node:fs";
import process from "node:process";
import { setImmediate } from "node:timers";

const [mode, pagesFile, target] = process.argv.slice(2);
const replaying = mode === "calls" || mode === "syscalls" || mode === "work";
const making = mode === "syscalls" || mode === "work"; // the recorded system calls, before each answer
const pages = pagesFile === undefined || mode === "extents"
  ? []
  : readFileSync(pagesFile, "utf8").split("\n").filter((line) => line !== "").map((line) => JSON.parse(line));
// The page that follows each cursor, so a client's traversal is the same as against the real server.
const after = new Map(pages.slice(0, -1).map((page, i) => [page.next_cursor, pages[i + 1]]));
// `calls`, `syscalls`: each recorded call by tool and arguments (keys sorted: the SDK hands a handler its
// parsed copy).
const callKey = (tool, args) =>
  `${tool}\0${JSON.stringify(Object.keys(args).sort().map((key) => [key, args[key]]))}`;
const answers = new Map(replaying ? pages.map((call) => [callKey(call.tool, call.args), call]) : []);

// `extents`: each page's place in the file, by the cursor that asks for it ("" for the first page).
const extents = new Map(
  mode === "extents"
    ? readFileSync(pagesFile, "utf8").split("\n").filter((line) => line !== "").map((line) => {
      const extent = JSON.parse(line);
      return [extent.cursor ?? "", extent];
    })
    : [],
);
const extentFile = mode === "extents" ? openSync(target, "r") : undefined;

/** The page of `extents` after `cursor`: each item's bytes read from the file now and decoded, as recorded. */
function extentPage(cursor) {
  const { items, next_cursor, content_hash } = extents.get(cursor ?? "");
  return {
    items: items.map(([offset, length]) => {
      const bytes = Buffer.allocUnsafe(length);
      readSync(extentFile, bytes, 0, length, offset);
      return { byte_offset: offset, text: bytes.toString("utf8") };
    }),
    next_cursor,
    content_hash,
  };
}

// The primitives of each port: `Deno.*` for the stat and the listing on Deno, `node:fs` for the rest.
const lstat = typeof Deno === "undefined"
  ? (path) => lstatSync(path, { bigint: true })
  : (path) => Deno.lstatSync(path);
// On Node (Linux), the port reaches every directory it reads and every file it opens through descriptors
// from the root's held one down (`/proc/<pid>/fd/<fd>/<name>`, no-follow): the replay makes the same calls.
const OWN = `/proc/${process.pid}/fd/`;
const fromRoot = typeof Deno === "undefined" && (() => {
  try {
    return readdirSync(OWN).length > 0;
  } catch {
    return false;
  }
})();
const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;
let rootFd; // opened at the first call, as the server holds its root from the start
/** Runs `use` on a descriptor of the directory `rel` (`""`: the root), reached as the port reaches it. */
function inDirectory(rel, use) {
  rootFd ??= openSync(target, DIRECTORY);
  let fd = rootFd;
  try {
    for (const name of rel === "" ? [] : rel.split("/")) {
      const below = openSync(`${OWN}${fd}/${name}`, DIRECTORY);
      if (fd !== rootFd) closeSync(fd);
      fd = below;
    }
    return use(fd);
  } finally {
    if (fd !== rootFd) closeSync(fd);
  }
}
const readDir = typeof Deno !== "undefined"
  ? (rel) => [...Deno.readDirSync(under(rel))]
  : !fromRoot
  ? (rel) => readdirSync(under(rel), { withFileTypes: true })
  : (rel) =>
    inDirectory(rel, (fd) => {
      fstatSync(fd, { bigint: true });
      return readdirSync(`${OWN}${fd}`, { withFileTypes: true });
    });
const CONTENT = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const openFile = !fromRoot ? (rel) => openSync(under(rel), CONTENT) : (rel) => {
  const slash = rel.lastIndexOf("/");
  return inDirectory(
    slash < 0 ? "" : rel.slice(0, slash),
    (fd) => openSync(`${OWN}${fd}/${rel.slice(slash + 1)}`, CONTENT),
  );
};
let scratch = Buffer.allocUnsafe(0);

// The port's byte search, for `search_text` calls: `Buffer#indexOf` on Node, and on Deno the server's own
// `wasmSearch` (`src/search/find_bytes.ts`; on Node this file runs from the npm build, without `src/`).
const byteSearch = !making
  ? undefined
  : typeof Deno === "undefined"
  ? (needle) => (bytes) => (from) => bytes.indexOf(needle, from)
  : (await import("../../src/search/find_bytes.ts")).wasmSearch;
let searchRead; // what a read's bytes go through in the call being replayed, if it searches
let matches = 0; // kept, so that no engine may drop the search as unused

// A searching replay yields as the server's scan must (the contract: every ~10 ms of work), in the turns
// the runtime's port names: two immediates on Node; on Deno the server's own `Pacer` turns
// (`src/pacing.ts`): quick ones, and every `PATIENT_PAUSE_EVERY`th the patient one.
const YIELD_EVERY_MS = 10;
const immediate = () => new Promise((resolve) => setImmediate(resolve));
const pacing = byteSearch && typeof Deno !== "undefined" ? await import("../../src/pacing.ts") : undefined;
const inputTurn = pacing === undefined
  ? async () => {
    await immediate();
    await immediate();
  }
  : (() => {
    const [quick, patient] = [pacing.quickTurnFor({}), pacing.inputTurnFor({})];
    return (pause) => (pause % pacing.PATIENT_PAUSE_EVERY === 0 ? patient : quick)();
  })();

/** A recorded path (relative, `""` for the root) under the root given. */
const under = (rel) => rel === "" ? target : `${target}/${rel}`;

/** The recorded operations (`syscalls.ts`), on the call's open descriptors `fds`. */
const OPERATIONS = {
  lstat: (_fds, rel) => lstat(under(rel)),
  readDir: (_fds, rel) => readDir(rel),
  open(fds, rel) {
    const h = fds.push(undefined) - 1; // numbered even if it fails, as the recording numbers it
    lstat(under(rel));
    fds[h] = openFile(rel);
    fstatSync(fds[h], { bigint: true });
  },
  fstat: (fds, h) => fstatSync(fds[h], { bigint: true }),
  read(fds, h, length, position) {
    if (scratch.length < length) scratch = Buffer.allocUnsafe(length);
    const n = readSync(fds[h], scratch, 0, length, position);
    searchRead?.(scratch.subarray(0, n));
  },
  close: (fds, h) => closeSync(fds[h]),
};

/**
 * Makes a call's recorded operations, discarding what each returns or throws (the server met the same); with
 * `query` (a `search_text` call), searching the bytes of each read for it, and yielding as its scan must;
 * with `observe`, handing it each operation's name, first argument and result (`undefined`: it failed).
 */
async function makeOps(ops, query, observe) {
  const needle = query === undefined ? undefined : Buffer.from(query);
  const search = needle && byteSearch(needle);
  searchRead = search && ((bytes) => {
    const find = search(bytes);
    for (let at = find(0); at >= 0; at = find(at + needle.length)) matches++;
  });
  const fds = [];
  let yieldedAt = performance.now();
  let pauses = 0;
  for (const [name, ...args] of ops) {
    const operation = OPERATIONS[name];
    if (operation === undefined) throw new Error(`unknown operation ${name}`);
    let result;
    try {
      result = operation(fds, ...args);
    } catch {
      // the same failure the server met, at the same cost
    }
    observe?.(name, args[0], result);
    if (needle && performance.now() - yieldedAt >= YIELD_EVERY_MS) {
      await inputTurn(++pauses);
      yieldedAt = performance.now();
    }
  }
}

/** An lstat's identity: inode, size, mtime and ctime, as each runtime reports them. */
const identityOf = typeof Deno === "undefined"
  ? (info) => [info.ino, info.size, info.mtimeNs, info.ctimeNs]
  : (info) => [info.ino, info.size, info.mtime?.getTime(), info.ctime?.getTime()];

/**
 * `work`: the least a server must do with what its system calls return, as plain loops, for the calls of the
 * traversals it is the floor of. For every call, each directory's identity compared with the last one seen
 * (a cursor fails when what it binds changed). For `search_files`: the matches in path order (bytewise; the
 * bench's names are ASCII, where the default sort is that) and their digest (the state a cursor binds); of a
 * directory read, only what the matches need is kept, and only during its call; across calls, the matches
 * while no directory changes. For `list_directory` of a directory whose listing it holds (taken from the
 * server's page the first time: a warm server's is cached): its items. Then per page the items'
 * `content_hash` (a held listing's once: the server keeps it too) and, when one follows, a signed cursor.
 * Their encoded cost (a page is fitted to the ceiling) is the length of the JSON the answer carries anyway.
 */
class LeastWork {
  #identities = new Map(); // path -> the identity of its last lstat
  #keys = new Map(); // `search_files`, in the call: path -> its subdirectories (`name/`) and matches, sorted
  #matches = new Map(); // `search_files`: query -> { paths, state }, while no directory changed
  #changed = false; // a directory read or changed since the matches were made
  #listings = new Map(); // `list_directory`: path -> its entries, [name, kind], by name, and its page's hash
  #key = randomBytes(32);

  /** What `makeOps` hands each operation of a call of `tool` with `args` to. */
  observer(tool, args) {
    return (name, rel, result) => {
      if (result === undefined) return;
      if (name === "lstat" && this.#compare(rel, identityOf(result))) this.#changed = true;
      else if (name === "readDir" && tool === "search_files") this.#keep(rel, result, args.query);
    };
  }

  /** The work behind `page`, the answer to a call of `tool` with `args`, after its operations. */
  answer(tool, args, page) {
    if (tool === "search_files") return this.#searchFiles(args.query, page);
    if (tool === "list_directory") return this.#listDirectory(args.path ?? "", page);
    throw new Error(`the least work of ${tool} is not measured`);
  }

  /** Whether `identity` differs from the last one of `rel`, which it then becomes. */
  #compare(rel, identity) {
    const last = this.#identities.get(rel);
    this.#identities.set(rel, identity);
    return last === undefined || identity.some((value, i) => value !== last[i]);
  }

  /** Keeps of a directory's entries its subdirectories and the files whose paths contain `query`, sorted. */
  #keep(rel, entries, query) {
    const prefix = rel === "" ? "" : `${rel}/`;
    const plain = !query.includes("/"); // then a match lies within one name
    const hit = plain && rel.includes(query); // a directory on the way matches: so does every file below
    const keys = [];
    for (const entry of entries) {
      const { name } = entry;
      if (typeof entry.isDirectory === "function" ? entry.isDirectory() : entry.isDirectory) {
        keys.push(`${name}/`);
      } else if (hit || (plain ? name.includes(query) : `${prefix}${name}`.includes(query))) keys.push(name);
    }
    this.#keys.set(rel, keys.sort());
    this.#changed = true;
  }

  #searchFiles(query, page) {
    if (this.#changed) this.#matches.clear();
    this.#changed = false;
    let found = this.#matches.get(query);
    if (found === undefined) {
      const paths = [];
      this.#collect("", paths);
      const state = createHash("sha256").update(`${paths.join("\0")}\0`).digest("hex");
      this.#matches.set(query, found = { paths, state });
    }
    this.#keys.clear(); // a later change is read again from the root: not this floor's traversal
    const { paths, state } = found;
    const first = page.items[0]?.path;
    let at = 0;
    for (let hi = paths.length; at < hi;) {
      const mid = (at + hi) >>> 1;
      if (first === undefined || paths[mid] < first) at = mid + 1;
      else hi = mid;
    }
    const items = paths.slice(at, at + page.items.length).map((path) => ({ path }));
    return this.#page(items, page, (item) => `${item.path}\n`, `search_files\0${query}\0${state}`);
  }

  #listDirectory(dir, page) {
    if (page.next_cursor !== null || page.items.length === 0) {
      throw new Error("the least work of list_directory is measured on whole, non-empty listings only");
    }
    let held = this.#listings.get(dir);
    const first = held === undefined;
    if (first) {
      held = { entries: page.items.map((item) => [item.name, item.kind]), hash: undefined };
      this.#listings.set(dir, held);
    }
    const prefix = dir === "" ? "" : `${dir}/`;
    const items = held.entries.map(([name, kind]) => ({ name, kind, path: `${prefix}${name}` }));
    return this.#page(
      items,
      first ? page : undefined,
      (item) => `${item.kind}\t${item.path}\n`,
      undefined,
      held,
    );
  }

  /**
   * Hashes a page's `items` (one `line` each) and, when a page follows, signs a cursor over `bound` and the
   * last item. Their encoded cost is the length of the JSON the answer carries anyway (the handler's
   * `JSON.stringify` of the page), so it is not made twice. Given the server's `page`, first checks that the
   * items are its own (so this did the same work: each page of a search, a directory's first listing). Given
   * `held`, a listing it holds (unchanged), keeps the page's hash with it, as the server does.
   */
  #page(items, page, line, bound, held) {
    if (
      page &&
      (items.length !== page.items.length || items.some((item, i) => item.path !== page.items[i].path))
    ) {
      throw new Error("the least work found other items than the server's page");
    }
    const hash = held?.hash ?? createHash("sha256").update(items.map(line).join("")).digest("hex");
    if (held) held.hash = hash;
    if (page === undefined || page.next_cursor === null) return hash.length;
    const cursor = createHmac("sha256", this.#key).update(`${bound}\0${items.at(-1)?.path}`);
    return hash.length + cursor.digest("base64url").length;
  }

  /** Appends the matching paths below `rel`, in path order, from the directories kept. */
  #collect(rel, paths) {
    const prefix = rel === "" ? "" : `${rel}/`;
    for (const key of this.#keys.get(rel) ?? []) {
      if (key.endsWith("/")) this.#collect(`${prefix}${key.slice(0, -1)}`, paths);
      else paths.push(`${prefix}${key}`);
    }
  }
}
const leastWork = mode === "work" ? new LeastWork() : undefined;
let worked = 0; // kept, so that no engine may drop the work as unused

/** The tool result for the page after `cursor`, built per call as a server's handler would. */
function replay(cursor) {
  const page = cursor === undefined ? pages[0] : after.get(cursor);
  return { content: [{ type: "text", text: JSON.stringify(page) }], structuredContent: page };
}

if (mode === "noop") {
  await import("./bare_noop.mjs");
} else if (mode === "raw") {
  let pending = "";
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    pending += chunk;
    for (let nl = pending.indexOf("\n"); nl >= 0; nl = pending.indexOf("\n")) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (line.trim() !== "") answer(JSON.parse(line));
    }
  });
} else if (["server", "mcp", "calls", "syscalls", "work", "extents"].includes(mode)) {
  const { McpServer, Server } = await import("@modelcontextprotocol/server");
  const { serveStdio } = await import("@modelcontextprotocol/server/stdio");
  const z = await import("zod");
  const info = { name: `bare-${mode}`, version: "0" };
  const options = { capabilities: { tools: {} } };
  serveStdio(() => {
    if (mode === "server") {
      const server = new Server(info, options);
      server.setRequestHandler("tools/call", (request) => replay(request.params.arguments?.cursor));
      return server;
    }
    const server = new McpServer(info, options);
    if (replaying) {
      const paging = { cursor: z.string().optional(), limit: z.int().min(1).optional() };
      const page = (item) => z.object({ items: z.array(item), content_hash: z.string() });
      const tools = {
        list_directory: [
          { path: z.string().optional() },
          z.object({ name: z.string(), kind: z.enum(["file", "directory"]), path: z.string() }),
        ],
        search_files: [{ query: z.string().min(1) }, z.object({ path: z.string() })],
        search_text: [
          { query: z.string().min(1), path: z.string().optional() },
          z.object({ path: z.string(), line: z.int().min(1), text: z.string() }),
        ],
        read_text_file: [{ path: z.string() }, z.object({ byte_offset: z.int().min(0), text: z.string() })],
      };
      for (const [name, [args, item]] of Object.entries(tools)) {
        server.registerTool(
          name,
          {
            description: "Replays recorded pages.",
            inputSchema: z.strictObject({ ...args, ...paging }),
            outputSchema: page(item),
          },
          async (call) => {
            const recorded = answers.get(callKey(name, call));
            if (recorded === undefined) {
              return { isError: true, content: [{ type: "text", text: "not recorded" }] };
            }
            if (making) {
              const query = name === "search_text" ? call.query : undefined;
              await makeOps(recorded.ops, query, leastWork?.observer(name, call));
            }
            if (leastWork) worked += leastWork.answer(name, call, recorded.page);
            const { page } = recorded;
            return { content: [{ type: "text", text: JSON.stringify(page) }], structuredContent: page };
          },
        );
      }
    } else {
      server.registerTool(
        "read_text_file",
        {
          description: mode === "extents" ? "Reads recorded page extents." : "Replays recorded pages.",
          inputSchema: z.strictObject({ path: z.string(), cursor: z.string().optional() }),
          outputSchema: z.object({
            items: z.array(z.object({ byte_offset: z.number().int().nonnegative(), text: z.string() })),
            next_cursor: z.string().nullable(),
            content_hash: z.string(),
          }),
        },
        ({ cursor }) => {
          if (mode !== "extents") return replay(cursor);
          const page = extentPage(cursor);
          return { content: [{ type: "text", text: JSON.stringify(page) }], structuredContent: page };
        },
      );
    }
    return server;
  }, { legacy: "reject" });
} else {
  process.stderr.write(
    "usage: bare_server.mjs noop | bare_server.mjs mcp|server|raw PAGES | bare_server.mjs calls CALLS" +
      " | bare_server.mjs syscalls|work CALLS ROOT" +
      " | bare_server.mjs extents INDEX FILE\n",
  );
  process.exit(64);
}

/** The raw mode's whole protocol: discover and tools/call, one response line per request. */
function answer(request) {
  if (request.id === undefined) return; // a notification
  const result = request.method === "server/discover"
    ? { supportedVersions: ["2026-07-28"], capabilities: { tools: {} }, resultType: "complete" }
    : request.method === "tools/call"
    ? { ...replay(request.params.arguments?.cursor), resultType: "complete" }
    : undefined;
  const message = result === undefined
    ? { jsonrpc: "2.0", id: request.id, error: { code: -32601, message: `unknown method ${request.method}` } }
    : { jsonrpc: "2.0", id: request.id, result };
  process.stdout.write(JSON.stringify(message) + "\n");
}
