import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  RUNTIME,
  type Server,
  startServer,
  structured,
  toolErrorText,
  traverse,
  withServer,
} from "./_harness.ts";
import { INVALID_CURSOR_MESSAGE, STALE_CURSOR_MESSAGE } from "../mod.ts";

const INVALID = "cursor is not valid";
const STALE = "the filesystem changed since this cursor was issued; start the traversal again";
const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Lines of about 40 bytes; every third holds `needle`. */
function lines(count: number, tag: string): string {
  let text = "";
  for (let i = 1; i <= count; i++) {
    text += i % 3 === 0 ? `${tag} line ${i} has a needle in it\n` : `${tag} line ${i} is plain filler text\n`;
  }
  return text;
}

const FILES: Record<string, string> = {
  "big.txt": lines(3_000, "big"),
  "other.txt": lines(10, "other"),
  "d1/a.txt": "a",
  "d1/b.txt": "b",
  "d1/c.txt": "c",
  "d1/d.txt": "d",
  "d2/a.txt": "a",
  "d2/b.txt": "b",
  "in/one.txt": lines(30, "one"),
  "in/two.txt": lines(30, "two"),
  "out/o.txt": lines(30, "out"),
};

/** One traversal per read tool, started with `limit: 1` so it has a next page. */
const TRAVERSALS: Record<string, Record<string, unknown>> = {
  list_directory: { path: "d1" },
  search_files: { query: ".txt" },
  search_text: { query: "needle" },
  read_text_file: { path: "big.txt" },
};

/** The first page's cursor of a traversal. */
async function firstCursor(server: Server, tool: string, args: Record<string, unknown>): Promise<string> {
  const page = structured(await server.call(tool, { ...args, limit: 1 }));
  assert.equal(typeof page.next_cursor, "string", `${tool} has a second page`);
  return page.next_cursor;
}

/** Asserts that a cursor is accepted: the call returns a page. */
async function accepted(server: Server, tool: string, args: Record<string, unknown>, cursor: string) {
  const response = await server.call(tool, { ...args, cursor, limit: 1 });
  if (response.result?.isError) assert.fail(`${tool} refused its cursor: ${response.result.content[0].text}`);
  return structured(response);
}

async function refusal(server: Server, tool: string, args: Record<string, unknown>, cursor: string) {
  return toolErrorText(await server.call(tool, { ...args, cursor }));
}

/** Every single-character edit, and a few deletions and insertions, of a cursor. */
function edits(cursor: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < cursor.length; i++) {
    const c = cursor[i];
    const other = c === "." ? "A" : BASE64URL[(BASE64URL.indexOf(c) + 1) % BASE64URL.length];
    out.push(cursor.slice(0, i) + other + cursor.slice(i + 1));
  }
  const dot = cursor.indexOf(".");
  const mid = dot >> 1;
  for (const at of [0, 1, mid, dot - 1, dot, dot + 1, cursor.length - 1]) {
    out.push(cursor.slice(0, at) + cursor.slice(at + 1));
  }
  for (const at of [0, mid, dot, dot + 1, cursor.length]) {
    out.push(cursor.slice(0, at) + "A" + cursor.slice(at));
    out.push(cursor.slice(0, at) + "." + cursor.slice(at));
  }
  out.push("", ".", cursor + " ", " " + cursor, cursor + cursor, cursor.slice(0, dot), cursor.slice(dot));
  return out;
}

test("the messages are exported as the contract words them", () => {
  assert.equal(INVALID_CURSOR_MESSAGE, INVALID);
  assert.equal(STALE_CURSOR_MESSAGE, STALE);
});

