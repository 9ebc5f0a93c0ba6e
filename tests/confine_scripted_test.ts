/**
 * The races of confinement, made to happen at exactly one call on a
 * scripted port (`_scripted_port.ts`) instead of now and then on a real
 * disk (`deno task stress` runs those races): an open that meets a file
 * being replaced is tried again, a parent directory swapped for a link or a
 * root moved between the check and the open is refused after the open (and,
 * on a filesystem that folds case, a parent replaced by one that spells the
 * file otherwise), and a moved root refuses every tool before anything is read.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { BUSY_MESSAGE, FsError, ROOT_MOVED_MESSAGE } from "../mod.ts";
import { openRoot } from "../src/root.ts";
import { RUNTIME, structured, toolErrorText } from "./_harness.ts";
import { InProcessServer } from "./_inprocess.ts";
import { fail, ScriptedPort } from "./_scripted_port.ts";

const REPLACED = "a.txt was replaced while it was being opened; try again";
const OUTSIDE = "OUTSIDE-BYTES-3c9";

/**
 * Serves the fake's root in-process (`exclude`: its exclude globs), runs `fn`, and checks that every descriptor
 * opened for a call was closed and that no line carries outside bytes.
 */
async function serve(
  fake: ScriptedPort,
  fn: (server: InProcessServer) => Promise<void>,
  exclude: string[] = [],
): Promise<void> {
  const server = await InProcessServer.serve(
    openRoot({ root: ScriptedPort.ROOT, include: ["**"], exclude, fs: fake }),
  );
  try {
    const held = fake.openDescriptors; // the root's own
    await fn(server);
    assert.equal(fake.openDescriptors, held, "every descriptor a call opened is closed");
    for (const line of server.lines) assert.equal(line.includes(OUTSIDE), false, line);
  } finally {
    await server.close();
  }
}

const read = (server: InProcessServer, path: string) => server.call("read_text_file", { path });
const textOf = (page: { items: { text: string }[] }) => page.items.map((i) => i.text).join("");

test(`${RUNTIME}: an open that meets a file being replaced is tried again and reads the new file`, async () => {
  const fake = new ScriptedPort({ "a.txt": "old\n" });
  fake.before("openRead", "a.txt", () => {
    fake.write("a.txt", "new\n");
    fail("changed")();
  });
  await serve(fake, async (server) => {
    assert.equal(textOf(structured(await read(server, "a.txt"))), "new\n");
    assert.equal(fake.count("openRead", "a.txt"), 2);
  });
});

test(`${RUNTIME}: an open that meets a replaced file three times is refused, and not tried a fourth`, async () => {
  const fake = new ScriptedPort({ "a.txt": "old\n" });
  for (let i = 0; i < 4; i++) fake.before("openRead", "a.txt", fail("changed"));
  await serve(fake, async (server) => {
    assert.equal(toolErrorText(await read(server, "a.txt")), REPLACED);
    assert.equal(fake.count("openRead", "a.txt"), 3);
  });
});

test(`${RUNTIME}: a file replaced right after its open is opened again, the stale descriptor closed`, async () => {
  const fake = new ScriptedPort({ "a.txt": "old\n" });
  fake.after("openRead", "a.txt", () => fake.write("a.txt", "new\n"));
  await serve(fake, async (server) => {
    assert.equal(textOf(structured(await read(server, "a.txt"))), "new\n");
    assert.equal(fake.count("openRead", "a.txt"), 2);
  });
});

test(`${RUNTIME}: a file replaced after each of three opens is refused, every descriptor closed`, async () => {
  const fake = new ScriptedPort({ "a.txt": "old\n" });
  for (let i = 0; i < 4; i++) fake.after("openRead", "a.txt", () => fake.write("a.txt", `version ${i}\n`));
  await serve(fake, async (server) => {
    assert.equal(toolErrorText(await read(server, "a.txt")), REPLACED);
    assert.equal(fake.count("openRead", "a.txt"), 3);
  });
});

