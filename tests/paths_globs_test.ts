import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import process from "node:process";
import fc from "fast-check";
import { nameableIn } from "../src/paths.ts";
import {
  compileGlob,
  ConfigError,
  createSelector,
  DEFAULT_LIMITS,
  normalizeRelative,
  openRoot,
} from "../mod.ts";

const LONG_PATH = Array.from({ length: 21 }, () => "d".repeat(200)).join("/"); // 4,220 bytes

const REJECTED: [string, string][] = [
  ["absolute", "/etc/passwd"],
  ["the root as an absolute path", "/"],
  ["a double leading slash", "//server/share"],
  ["a lone '.'", "."],
  ["a lone '..'", ".."],
  ["a leading './'", "./a.txt"],
  ["a trailing '/.'", "a/."],
  ["a '.' in the middle", "a/./b"],
  ["a leading '..'", "../etc/passwd"],
  ["a trailing '..'", "a/.."],
  ["a '..' in the middle", "a/../b"],
  ["an empty segment", "a//b"],
  ["a trailing slash", "a/"],
  ["a trailing slash after a directory", "a/b/"],
  ["a NUL byte", "a\0b"],
  ["a lone NUL byte", "\0"],
  ["a backslash", "a\\b"],
  ["a leading backslash", "\\a"],
  ["a backslash-separated '..'", "..\\x"],
  ["a drive prefix", "C:x"],
  ["a lowercase drive with a backslash", "c:\\x"],
  ["a drive with a slash", "C:/x"],
  ["a bare drive", "z:"],
  ["a path over maxPathBytes", LONG_PATH],
  ["a path over maxPathBytes in bytes (not characters)", "é".repeat(DEFAULT_LIMITS.maxPathBytes / 2 + 1)],
  ["a 256-byte segment", "x".repeat(256)],
  ["a 256-byte segment of two-byte characters", `ok/${"é".repeat(128)}/a`],
];

const ACCEPTED: string[] = [
  "a",
  "a/b/c.txt",
  "ünïcødé/文件.md",
  "emoji/🙂.txt",
  "a..b",
  "..a",
  "a..",
  "...",
  ".env",
  ".hidden/.x",
  "a b/c d.txt",
  "ab:c",
  "1:x",
  "x".repeat(255),
  `ok/${"é".repeat(127)}/a`,
  Array.from({ length: 20 }, () => "d".repeat(200)).join("/"), // 4,019 bytes
];

test("normalizeRelative rejects every unsafe path form", () => {
  for (const [why, path] of REJECTED) {
    assert.equal(normalizeRelative(path), null, `${why}: ${JSON.stringify(path.slice(0, 40))}`);
  }
});

test("normalizeRelative accepts ordinary relative paths unchanged, and '' names the root", () => {
  for (const path of ACCEPTED) assert.equal(normalizeRelative(path), path, JSON.stringify(path));
  assert.equal(normalizeRelative(""), "");
});

test("normalizeRelative measures its path limit in UTF-8 bytes", () => {
  assert.equal(normalizeRelative("abc", 3), "abc");
  assert.equal(normalizeRelative("abcd", 3), null);
  assert.equal(normalizeRelative("é", 2), "é");
  assert.equal(normalizeRelative("éa", 2), null);
});