test(`${RUNTIME}: every edit of a real cursor is refused with exactly 'cursor is not valid'`, async () => {
  await withServer(FILES, ["--include", "**"], async (server) => {
    for (const [tool, args] of Object.entries(TRAVERSALS)) {
      const cursor = await firstCursor(server, tool, args);
      assert.match(cursor, /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      await accepted(server, tool, args, cursor);
      const variants = edits(cursor);
      assert.ok(variants.length > cursor.length);
      for (let i = 0; i < variants.length; i += 64) {
        const batch = variants.slice(i, i + 64);
        const texts = await Promise.all(batch.map((edited) => refusal(server, tool, args, edited)));
        texts.forEach((text, j) => assert.equal(text, INVALID, `${tool}: edit ${JSON.stringify(batch[j])}`));
      }
      await accepted(server, tool, args, cursor); // the genuine one still works
    }
  });
});

test(`${RUNTIME}: a cursor moved to another tool, other arguments or another process is refused`, async () => {
  await withServer(FILES, ["--include", "**"], async (server, root) => {
    const cursors: Record<string, string> = {};
    for (const [tool, args] of Object.entries(TRAVERSALS)) {
      cursors[tool] = await firstCursor(server, tool, args);
    }

    // Across tools.
    for (const [from, cursor] of Object.entries(cursors)) {
      for (const [to, args] of Object.entries(TRAVERSALS)) {
        if (to === from) continue;
        assert.equal(await refusal(server, to, args, cursor), INVALID, `${from} cursor in ${to}`);
      }
    }

    // Across the arguments that define the traversal.
    const moved: [string, Record<string, unknown>][] = [
      ["list_directory", { path: "d2" }],
      ["list_directory", {}],
      ["search_files", { query: ".tx" }],
      ["search_files", { query: "a" }],
      ["search_text", { query: "needl" }],
      ["search_text", { query: "needle", path: "in" }],
      ["read_text_file", { path: "other.txt" }],
    ];
    for (const [tool, args] of moved) {
      assert.equal(
        await refusal(server, tool, args, cursors[tool]),
        INVALID,
        `${tool} ${JSON.stringify(args)}`,
      );
    }

    // Across processes: the same root and arguments, another server.
    const second = startServer(root.path, ["--include", "**"]);
    try {
      for (const [tool, args] of Object.entries(TRAVERSALS)) {
        assert.equal(await refusal(second, tool, args, cursors[tool]), INVALID, `${tool} on another server`);
        const own = await firstCursor(second, tool, args);
        assert.equal(await refusal(server, tool, args, own), INVALID, `${tool} back on the first server`);
      }
    } finally {
      await second.close();
    }
    for (const [tool, args] of Object.entries(TRAVERSALS)) await accepted(server, tool, args, cursors[tool]);
  });
});

test(`${RUNTIME}: any size, mtime or inode change of the file being read invalidates its cursor`, async () => {
  await withServer(FILES, ["--include", "**"], async (server, root) => {
    const file = join(root.path, "big.txt");
    const args = { path: "big.txt" };
    const original = FILES["big.txt"];

    const changes: [string, () => void][] = [
      ["size (with the mtime put back)", () => {
        const { atime, mtime } = statSync(file);
        writeFileSync(file, original + "more\n");
        utimesSync(file, atime, mtime);
      }],
      ["mtime only", () => {
        const { atime, mtime } = statSync(file);
        utimesSync(file, atime, new Date(mtime.getTime() + 10_000));
      }],
      ["inode (same size and mtime)", () => {
        const { atime, mtime, size } = statSync(file);
        const copy = join(root.path, "copy.tmp");
        writeFileSync(copy, original.slice(0, size).padEnd(size, "x"));
        utimesSync(copy, atime, mtime);
        renameSync(copy, file);
        assert.equal(statSync(file).size, size);
        assert.equal(statSync(file).mtime.getTime(), mtime.getTime());
      }],
    ];
    for (const [what, change] of changes) {
      writeFileSync(file, original);
      const cursor = await firstCursor(server, "read_text_file", args);
      await accepted(server, "read_text_file", args, cursor);
      change();
      assert.equal(await refusal(server, "read_text_file", args, cursor), STALE, what);
    }
  });
});

test(`${RUNTIME}: list_directory and search_files cursors see entries, not bytes`, async () => {
  await withServer(FILES, ["--include", "**", "--exclude", "**/*.log"], async (server, root) => {
    const at = (rel: string) => join(root.path, rel);
    const list = { path: "d1" };
    const find = { query: ".txt" };
    let listCursor = await firstCursor(server, "list_directory", list);
    let findCursor = await firstCursor(server, "search_files", find);

    // Unrelated changes: bytes of listed files, an excluded file, a directory with nothing served.
    writeFileSync(at("d1/a.txt"), "a much longer content than before\n");
    writeFileSync(at("d1/b.txt"), "");
    writeFileSync(at("big.txt"), "changed");
    writeFileSync(at("d1/x.log"), "not served");
    mkdirSync(at("d1/empty"));
    await accepted(server, "list_directory", list, listCursor);
    await accepted(server, "search_files", find, findCursor);
    const rest = await traverse(server, "list_directory", { ...list, cursor: listCursor });
    assert.deepEqual(rest.items.map((i) => i.name), ["b.txt", "c.txt", "d.txt"]);

    // A served entry added: both refused.
    writeFileSync(at("d1/e.txt"), "e");
    assert.equal(await refusal(server, "list_directory", list, listCursor), STALE);
    assert.equal(await refusal(server, "search_files", find, findCursor), STALE);

    // A served entry removed: both refused.
    listCursor = await firstCursor(server, "list_directory", list);
    findCursor = await firstCursor(server, "search_files", find);
    rmSync(at("d1/c.txt"));
    assert.equal(await refusal(server, "list_directory", list, listCursor), STALE);
    assert.equal(await refusal(server, "search_files", find, findCursor), STALE);

    // A directory that starts holding something served appears in the listing.
    listCursor = await firstCursor(server, "list_directory", list);
    writeFileSync(at("d1/empty/z.txt"), "z");
    assert.equal(await refusal(server, "list_directory", list, listCursor), STALE);

    // A served file elsewhere changes the listing of d1 not at all, but the matches of search_files.
    listCursor = await firstCursor(server, "list_directory", list);
    findCursor = await firstCursor(server, "search_files", find);
    writeFileSync(at("d2/new.txt"), "n");
    await accepted(server, "list_directory", list, listCursor);
    assert.equal(await refusal(server, "search_files", find, findCursor), STALE);
  });
});

test(`${RUNTIME}: a search_files cursor binds the paths that match its query, not the others`, async () => {
  await withServer(FILES, ["--include", "**"], async (server, root) => {
    const at = (rel: string) => join(root.path, rel);
    const find = { query: "a.t" }; // d1/a.txt and d2/a.txt
    let cursor = await firstCursor(server, "search_files", find);

    // Served paths that do not match, added, removed or renamed anywhere: the traversal completes.
    writeFileSync(at("d1/new.md"), "n");
    writeFileSync(at("aaa.md"), "n");
    mkdirSync(at("d3"));
    writeFileSync(at("d3/x.txt"), "n");
    rmSync(at("d1/b.txt"));
    renameSync(at("d2/b.txt"), at("d2/bb.txt"));
    await accepted(server, "search_files", find, cursor);
    const rest = await traverse(server, "search_files", { ...find, cursor });
    assert.deepEqual(rest.items.map((i) => i.path), ["d2/a.txt"]);

    // A match added before or after the position, removed, or renamed: refused.
    for (
      const change of [
        () => writeFileSync(at("0a.txt"), "n"),
        () => writeFileSync(at("d3/a.txt"), "n"),
        () => rmSync(at("d2/a.txt")),
        () => renameSync(at("d3/a.txt"), at("d3/aa.txt")),
      ]
    ) {
      cursor = await firstCursor(server, "search_files", find);
      change();
      assert.equal(await refusal(server, "search_files", find, cursor), STALE, String(change));
    }
  });
});

test(`${RUNTIME}: a search_text cursor binds its scope's paths and the files scanned so far`, async () => {
  await withServer(FILES, ["--include", "**"], async (server, root) => {
    const at = (rel: string) => join(root.path, rel);
    const args = { query: "needle", path: "in" };
    const all = (await traverse(server, "search_text", args)).items;
    assert.equal(all.length, 20);

    // Changes outside the scope leave the cursor valid, and the traversal completes unchanged.
    let cursor = await firstCursor(server, "search_text", args);
    writeFileSync(at("out/o.txt"), "needle everywhere\n".repeat(50));
    writeFileSync(at("out/new.txt"), "needle\n");
    writeFileSync(at("big.txt"), "needle\n");
    const rest = await traverse(server, "search_text", { ...args, cursor });
    assert.deepEqual([all[0], ...rest.items], all);

    // A file not yet scanned may change: it is scanned as it is when reached.
    cursor = await firstCursor(server, "search_text", args);
    assert.equal(all[0].path, "in/one.txt");
    writeFileSync(at("in/two.txt"), "two needle\n");
    const changed = await traverse(server, "search_text", { ...args, cursor });
    assert.deepEqual(changed.items.at(-1), { path: "in/two.txt", line: 1, text: "two needle" });
    assert.equal(changed.items.length, 10);

    // A change to a file already scanned invalidates it.
    cursor = await firstCursor(server, "search_text", args);
    writeFileSync(at("in/one.txt"), FILES["in/one.txt"] + "x\n");
    assert.equal(await refusal(server, "search_text", args, cursor), STALE);

    // So does a path added to (or removed from) the scope.
    cursor = await firstCursor(server, "search_text", args);
    writeFileSync(at("in/zzz.txt"), "plain\n");
    assert.equal(await refusal(server, "search_text", args, cursor), STALE);
    cursor = await firstCursor(server, "search_text", args);
    rmSync(at("in/zzz.txt"));
    assert.equal(await refusal(server, "search_text", args, cursor), STALE);
  });
});

test(`${RUNTIME}: limit may change between pages without invalidating the cursor`, async () => {
  await withServer(FILES, ["--include", "**"], async (server) => {
    for (const [tool, args] of Object.entries(TRAVERSALS)) {
      const whole = await traverse(server, tool, args);
      const varied = await traverse(server, tool, args, { limits: [1, 2, 3, 1000] });
      assert.ok(varied.pages.length > 2, `${tool} takes several pages`);
      assert.ok(varied.pages.some((p) => p.items.length > 1), `${tool}: a later limit was honoured`);
      if (tool === "read_text_file") {
        const text = (items: { text: string }[]) => items.map((i) => i.text).join("");
        assert.equal(text(varied.items), FILES["big.txt"]);
        assert.equal(text(whole.items), FILES["big.txt"]);
      } else assert.deepEqual(varied.items, whole.items, tool);
    }
  });
});

test(`${RUNTIME}: a cursor whose target went or changed kind is refused as stale, not as its absence`, async () => {
  const flags = ["--include", "**", "--max-file-bytes", "200000"];
  await withServer(FILES, flags, async (server, root) => {
    const at = (rel: string) => join(root.path, rel);
    const restore = () => {
      rmSync(at("big.txt"), { recursive: true, force: true });
      writeFileSync(at("big.txt"), FILES["big.txt"]);
      rmSync(at("d1"), { recursive: true, force: true });
      mkdirSync(at("d1"));
      for (const name of ["a", "b", "c", "d"]) writeFileSync(at(`d1/${name}.txt`), name);
      rmSync(at("in"), { recursive: true, force: true });
      mkdirSync(at("in"));
      writeFileSync(at("in/one.txt"), FILES["in/one.txt"]);
      writeFileSync(at("in/two.txt"), FILES["in/two.txt"]);
    };
    const read = { path: "big.txt" };
    const list = { path: "d1" };
    const scoped = { query: "needle", path: "in" };
    const file = { query: "needle", path: "in/one.txt" };
    const cases: [string, Record<string, unknown>, () => void][] = [
      ["read_text_file", read, () => rmSync(at("big.txt"))],
      ["read_text_file", read, () => (rmSync(at("big.txt")), mkdirSync(at("big.txt")))],
      ["read_text_file", read, () => (rmSync(at("big.txt")), symlinkSync("other.txt", at("big.txt")))],
      ["read_text_file", read, () => writeFileSync(at("big.txt"), "x".repeat(200_001))], // past the limit
      ["list_directory", list, () => rmSync(at("d1"), { recursive: true })],
      ["list_directory", list, () => ["a", "b", "c", "d"].forEach((n) => rmSync(at(`d1/${n}.txt`)))],
      ["list_directory", list, () => (rmSync(at("d1"), { recursive: true }), writeFileSync(at("d1"), "f"))],
      ["search_text", scoped, () => rmSync(at("in"), { recursive: true })],
      ["search_text", file, () => rmSync(at("in/one.txt"))],
    ];
    for (const [tool, args, change] of cases) {
      restore();
      const cursor = await firstCursor(server, tool, args);
      change();
      const what = `${tool} ${JSON.stringify(args)} after ${change}`;
      assert.equal(await refusal(server, tool, args, cursor), STALE, what);
      // Without a cursor the same call says what is there now.
      assert.notEqual(toolErrorText(await server.call(tool, args)), STALE, what);
    }
    // A root moved away is still told as such, cursor or not.
    restore();
    const cursor = await firstCursor(server, "read_text_file", read);
    renameSync(root.path, `${root.path}.moved`);
    try {
      assert.match(await refusal(server, "read_text_file", read, cursor), /^the root was moved or replaced/);
    } finally {
      renameSync(`${root.path}.moved`, root.path);
    }
  });
});

test(`${RUNTIME}: names holding a newline cannot make two listings or match sets look alike to a cursor`, async () => {
  await withServer({ "ax": "a", "bx": "b" }, ["--include", "**"], async (server, root) => {
    const at = (rel: string) => join(root.path, rel);
    for (const [tool, args] of [["list_directory", {}], ["search_files", { query: "x" }]] as const) {
      writeFileSync(at("ax"), "a");
      writeFileSync(at("bx"), "b");
      rmSync(at("ax\nfile\tbx"), { force: true });
      rmSync(at("ax\nbx"), { force: true });
      const cursor = await firstCursor(server, tool, args);
      rmSync(at("ax"));
      rmSync(at("bx"));
      // Its one name is the two old ones joined as a digest of lines would join them.
      writeFileSync(at(tool === "list_directory" ? "ax\nfile\tbx" : "ax\nbx"), "c");
      assert.equal(await refusal(server, tool, args, cursor), STALE, tool);
    }
  });
});