test(`${RUNTIME}: a directory on the way that is a link is refused before anything is opened`, async () => {
  const fake = new ScriptedPort({ "dir/b.txt": "inside\n" });
  await serve(fake, async (server) => {
    assert.equal(textOf(structured(await read(server, "dir/b.txt"))), "inside\n");
    fake.symlink("dir", { "b.txt": `${OUTSIDE}\n` });
    const opens = fake.count("openRead", "dir/b.txt");
    assert.equal(
      toolErrorText(await read(server, "dir/b.txt")),
      "dir is a symbolic link, and links are never followed",
    );
    assert.equal(fake.count("openRead", "dir/b.txt"), opens, "no open through the link");
  });
});

test(`${RUNTIME}: a directory swapped for a link between the check and the open is refused after the open`, async () => {
  const fake = new ScriptedPort({ "dir/b.txt": "inside\n" });
  // The open then reaches an outside file through the link, and the path still names that file.
  fake.before("openRead", "dir/b.txt", () => fake.symlink("dir", { "b.txt": `${OUTSIDE}\n` }));
  await serve(fake, async (server) => {
    assert.equal(
      toolErrorText(await read(server, "dir/b.txt")),
      "dir is a symbolic link, and links are never followed",
    );
    assert.equal(fake.count("openRead", "dir/b.txt"), 1);
  });
});

test(`${RUNTIME}: a root swapped for a link between the check and the open is refused after the open`, async () => {
  const fake = new ScriptedPort({ "a.txt": "inside\n" });
  // The open then reaches an outside file through the new root, and the path still names that file.
  fake.before("openRead", "a.txt", () => fake.symlink("", { "a.txt": `${OUTSIDE}\n` }));
  await serve(fake, async (server) => {
    assert.equal(toolErrorText(await read(server, "a.txt")), ROOT_MOVED_MESSAGE);
    // The call's last check of the root would drop the result; the open's own check reads nothing.
    assert.equal(fake.count("read", "a.txt"), 0, "not a byte read from the outside file");
  });
});

test(`${RUNTIME}: on a filesystem that folds case, a directory replaced by one spelling the file otherwise is refused after the open`, async () => {
  const fake = new ScriptedPort({ "d/TOP.TXT": "served\n" }, { foldsCase: true });
  // Between the check and the open, `d` is replaced by another directory that holds an excluded `top.txt`
  // instead: the open of `d/TOP.TXT` reaches it, and so does the lstat of the path after the open. Only `d`'s
  // listing, read again once its lstat shows another directory, says that `TOP.TXT` is no longer there.
  fake.before("openRead", "d/TOP.TXT", () => {
    fake.recreate("d");
    fake.erase("d/TOP.TXT");
    fake.write("d/top.txt", `${OUTSIDE}\n`);
  });
  await serve(fake, async (server) => {
    assert.equal(toolErrorText(await read(server, "d/TOP.TXT")), "not found: d/TOP.TXT");
    assert.equal(fake.count("openRead", "d/TOP.TXT"), 1);
    assert.equal(fake.count("read", "d/TOP.TXT"), 0, "not a byte read from the excluded file");
  }, ["**/top.txt"]);
});

/** One call of every tool. */
const CALLS: [string, Record<string, unknown>][] = [
  ["list_directory", {}],
  ["search_files", { query: "a" }],
  ["search_text", { query: "a" }],
  ["read_text_file", { path: "a.txt" }],
  ["write_text_file", { path: "b.txt", content: "b\n" }],
];

/** Ways the root path stops naming the pinned directory. */
const MOVES: [string, (fake: ScriptedPort) => void][] = [
  ["renamed away, nothing in its place", (fake) => fake.erase("")],
  ["replaced by a copy (another inode)", (fake) => fake.recreate("")],
  ["replaced by a link to a copy", (fake) => fake.symlink("", { "a.txt": `${OUTSIDE}\n`, "d/": "" })],
  ["replaced by one with the same inode number on another device", (fake) => fake.recreate("", { dev: 2n })],
];