/** [pattern, path, matches] */
const GLOBS: [string, string, boolean][] = [
  // A trailing `**` matches one or more segments.
  ["lib/**", "lib/a.ts", true],
  ["lib/**", "lib/deep/a.ts", true],
  ["lib/**", "lib/.hidden", true],
  ["lib/**", "lib", false],
  ["lib/**", "libx/a.ts", false],
  ["lib/**", "src/lib/a.ts", false],
  // `*` stays inside one segment.
  ["*.md", "a.md", true],
  ["*.md", "README.md", true],
  ["*.md", ".md", true],
  ["*.md", "docs/a.md", false],
  ["*.md", "a.mdx", false],
  ["*.md", "a.md.txt", false],
  ["*", "a/b", false],
  ["*/*.ts", "a/b.ts", true],
  ["*/*.ts", "b.ts", false],
  ["*/*.ts", "a/c/b.ts", false],
  ["a*b*c", "abc", true],
  ["a*b*c", "aXXbYYc", true],
  ["a*b*c", "a/b/c", false],
  // A leading or middle `**` matches zero or more segments.
  ["**/secrets/**", "secrets/a", true],
  ["**/secrets/**", "x/secrets/a", true],
  ["**/secrets/**", "x/y/secrets/z/w", true],
  ["**/secrets/**", "secrets", false],
  ["**/secrets/**", "x/secrets", false],
  ["**/secrets/**", "mysecrets/a", false],
  ["**/secrets/**", "secrets2/a", false],
  ["**/a.md", "a.md", true],
  ["**/a.md", "x/y/a.md", true],
  ["**/a.md", "xa.md", false],
  ["**/a.md", "x/ba.md", false],
  ["a/**/b", "a/b", true],
  ["a/**/b", "a/x/y/b", true],
  ["a/**/b", "ab", false],
  ["a/**/b", "a/b/c", false],
  ["a/**/b", "a/xb", false],
  ["**", "a", true],
  ["**", "a/b/c", true],
  ["**/**", "a", true],
  // Dot-files get no special treatment.
  ["**", ".env", true],
  ["**", "deep/.git/config", true],
  ["*", ".env", true],
  [".*", ".env", true],
  [".*", "env", false],
  [".*", ".git/config", false],
  ["**/.git/**", ".git/HEAD", true],
  ["**/.git/**", "a/.git/HEAD", true],
  // Unicode names.
  ["文件/*.md", "文件/说明.md", true],
  ["文件/*.md", "文件/a/说明.md", false],
  ["*é*", "café", true],
  ["*é*", "cafe", false],
  ["*🙂", "hi🙂", true],
  ["*🙂", "hi🙃", false],
  // Regular-expression metacharacters are literal.
  ["a+b(1).[x]$^{}|", "a+b(1).[x]$^{}|", true],
  ["a+b(1).[x]$^{}|", "aab(1).[x]$^{}|", false],
  ["a+b(1).[x]$^{}|", "a+b1.[x]$^{}|", false],
  ["*.[x]", "f.[x]", true],
  ["*.[x]", "f.x", false],
  ["a?b", "a?b", true],
  ["a?b", "axb", false],
  ["{a,b}.md", "{a,b}.md", true],
  ["{a,b}.md", "a.md", false],
  ["a.b", "axb", false],
  ["(a|b)", "a", false],
  ["!x", "!x", true],
  ["x", "!x", false],
];

test("compileGlob matches the documented grammar", () => {
  assert.ok(GLOBS.length >= 40);
  for (const [pattern, path, expected] of GLOBS) {
    assert.equal(compileGlob(pattern).test(path), expected, `${pattern} vs ${path}`);
  }
});

const BAD_GLOBS: [string, string][] = [
  ["empty", ""],
  ["absolute", "/abs/**"],
  ["the root alone", "/"],
  ["a drive prefix", "C:x"],
  ["a '.' segment", "./a"],
  ["a '..' segment", "a/../b"],
  ["a trailing '..'", "a/.."],
  ["a backslash", "a\\b"],
  ["a NUL", "a\0b"],
  ["'**' glued after text", "a**"],
  ["'**' glued before text", "**b"],
  ["'**' inside a middle segment", "a/x**y/c"],
  ["three stars", "***"],
  ["an empty segment", "a//b"],
  ["a trailing slash", "a/"],
];

test("compileGlob throws ConfigError for every invalid pattern", () => {
  for (const [why, pattern] of BAD_GLOBS) {
    assert.throws(() => compileGlob(pattern), ConfigError, `${why}: ${JSON.stringify(pattern)}`);
    assert.throws(() => createSelector([pattern]), ConfigError, `include, ${why}`);
    assert.throws(() => createSelector(["**"], [pattern]), ConfigError, `exclude, ${why}`);
  }
});

test("createSelector serves what some include matches and no exclude matches", () => {
  const selector = createSelector(["lib/**", "*.md"], ["**/secrets/**", "**/*.key"]);
  assert.equal(selector.isServed("lib/a.ts"), true);
  assert.equal(selector.isServed("lib/deep/a.ts"), true);
  assert.equal(selector.isServed("README.md"), true);
  assert.equal(selector.isServed("lib/secrets/token"), false);
  assert.equal(selector.isServed("lib/x/secrets/token"), false);
  assert.equal(selector.isServed("lib/server.key"), false);
  assert.equal(selector.isServed("lib"), false);
  assert.equal(selector.isServed("docs/a.md"), false);
  assert.equal(selector.isServed("a.ts"), false);
});

