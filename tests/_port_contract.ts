/**
 * The `FsPort` contract, one suite for every port: `port_contract_test.ts`
 * runs it on the Node port (under both runtimes: Deno runs `node:fs` too),
 * and `port_contract_deno_test.ts` on the Deno port (under Deno only; the
 * npm build leaves `*_deno_test.ts` out, as it leaves the Deno port out).
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { makeRoot, RUNTIME, type TempRoot } from "./_harness.ts";
import {
  DIR_BATCH,
  type FileHandle,
  type FileInfo,
  FsError,
  type FsErrorCode,
  type FsPort,
} from "../src/ports/fs_port.ts";

/** Runs `fn` with a fresh temp dir, removed afterwards. */
function inTemp(fn: (dir: string) => void): void {
  const root: TempRoot = makeRoot();
  try {
    fn(root.path);
  } finally {
    root.cleanup();
  }
}

/** `inTemp` for an async `fn`. */
async function inTempAsync(fn: (dir: string) => Promise<void>): Promise<void> {
  const root: TempRoot = makeRoot();
  try {
    await fn(root.path);
  } finally {
    root.cleanup();
  }
}

/** The `FsError` code `fn` throws; fails the test when it returns or throws something else. */
function codeOf(fn: () => unknown): FsErrorCode {
  let result: unknown;
  try {
    result = fn();
  } catch (error) {
    assert.ok(error instanceof FsError, `expected an FsError, got ${error}`);
    return error.code;
  }
  (result as Partial<FileHandle> | undefined)?.close?.();
  assert.fail(`expected an FsError, got ${JSON.stringify(result)}`);
}

function mkfifo(path: string): void {
  const made = spawnSync("mkfifo", [path]);
  assert.equal(made.status, 0, `mkfifo failed: ${made.stderr}`);
}

/**
 * Runs `fn` under umask `mask` when this process may set it (Node; Deno only
 * with `--allow-sys`), else under the inherited umask. `fn` gets the umask in
 * effect, as a child shell (which inherits it) reports it.
 */
function withUmask(mask: number, fn: (umask: number) => void): void {
  let previous: number | null = null;
  try {
    previous = process.umask(mask);
  } catch {
    // Deno without --allow-sys: keep the inherited umask.
  }
  try {
    const shell = spawnSync("sh", ["-c", "umask"], { encoding: "utf8" });
    assert.equal(shell.status, 0, "sh -c umask failed");
    fn(parseInt(shell.stdout.trim(), 8));
  } finally {
    if (previous !== null) process.umask(previous);
  }
}

function readAll(handle: FileHandle): string {
  const chunks: Uint8Array[] = [];
  for (let position = 0;;) {
    const buffer = new Uint8Array(3); // small on purpose: several reads, then 0 at the end
    const n = handle.readAt(buffer, position);
    if (n === 0) break;
    chunks.push(buffer.subarray(0, n));
    position += n;
  }
  return new TextDecoder().decode(Uint8Array.from(chunks.flatMap((c) => [...c])));
}

/**
 * Calls `fn` while `swap` runs exactly once, right after the port's
 * no-follow check of `path` and before its open.
 *
 * A race cannot be timed reliably from outside, so the swap is placed by
 * the port's own call order instead: both ports' `openRead` first call the
 * exported port object's `lstat` (`denoPort.lstat(path)`,
 * `nodePort.lstat(path)`) and then open the path. Wrapping that property
 * makes the check see the original file and the open meet the swapped-in
 * object, on every run. The wrapper records that it fired, and the test
 * asserts so: if a port stops checking through its exported `lstat`, this
 * test fails loudly instead of passing without having swapped anything.
 */
function withSwapAfterCheck<T>(port: FsPort, path: string, swap: () => void, fn: () => T): T {
  const original = port.lstat;
  let fired = false;
  port.lstat = (p: string): FileInfo | null => {
    const info = original.call(port, p);
    if (p === path && !fired) {
      fired = true;
      swap();
    }
    return info;
  };
  try {
    return fn();
  } finally {
    port.lstat = original;
    assert.ok(fired, "the swap did not run between the check and the open");
  }
}