for (const [how, move] of MOVES) {
  test(`${RUNTIME}: a root ${how} refuses every tool before anything else is looked at`, async () => {
    const fake = new ScriptedPort({ "a.txt": "a\n", "d/c.txt": "c\n" });
    await serve(fake, async (server) => {
      for (const [tool, args] of CALLS.slice(0, 4)) structured(await server.call(tool, args));
      move(fake);
      for (const [tool, args] of CALLS) {
        const before = fake.calls.length;
        assert.equal(toolErrorText(await server.call(tool, args)), ROOT_MOVED_MESSAGE, tool);
        assert.deepEqual(fake.calls.slice(before), ["lstat "], `${tool}: only the root's lstat`);
      }
    });
  });
}

// The root swapped away and back while a call reads it: its read fails, and the pin holds again after.
for (const [tool, args] of CALLS.slice(0, 3)) {
  for (const code of ["not_found", "not_directory"] as const) {
    test(`${RUNTIME}: a root whose read finds it gone (${code}) refuses ${tool} as moved, not as empty`, async () => {
      const fake = new ScriptedPort({ "a.txt": "a\n", "d/c.txt": "c\n" });
      fake.before("readDir", "", fail(code));
      await serve(fake, async (server) => {
        assert.equal(toolErrorText(await server.call(tool, args)), ROOT_MOVED_MESSAGE);
        assert.deepEqual(structured(await server.call(tool, args)).items.length > 0, true, "then served");
      });
    });
  }
}

// Out of descriptors while a call validates the directories above its path (before any refusal names it):
// the call says so, as it does wherever else it runs out, not that a filesystem condition stopped it.
for (
  const [tool, args] of [["read_text_file", { path: "d/c.txt" }], ["search_text", { query: "c", path: "d" }]]
) {
  test(`${RUNTIME}: ${tool} that runs out of descriptors above its path says the server has too many files open`, async () => {
    const fake = new ScriptedPort({ "d/c.txt": "c\n" });
    fake.before("lstat", "d", fail("busy"));
    await serve(fake, async (server) => {
      assert.equal(
        toolErrorText(await server.call(tool as string, args as Record<string, unknown>)),
        BUSY_MESSAGE,
      );
    });
  });
}

test(`${RUNTIME}: a write whose target is removed while it is checked says so, not that the name is spelt otherwise`, async () => {
  const fake = new ScriptedPort({ "a.txt": "a\n" });
  fake.after("lstat", "a.txt", () => fake.erase("a.txt"));
  await serve(fake, async (server) => {
    assert.equal(
      toolErrorText(await server.call("write_text_file", { path: "a.txt", content: "new\n" })),
      "a.txt changed while it was checked; try again",
    );
    assert.equal(fake.calls.some((c) => c.startsWith("createExclusive")), false, "nothing written");
  });
});

// A walk validates the root with the rest and then trusts it, so the root's pin is checked once more as the
// walk starts: a directory it did not validate (`e`, whose read failed) would otherwise be looked up through
// a root swapped in meanwhile.
for (const [tool, args] of CALLS.slice(0, 3)) {
  test(`${RUNTIME}: a root swapped while ${tool} validates its tree is refused before the walk looks through it`, async () => {
    const fake = new ScriptedPort({ "d/x.txt": "x\n", "e/y.txt": "y\n" });
    let swappedAt = -1;
    fake.before("readDir", "e", () => {
      fake.symlink("", { "d/x.txt": "x\n", "e/y.txt": `${OUTSIDE}\n` });
      swappedAt = fake.calls.length;
      throw new FsError("io");
    });
    await serve(fake, async (server) => {
      assert.equal(toolErrorText(await server.call(tool, args)), ROOT_MOVED_MESSAGE);
      assert.ok(swappedAt > 0, "the swap ran");
      assert.deepEqual(fake.calls.slice(swappedAt), ["lstat "], "only the root's lstat after the swap");
    });
  });
}