test("createSelector prunes directories that no include reaches or an exclude covers", () => {
  const selector = createSelector(["lib/**", "*.md"], ["**/secrets/**"]);
  assert.equal(selector.mayContain(""), true);
  assert.equal(selector.mayContain("lib"), true);
  assert.equal(selector.mayContain("lib/deep"), true);
  assert.equal(selector.mayContain("docs"), false); // `*.md` is root-level only
  assert.equal(selector.mayContain("src"), false);
  assert.equal(selector.mayContain("lib/secrets"), false);
  assert.equal(selector.mayContain("lib/a/secrets/b"), false);
  assert.equal(selector.mayContain("lib/secretsx"), true);

  assert.equal(selector.isExcludedDir("secrets"), true);
  assert.equal(selector.isExcludedDir("lib/secrets"), true);
  assert.equal(selector.isExcludedDir("lib/secrets/sub"), true);
  assert.equal(selector.isExcludedDir("lib"), false);
  assert.equal(selector.isExcludedDir("secretsx"), false);
  assert.equal(selector.isExcludedDir(""), false);

  const deep = createSelector(["**/*.md"]);
  assert.equal(deep.mayContain("any/deep/dir"), true);
  assert.equal(deep.isServed("any/deep/dir/a.md"), true);
  assert.equal(deep.isServed("any/deep/dir/a.txt"), false);
});

test("createSelector: a trailing '**' exclude covers a directory's contents and its name", () => {
  const selector = createSelector(["**"], ["build/**", "*.log"]);
  assert.equal(selector.isExcludedDir("build"), true);
  assert.equal(selector.mayContain("build"), false);
  assert.equal(selector.isServed("build/out.js"), false);
  // The name itself too, so an excluded directory's name is never statted to learn what it is.
  assert.equal(selector.isServed("build"), false);
  // `*.log` matches a path of one segment: a file, or a directory and so everything below it.
  assert.equal(selector.isServed("a.log"), false);
  assert.equal(selector.isExcludedDir("a.log"), true);
  assert.equal(selector.mayContain("a.log"), false);
  assert.equal(selector.isServed("a.log/x.txt"), false);
  assert.equal(selector.isServed("sub/a.log"), true);
  // Any run of trailing `/**` is the same exclude: `x/**/**` matches what `x/**` does.
  const repeated = createSelector(["**"], ["secrets/**/**", "**/vault/**/**"]);
  for (const path of ["secrets", "secrets/a", "vault", "d/vault", "d/vault/k"]) {
    assert.equal(repeated.isServed(path), false, path);
  }
  assert.equal(repeated.isExcludedDir("d/vault"), true);
  assert.equal(repeated.isServed("secretsx"), true);
});

test("createSelector: an exclude that matches a directory's path excludes everything below it", () => {
  const selector = createSelector(["**"], ["private", "*.key", "**/node_modules"]);
  for (
    const path of ["private", "private/key.txt", "private/a/b.txt", "top.key", "top.key/x", "node_modules"]
  ) {
    assert.equal(selector.isServed(path), false, path);
  }
  for (const path of ["x/node_modules/a.js", "x/y/node_modules/a/b.js", "a\nb.key/c"]) {
    assert.equal(selector.isServed(path), false, path);
  }
  for (
    const dir of ["private", "private/a", "top.key", "top.key/sub", "x/node_modules", "x/node_modules/a"]
  ) {
    assert.equal(selector.mayContain(dir), false, dir);
    assert.equal(selector.isExcludedDir(dir), true, dir);
  }
  // Only whole segments: a name that merely starts like an excluded one is served.
  for (const path of ["privatex/y.txt", "a/private/x.txt", "sub/top.key", "x/node_modulesx/a.js", "ok.txt"]) {
    assert.equal(selector.isServed(path), true, path);
  }
  assert.equal(selector.mayContain("privatex"), true);
  assert.equal(selector.mayContain(""), true);
  // `*` excludes every root-level path, and so everything, but never the root itself.
  const all = createSelector(["**"], ["*"]);
  assert.equal(all.isServed("a.txt"), false);
  assert.equal(all.isServed("a/b.txt"), false);
  assert.equal(all.isExcludedDir(""), false);
});

test("createSelector with no include serves nothing", () => {
  const selector = createSelector([], []);
  assert.equal(selector.isServed("a.txt"), false);
  assert.equal(selector.mayContain(""), false);
  assert.equal(selector.mayContain("lib"), false);
  assert.equal(selector.reachesRootLevel, false);
});