/** Registers the contract's tests for one port, named `name` in their titles. */
export function portContract(name: string, port: FsPort): void {
  const title = (what: string) => `${RUNTIME}: ${name} port: ${what}`;
  // Where Deno's node:fs differs from Node's, the Node port is held to the contract on Node only.
  const nodePortOnDeno = (why: string) => name === "node" && RUNTIME === "deno" ? why : false;

  test(title("openRead reads a regular file in pieces and returns 0 at the end"), () => {
    inTemp((dir) => {
      writeFileSync(join(dir, "a.txt"), "hello, world");
      const handle = port.openRead(join(dir, "a.txt"));
      try {
        assert.equal(readAll(handle), "hello, world");
        assert.equal(handle.readAt(new Uint8Array(4), 7), 4);
        assert.equal(handle.readAt(new Uint8Array(4), 12), 0);
      } finally {
        handle.close();
        handle.close(); // safe twice
      }
      assert.equal(codeOf(() => port.openRead(join(dir, "missing.txt"))), "not_found");
    });
  });

  test(title("openRead hands over the fstat that proved the descriptor, so no caller takes a second"), () => {
    inTemp((dir) => {
      writeFileSync(join(dir, "a.txt"), "hello");
      const handle = port.openRead(join(dir, "a.txt"));
      try {
        assert.deepEqual(handle.opened, handle.stat());
        assert.equal(handle.opened?.kind, "file");
        assert.equal(handle.opened?.size, 5);
      } finally {
        handle.close();
      }
    });
  });

  test(title("openRead refuses a symlink at the final component, whatever it points to"), () => {
    inTemp((dir) => {
      writeFileSync(join(dir, "target.txt"), "secret");
      mkdirSync(join(dir, "sub"));
      symlinkSync("target.txt", join(dir, "to-file"));
      symlinkSync("sub", join(dir, "to-dir"));
      symlinkSync("nowhere", join(dir, "dangling"));
      for (const link of ["to-file", "to-dir", "dangling"]) {
        assert.equal(codeOf(() => port.openRead(join(dir, link))), "symlink", link);
      }
    });
  });

  test(title("openRead refuses a symlink swapped in between the check and the open"), () => {
    inTemp((dir) => {
      const path = join(dir, "a.txt");
      writeFileSync(path, "public");
      writeFileSync(join(dir, "other.txt"), "secret");
      const code = withSwapAfterCheck(port, path, () => {
        unlinkSync(path);
        symlinkSync("other.txt", path);
      }, () => codeOf(() => port.openRead(path)));
      // O_NOFOLLOW fails in the kernel (`symlink`). But Deno, under scoped
      // permissions, resolves a link itself for its permission check and
      // opens the target: there the inode proof refuses it (`changed`).
      assert.ok(code === "symlink" || code === "changed", `got ${code}`);
      if (name === "node" && RUNTIME === "node") assert.equal(code, "symlink");
      assert.ok(lstatSync(path).isSymbolicLink(), "the swap took place");
    });
  });

  test(title("openRead refuses another file renamed in between the check and the open"), () => {
    inTemp((dir) => {
      const path = join(dir, "a.txt");
      writeFileSync(path, "first");
      writeFileSync(join(dir, "b.txt"), "second");
      const code = withSwapAfterCheck(
        port,
        path,
        () => renameSync(join(dir, "b.txt"), path),
        () => codeOf(() => port.openRead(path)),
      );
      assert.equal(code, "changed");
      assert.equal(readFileSync(path, "utf8"), "second", "the swap took place");
    });
  });

  test(title("openRead never opens a FIFO or a directory for content"), () => {
    inTemp((dir) => {
      // A FIFO without a writer blocks a plain open forever: reaching the
      // assertions at all shows that nothing hung.
      mkfifo(join(dir, "pipe"));
      mkdirSync(join(dir, "sub"));
      assert.equal(codeOf(() => port.openRead(join(dir, "pipe"))), "not_regular");
      assert.equal(codeOf(() => port.openRead(join(dir, "sub"))), "not_regular");
    });
  });

  test(
    title("openRead refuses a FIFO swapped in between the check and the open, without hanging"),
    () => {
      inTemp((dir) => {
        const path = join(dir, "a.txt");
        writeFileSync(path, "text");
        const code = withSwapAfterCheck(port, path, () => {
          unlinkSync(path);
          mkfifo(path);
        }, () => codeOf(() => port.openRead(path)));
        assert.equal(code, "not_regular");
        assert.ok(lstatSync(path).isFIFO(), "the swap took place");
      });
    },
  );

  test(
    title("readDir reports links as symlink without following them, files and directories as such"),
    () => {
      inTemp((dir) => {
        writeFileSync(join(dir, "file.txt"), "x");
        mkdirSync(join(dir, "sub"));
        writeFileSync(join(dir, "sub", "inner.txt"), "y");
        symlinkSync("sub", join(dir, "link-to-dir"));
        symlinkSync("file.txt", join(dir, "link-to-file"));
        symlinkSync("nowhere", join(dir, "dangling"));
        mkfifo(join(dir, "pipe"));
        const entries = port.readDir(dir).map((e) => `${e.name}:${e.kind}`).sort();
        assert.deepEqual(entries, [
          "dangling:symlink",
          "file.txt:file",
          "link-to-dir:symlink",
          "link-to-file:symlink",
          "pipe:other",
          "sub:directory",
        ]);
        assert.equal(codeOf(() => port.readDir(join(dir, "missing"))), "not_found");
        assert.equal(codeOf(() => port.readDir(join(dir, "file.txt"))), "not_directory");
      });
    },
  );

  test(
    title("readDirPaced reports what readDir does, pausing after every full batch of DIR_BATCH entries"),
    async () => {
      await inTempAsync(async (dir) => {
        const files = 2 * DIR_BATCH + 5;
        for (let i = 0; i < files; i++) writeFileSync(join(dir, `f${i}.txt`), "");
        mkdirSync(join(dir, "sub"));
        symlinkSync("sub", join(dir, "link-to-dir"));
        mkfifo(join(dir, "pipe"));
        const sorted = (entries: { name: string; kind: string }[]) =>
          entries.map((e) => `${e.name}:${e.kind}`).sort();
        let pauses = 0;
        const paced = await port.readDirPaced(dir, () => Promise.resolve(pauses++));
        assert.equal(paced.length, files + 3);
        assert.deepEqual(sorted(paced), sorted(port.readDir(dir)));
        assert.ok(sorted(paced).includes("link-to-dir:symlink") && sorted(paced).includes("pipe:other"));
        assert.equal(pauses, 2, "a pause after each of the two full batches");
      });
    },
  );

  test(
    title("readDirPaced reads the directory it opened: one put at its path during a pause is never listed"),
    async () => {
      await inTempAsync(async (dir) => {
        // A name that is not UTF-8 too: its bytes must come from the same read, never a second one by path.
        const big = join(dir, "big");
        mkdirSync(big);
        for (let i = 0; i < 2 * DIR_BATCH + 5; i++) writeFileSync(join(big, `f${i}.txt`), "");
        const made = spawnSync("sh", ["-c", 'printf bytes > "$(printf "odd\\377.txt")"'], { cwd: big });
        assert.equal(made.status, 0, `${made.stderr}`);
        let swapped = false;
        const paced = await port.readDirPaced(big, () => {
          if (!swapped) {
            swapped = true;
            renameSync(big, join(dir, "moved"));
            mkdirSync(big);
            writeFileSync(join(big, "other.txt"), "");
          }
          return Promise.resolve();
        });
        assert.ok(swapped, "the read paused");
        const names = (entries: { name: string; kind: string }[]) =>
          entries.map((e) => `${e.name}:${e.kind}`).sort();
        assert.deepEqual(names(paced), names(port.readDir(join(dir, "moved"))));
      });
    },
  );

  test(
    title(
      "readDirPaced given the directory it expects: reads it, or refuses what was put at its path if it proves reads",
    ),
    async () => {
      await inTempAsync(async (dir) => {
        const big = join(dir, "big");
        const outside = join(dir, "outside");
        mkdirSync(big);
        writeFileSync(join(big, "in.txt"), "");
        mkdirSync(outside);
        writeFileSync(join(outside, "OUTSIDE.txt"), "");
        const proof = { root: dir, rootInfo: port.lstat(dir)!, info: port.lstat(big)! };
        const read = () =>
          port.readDirPaced(big, () => Promise.resolve(), proof).then(
            (entries) => entries.map((e) => e.name),
            (error) => error instanceof FsError ? error.code : String(error),
          );
        assert.deepEqual(await read(), ["in.txt"]);
        renameSync(big, join(dir, "moved"));
        symlinkSync(outside, big);
        const throughLink = await read();
        unlinkSync(big);
        mkdirSync(big);
        const another = await read();
        // A directory above it swapped for a link, even with the lstat taken through that link too.
        const nested = join(dir, "a", "big");
        mkdirSync(nested, { recursive: true });
        renameSync(join(dir, "a"), join(dir, "a.moved"));
        mkdirSync(join(dir, "copy"));
        renameSync(outside, join(dir, "copy", "big"));
        symlinkSync(join(dir, "copy"), join(dir, "a"));
        const above = await port.readDirPaced(nested, () => Promise.resolve(), {
          ...proof,
          info: port.lstat(nested)!,
        })
          .then((entries) => entries.map((e) => e.name), (error) => error.code);
        // Another root than the pinned one.
        const otherRoot = await port.readDirPaced(big, () => Promise.resolve(), {
          ...proof,
          rootInfo: proof.info,
        })
          .then((entries) => entries.map((e) => e.name), (error) => error.code);
        if (port.pacedReadsProven) {
          assert.deepEqual([throughLink, another, above, otherRoot], [
            "not_directory",
            "changed",
            "not_directory",
            "changed",
          ]);
        } else {
          // Read by path, whatever it leads to: the caller must prove the read (see `Root`).
          assert.deepEqual([throughLink, another, above, otherRoot], [
            ["OUTSIDE.txt"],
            [],
            ["OUTSIDE.txt"],
            [],
          ]);
        }
      });
    },
  );

  test(title("readDirPaced ends at what a pause throws, and maps the filesystem's errors"), async () => {
    await inTempAsync(async (dir) => {
      for (let i = 0; i < DIR_BATCH + 1; i++) writeFileSync(join(dir, `f${i}.txt`), "");
      const stop = new Error("cancelled");
      await assert.rejects(port.readDirPaced(dir, () => Promise.reject(stop)), (error) => error === stop);
      writeFileSync(join(dir, "file.txt"), "x");
      const codeOfPaced = (path: string) =>
        port.readDirPaced(path, () => Promise.resolve()).then(
          () => assert.fail("expected an FsError"),
          (error) => (assert.ok(error instanceof FsError, `expected an FsError, got ${error}`), error.code),
        );
      assert.equal(await codeOfPaced(join(dir, "missing")), "not_found");
      assert.equal(await codeOfPaced(join(dir, "file.txt")), "not_directory");
    });
  });

  test(
    title("readDir and readDirPaced never report a name that is not UTF-8, and report U+FFFD as itself"),
    {
      skip: nodePortOnDeno(
        "Deno's node:fs decodes names lossily even as buffers; the Node port runs on Node only",
      ),
    },
    async () => {
      await inTempAsync(async (dir) => {
        // Names of raw bytes: the shell makes them, whatever this runtime can spell.
        const made = spawnSync("sh", [
          "-c",
          'printf bytes > "$(printf "odd\\377.txt")" && printf bytes > "$(printf "only\\377.txt")" && ' +
          'mkdir "$(printf "dir\\377")"',
        ], { cwd: dir, encoding: "utf8" });
        assert.equal(made.status, 0, made.stderr);
        writeFileSync(join(dir, "odd\uFFFD.txt"), "real");
        // What each entry is once resolved: `unknown` means "lstat the name".
        const resolved: string[] = [];
        for (const entry of port.readDir(dir)) {
          const kind = entry.kind === "unknown" ? port.lstat(join(dir, entry.name))?.kind : entry.kind;
          if (kind !== undefined) resolved.push(`${entry.name}:${kind}`);
        }
        assert.deepEqual(resolved, ["odd\uFFFD.txt:file"]);
        const paced = await port.readDirPaced(dir, () => Promise.resolve());
        assert.deepEqual(
          paced.map((e) => `${e.name}:${e.kind}`).sort(),
          port.readDir(dir).map((e) => `${e.name}:${e.kind}`).sort(),
        );
        const handle = port.openRead(join(dir, "odd\uFFFD.txt"));
        try {
          assert.equal(readAll(handle), "real");
        } finally {
          handle.close();
        }
      });
    },
  );

  test(
    title("holdDirectory keeps a directory's inode number from going to one re-created at its path"),
    () => {
      inTemp((dir) => {
        const path = join(dir, "root");
        mkdirSync(path);
        writeFileSync(join(dir, "file.txt"), "x");
        const hold = port.holdDirectory(path);
        try {
          const held = hold.stat();
          assert.equal(held.kind, "directory");
          assert.equal(held.ino, port.lstat(path)?.ino);
          rmSync(path, { recursive: true });
          mkdirSync(path);
          assert.notEqual(port.lstat(path)?.ino, held.ino, "the re-created directory is another inode");
          assert.equal(hold.stat().ino, held.ino);
        } finally {
          hold.close();
          hold.close(); // safe twice
        }
        assert.equal(codeOf(() => port.holdDirectory(join(dir, "file.txt"))), "not_directory");
        assert.equal(codeOf(() => port.holdDirectory(join(dir, "missing"))), "not_found");
      });
    },
  );

  test(title("stat() of an open handle is the file's: size, ino, dev, kind, nlink after a hard link"), () => {
    inTemp((dir) => {
      const path = join(dir, "a.txt");
      writeFileSync(path, "hello");
      const handle = port.openRead(path);
      try {
        const before = handle.stat();
        const seen = statSync(path, { bigint: true });
        assert.equal(before.kind, "file");
        assert.equal(before.size, 5);
        assert.equal(before.ino, seen.ino);
        assert.equal(before.dev, seen.dev);
        assert.equal(before.nlink, 1);
        assert.equal(before.mode, Number(seen.mode) & 0o7777);
        // Deno reports milliseconds (scaled to ns); the two agree within one.
        const drift = before.mtimeNs - seen.mtimeNs;
        assert.ok(drift > -1_000_000n && drift < 1_000_000n, `mtime differs by ${drift} ns`);
        assert.deepEqual(port.lstat(path), handle.stat());

        linkSync(path, join(dir, "b.txt"));
        writeFileSync(join(dir, "b.txt"), "hello, again");
        const after = handle.stat();
        assert.equal(after.nlink, 2);
        assert.equal(after.size, 12);
        assert.equal(after.ino, before.ino);
        assert.equal(port.lstat(join(dir, "b.txt"))?.ino, before.ino);
      } finally {
        handle.close();
      }
    });
  });

  test(title("lstat does not follow links and returns null for missing paths"), () => {
    inTemp((dir) => {
      writeFileSync(join(dir, "a.txt"), "abc");
      mkdirSync(join(dir, "sub"));
      symlinkSync("a.txt", join(dir, "link"));
      assert.equal(port.lstat(join(dir, "missing")), null);
      assert.equal(port.lstat(join(dir, "missing", "deeper")), null);
      assert.equal(port.lstat(join(dir, "a.txt", "under-a-file")), null);
      assert.equal(port.lstat(join(dir, "link"))?.kind, "symlink");
      assert.equal(port.lstat(join(dir, "sub"))?.kind, "directory");
      const file = port.lstat(join(dir, "a.txt"));
      assert.equal(file?.kind, "file");
      assert.equal(file?.size, 3);
      assert.equal(port.realPath(join(dir, "link")), port.realPath(join(dir, "a.txt")));
    });
  });

  test(title("createExclusive fails with exists on a file, a link and a dangling link"), () => {
    inTemp((dir) => {
      writeFileSync(join(dir, "a.txt"), "keep");
      symlinkSync("a.txt", join(dir, "link"));
      symlinkSync("would-be-created", join(dir, "dangling"));
      for (const name of ["a.txt", "link", "dangling"]) {
        assert.equal(codeOf(() => port.createExclusive(join(dir, name))), "exists", name);
        assert.equal(codeOf(() => port.createExclusive(join(dir, name), 0o600)), "exists", name);
      }
      assert.equal(readFileSync(join(dir, "a.txt"), "utf8"), "keep");
      assert.equal(lstatSync(join(dir, "dangling")).isSymbolicLink(), true);
      assert.equal(port.lstat(join(dir, "would-be-created")), null, "nothing created through the link");
    });
  });

  test(
    title("given its root, a port that proves its reads never reads, opens or creates through a link"),
    () => {
      inTemp((temp) => {
        const dir = realpathSync(temp); // the root's real path, as `openRoot` pins it
        mkdirSync(join(dir, "real", "sub"), { recursive: true });
        writeFileSync(join(dir, "real", "sub", "g.txt"), "");
        writeFileSync(join(dir, "real", "f.txt"), "x");
        symlinkSync(join(dir, "real"), join(dir, "link"));
        const anchor = { root: dir, rootInfo: port.lstat(dir)! };
        const info = port.lstat(join(dir, "real", "sub"))!; // as a walk lstats it: the same through the link
        const outcome = (fn: () => unknown) => {
          try {
            return fn();
          } catch (error) {
            assert.ok(error instanceof FsError, `expected an FsError, got ${error}`);
            return error.code;
          }
        };
        const through = (at: string) => [
          outcome(() => port.readDir(join(dir, at, "sub"), { ...anchor, info }).map((e) => e.name)),
          outcome(() => port.openRead(join(dir, at, "f.txt"), anchor).close()),
          outcome(() => port.createExclusive(join(dir, at, `new-${at}.txt`), undefined, anchor).close()),
        ];
        if (port.pacedReadsProven) {
          assert.deepEqual(through("link"), ["not_directory", "not_directory", "not_directory"]);
          assert.deepEqual(readdirSync(join(dir, "real")).sort(), ["f.txt", "sub"], "nothing created");
          // Another root than the pinned one: refused too.
          const other = { root: dir, rootInfo: info };
          assert.equal(outcome(() => port.openRead(join(dir, "real", "f.txt"), other)), "changed");
        } else {
          // Read by path, whatever it leads to: the caller must prove the read (see `Root`).
          assert.deepEqual(through("link"), [["g.txt"], undefined, undefined]);
        }
        assert.deepEqual(through("real"), [["g.txt"], undefined, undefined]);
      });
    },
  );

  test(title("createExclusive writes a new file; with mode it gets exactly that mode despite umask"), () => {
    withUmask(0o077, (umask) => {
      inTemp((dir) => {
        const plain = port.createExclusive(join(dir, "plain.txt"));
        try {
          plain.writeAll(new TextEncoder().encode("written"));
          plain.sync();
          assert.equal(plain.stat().size, 7);
        } finally {
          plain.close();
          plain.close(); // safe twice
        }
        assert.equal(readFileSync(join(dir, "plain.txt"), "utf8"), "written");
        assert.equal(
          statSync(join(dir, "plain.txt")).mode & 0o777,
          0o666 & ~umask,
          "without mode, umask applies",
        );

        for (const [i, mode] of [0o644, 0o666, 0o640, 0o755, 0o777].entries()) {
          const path = join(dir, `m${i}.txt`);
          const handle = port.createExclusive(path, mode);
          try {
            assert.equal(handle.stat().mode, mode);
          } finally {
            handle.close();
          }
          assert.equal(statSync(path).mode & 0o7777, mode, mode.toString(8));
        }
      });
    });
  });

  test(title("rename replaces the target, a link at the target included, and remove deletes files"), () => {
    inTemp((dir) => {
      writeFileSync(join(dir, "new.txt"), "new");
      writeFileSync(join(dir, "old.txt"), "old");
      const ino = port.lstat(join(dir, "new.txt"))?.ino;
      port.rename(join(dir, "new.txt"), join(dir, "old.txt"));
      assert.equal(readFileSync(join(dir, "old.txt"), "utf8"), "new");
      assert.equal(port.lstat(join(dir, "old.txt"))?.ino, ino);
      assert.equal(port.lstat(join(dir, "new.txt")), null);

      writeFileSync(join(dir, "elsewhere.txt"), "untouched");
      symlinkSync("elsewhere.txt", join(dir, "link"));
      writeFileSync(join(dir, "replacement.txt"), "replacement");
      port.rename(join(dir, "replacement.txt"), join(dir, "link"));
      assert.equal(port.lstat(join(dir, "link"))?.kind, "file");
      assert.equal(readFileSync(join(dir, "link"), "utf8"), "replacement");
      assert.equal(readFileSync(join(dir, "elsewhere.txt"), "utf8"), "untouched");
      assert.equal(codeOf(() => port.rename(join(dir, "missing"), join(dir, "x"))), "not_found");

      symlinkSync("elsewhere.txt", join(dir, "link2"));
      port.remove(join(dir, "link2"));
      assert.equal(port.lstat(join(dir, "link2")), null);
      assert.equal(readFileSync(join(dir, "elsewhere.txt"), "utf8"), "untouched", "remove does not follow");
      port.remove(join(dir, "old.txt"));
      assert.equal(port.lstat(join(dir, "old.txt")), null);
      assert.equal(codeOf(() => port.remove(join(dir, "old.txt"))), "not_found");
    });
  });

  test(
    title("remove refuses a directory"),
    {
      skip: nodePortOnDeno("Deno's node:fs unlinkSync removes an empty directory (Node's fails with EISDIR)"),
    },
    () => {
      inTemp((dir) => {
        mkdirSync(join(dir, "empty"));
        assert.equal(codeOf(() => port.remove(join(dir, "empty"))), "not_regular");
        assert.equal(port.lstat(join(dir, "empty"))?.kind, "directory");
      });
    },
  );
}
