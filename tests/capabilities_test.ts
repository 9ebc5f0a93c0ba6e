/**
 * The platform check: a port whose runtime lacks the no-follow or
 * non-blocking open says so, and `openRoot` refuses it. The flags are taken
 * away from a copy of `fs.constants`, so this runs on any platform.
 *
 * @module
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { ConfigError, type FsPort, openRoot } from "../mod.ts";
import { missingOpenFlags } from "../src/ports/capabilities.ts";
import { nodePort } from "../src/ports/node.ts";

/** `fs.constants` without `names`, as a platform that lacks them has it. */
function without(...names: string[]): Record<string, unknown> {
  const constants: Record<string, unknown> = { ...fs.constants };
  for (const name of names) delete constants[name];
  return constants;
}

test("missingOpenFlags names each missing no-follow or non-blocking flag in one line", () => {
  assert.equal(missingOpenFlags(fs.constants), undefined, "this platform has both (Linux is what is tested)");
  const noFollow = missingOpenFlags(without("O_NOFOLLOW"));
  assert.equal(
    noFollow,
    "cannot start on this platform: node:fs has no O_NOFOLLOW, without which opening a file could follow " +
      "a symbolic link or hang on a FIFO (Windows is not supported)",
  );
  assert.match(missingOpenFlags(without("O_NONBLOCK")) ?? "", /has no O_NONBLOCK, /);
  assert.match(
    missingOpenFlags(without("O_NOFOLLOW", "O_NONBLOCK")) ?? "",
    /has no O_NOFOLLOW and O_NONBLOCK, /,
  );
  // Node on Windows: its docs list only these open flags there.
  const windows = {
    O_RDONLY: 0,
    O_WRONLY: 1,
    O_RDWR: 2,
    O_APPEND: 8,
    O_CREAT: 256,
    O_TRUNC: 512,
    O_EXCL: 1024,
    UV_FS_O_FILEMAP: 0x20000000,
  };
  assert.match(missingOpenFlags(windows) ?? "", /has no O_NOFOLLOW and O_NONBLOCK, /);
  assert.match(missingOpenFlags({ ...fs.constants, O_NOFOLLOW: undefined }) ?? "", /has no O_NOFOLLOW, /);
  assert.ok(!noFollow?.includes("\n"));
});

test("the Node port serves on this platform, which has both flags", () => {
  // A check wired to the wrong object (or inverted) would refuse Linux and fail here.
  assert.equal(typeof fs.constants.O_NOFOLLOW, "number");
  assert.equal(nodePort.unsupported, undefined);
});

test("openRoot refuses a port that cannot serve here, before it touches the filesystem", () => {
  const touched: string[] = [];
  const reason = missingOpenFlags(without("O_NOFOLLOW"));
  const port: FsPort = {
    ...nodePort,
    unsupported: reason,
    realPath: (path) => (touched.push(path), nodePort.realPath(path)),
    lstat: (path) => (touched.push(path), nodePort.lstat(path)),
  };
  assert.throws(
    () => openRoot({ root: ".", include: ["**"], fs: port }),
    (error: unknown) =>
      error instanceof ConfigError && error.message === reason && error.option === undefined,
  );
  assert.deepEqual(touched, []);
  // The same port with the flag present opens the root.
  assert.equal(
    openRoot({ root: ".", include: ["**"], fs: { ...port, unsupported: undefined } }).fs.unsupported,
    undefined,
  );
  assert.ok(touched.length > 0);
});