test("createSelector: servesAllBelow holds only where every path below is served and may be entered", () => {
  const named: [string[], string[], string, boolean][] = [
    [["**"], [], "", true],
    [["**"], [], "a/b", true],
    [["lib/**"], [], "", false],
    [["lib/**"], [], "lib", true],
    [["*.md"], [], "", false],
    [["**"], [".git/**"], "", false],
    [["**"], [".git/**"], "src", true],
    [["**"], [".git/**"], ".git", false],
    [["**"], ["**/secrets/**"], "src", false],
    [["**"], ["private"], "private/a", false],
  ];
  for (const [include, exclude, dir, expected] of named) {
    const got = createSelector(include, exclude).servesAllBelow(dir);
    assert.equal(got, expected, JSON.stringify({ include, exclude, dir }));
  }
  // Against the per-path answers the walker would otherwise ask, on random selections.
  const parts = ["a", "b", "lib", "x.md", ".git", "*", "*.md", "**", "secrets", "a*"];
  const random = (seed: number) => () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const next = random(42);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)];
  const glob = () => Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(parts)).join("/");
  const path = (n: number) =>
    Array.from({ length: n }, () => pick(["a", "b", "lib", "x.md", ".git"])).join("/");
  let held = 0;
  for (let i = 0; i < 3_000; i++) {
    let selector;
    try {
      selector = createSelector([glob()], next() < 0.5 ? [] : [glob()]);
    } catch {
      continue; // an invalid random glob
    }
    const dir = path(Math.floor(next() * 3));
    if (!selector.servesAllBelow(dir)) continue;
    held++;
    for (let k = 0; k < 5; k++) {
      const below = `${dir === "" ? "" : `${dir}/`}${path(1 + Math.floor(next() * 3))}`;
      assert.ok(selector.isServed(below) && selector.mayContain(below), JSON.stringify({ i, dir, below }));
    }
  }
  assert.ok(held > 50, `only ${held} random cases served everything below`);
});

test("createSelector reports whether some include can match a root-level file", () => {
  const cases: [string[], boolean][] = [
    [["lib/**"], false],
    [["a/*"], false],
    [["**/lib/**"], false],
    [[], false],
    [["**"], true],
    [["*.md"], true],
    [["**/a.md"], true],
    [["a.txt"], true],
    [["**/**"], true],
    [["lib/**", "notes.txt"], true],
  ];
  for (const [include, expected] of cases) {
    assert.equal(createSelector(include).reachesRootLevel, expected, JSON.stringify(include));
  }
});

test("openRoot pins the root by its real path and accepts valid options", () => {
  const dir = mkdtempSync(join(tmpdir(), "ptc-fs-mcp-paths-"));
  try {
    mkdirSync(join(dir, "real"));
    symlinkSync(join(dir, "real"), join(dir, "alias"));
    const root = openRoot({ root: join(dir, "alias"), include: ["**"], limits: { maxDepth: 3 } });
    assert.equal(root.path, realpathSync(join(dir, "real")));
    assert.equal(root.limits.maxDepth, 3);
    assert.equal(root.limits.maxResultBytes, DEFAULT_LIMITS.maxResultBytes);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("openRoot throws ConfigError for a bad glob or a bad limit, without naming the host path", () => {
  const dir = mkdtempSync(join(tmpdir(), "ptc-fs-mcp-paths-"));
  try {
    const bad: [string, () => unknown][] = [
      ["an empty root", () => openRoot({ root: "", include: ["**"] })],
      ["an invalid include", () => openRoot({ root: dir, include: ["a**"] })],
      ["an invalid exclude", () => openRoot({ root: dir, include: ["**"], exclude: ["/abs"] })],
      ["a zero limit", () => openRoot({ root: dir, include: ["**"], limits: { maxDepth: 0 } })],
      [
        "a fractional limit",
        () => openRoot({ root: dir, include: ["**"], limits: { maxResultBytes: 1.5e3 + 0.5 } }),
      ],
      [
        "a too-small result ceiling",
        () => openRoot({ root: dir, include: ["**"], limits: { maxResultBytes: 10 } }),
      ],
      ["an unknown limit", () => openRoot({ root: dir, include: ["**"], limits: { nope: 1 } as never })],
    ];
    for (const [why, open] of bad) {
      assert.throws(open, (error: unknown) => {
        assert.ok(error instanceof ConfigError, `${why}: ${error}`);
        assert.equal(error.message.includes(dir), false, `${why} leaks the host path: ${error.message}`);
        assert.equal(error.message.includes("\n"), false, why);
        return true;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("openRoot refuses options of the wrong shape with a ConfigError that names the option", () => {
  const dir = mkdtempSync(join(tmpdir(), "ptc-fs-mcp-paths-"));
  try {
    const cases: [unknown, string, string][] = [
      [{ root: dir, include: "**" }, "include", "include must be an array of glob strings"],
      [{ root: dir, include: [1] }, "include", "include must be an array of glob strings"],
      [{ root: dir, include: new Array(3) }, "include", "include must be an array of glob strings"],
      [{ root: dir, include: ["**"], exclude: "x" }, "exclude", "exclude must be an array of glob strings"],
      [{ root: dir, include: ["**"], exclude: [5] }, "exclude", "exclude must be an array of glob strings"],
      [{ root: dir, include: ["**"], limits: null }, "limits", "limits must be an object of limits"],
      [{ root: dir, include: ["**"], limits: [] }, "limits", "limits must be an object of limits"],
      [{ root: 5, include: ["**"] }, "root", "root must be a string"],
      [{ root: dir, include: [""] }, "include", 'include has an invalid glob "": it is empty'],
      [
        { root: dir, include: ["**"], exclude: ["a/**b"] },
        "exclude",
        `exclude has an invalid glob "a/**b": '**' must be a whole segment`,
      ],
      [
        { root: dir, include: ["\u001b/../x"] },
        "include",
        `include has an invalid glob "\\u001b/../x": it has a '.' or '..' segment`,
      ],
    ];
    for (const [options, option, message] of cases) {
      assert.throws(() => openRoot(options as never), (error: unknown) => {
        assert.ok(error instanceof ConfigError, `${JSON.stringify(options)}: ${error}`);
        assert.equal(error.option, option);
        assert.equal(error.message, message);
        return true;
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("openRoot names a missing root or a file as root by its absolute path, also when given relative", () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "ptc-fs-mcp-paths-")));
  try {
    writeFileSync(join(dir, "file.txt"), "x");
    const refusal = (root: string) => {
      try {
        openRoot({ root, include: ["**"] });
      } catch (error) {
        assert.ok(error instanceof ConfigError, String(error));
        assert.equal(error.option, "root");
        return error.message;
      }
      assert.fail(`opened ${root}`);
    };
    const missing = join(dir, "missing");
    const expected = `root ${JSON.stringify(missing)} does not exist or cannot be read`;
    assert.equal(refusal(missing), expected);
    // The caller's own argument, so it is no secret; relative, it is shown resolved.
    assert.equal(refusal(relative(process.cwd(), missing)), expected);
    assert.equal(
      refusal(join(dir, "file.txt")),
      `root ${JSON.stringify(join(dir, "file.txt"))} is not a directory`,
    );
    assert.equal(
      refusal(join(dir, "file.txt", "below")),
      `root ${JSON.stringify(join(dir, "file.txt", "below"))} does not exist or cannot be read`,
    );
    // A name with a newline stays on one line.
    assert.equal(
      refusal(join(dir, "a\nb")),
      `root ${JSON.stringify(join(dir, "a\nb"))} does not exist or cannot be read`,
    );
    assert.ok(!refusal(join(dir, "a\nb")).includes("\n"));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("openRoot refuses a configuration without an include glob: the default serves no file", () => {
  const dir = mkdtempSync(join(tmpdir(), "ptc-fs-mcp-paths-"));
  try {
    const message = "include must hold at least one glob; the default serves no file";
    for (
      const options of [
        { root: dir, include: [] },
        { root: dir } as never,
        undefined as never,
      ]
    ) {
      assert.throws(() => openRoot(options), (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error));
        assert.equal(error.message, message);
        return true;
      });
    }
    assert.equal(openRoot({ root: dir, include: ["*.md"] }).include.length, 1);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("nameableIn holds exactly when normalizeRelative accepts the entry's path", () => {
  // Names as a listing gives them: UTF-8, no NUL or `/`, not `.`/`..`, at most 255 bytes.
  const piece = fc.constantFrom(
    "a",
    "Z",
    ":",
    "\\",
    ".",
    "\u00e9",
    "\u20ac",
    "\u{1f600}",
    "c:",
    "x".repeat(60),
  );
  const name = fc.array(piece, { minLength: 1, maxLength: 6 }).map((p) => p.join(""))
    .filter((n) => n !== "." && n !== ".." && new TextEncoder().encode(n).length <= 255);
  const dir = fc.array(fc.constantFrom("d", "sub", "\u20ac".repeat(20), "x".repeat(90)), { maxLength: 4 })
    .map((s) => s.join("/"));
  fc.assert(
    fc.property(dir, name, fc.integer({ min: 1, max: 400 }), (dir, name, maxBytes) => {
      fc.pre(normalizeRelative(dir, 10_000) !== null);
      const path = dir === "" ? name : `${dir}/${name}`;
      assert.equal(nameableIn(dir, maxBytes)(name), normalizeRelative(path, maxBytes) !== null, path);
    }),
    { numRuns: 2_000 },
  );
});
