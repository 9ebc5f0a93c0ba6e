/**
 * Deterministic benchmark corpora, built once and cached under
 * `$TMPDIR/ptc-fs-mcp-bench/`. Each corpus is a directory `<name>/` (the
 * served root) with a marker `<name>.done` beside it (outside the root),
 * written last and holding the generator's spec: a corpus whose marker is
 * missing or different is removed and built again.
 *
 * @module
 */
import { mulberry32 } from "../../tests/_rng.ts";
import { linePool, NEEDLE, textOf, WORDS } from "./text.ts";

export { NEEDLE };

/** Bumped whenever a generator changes, so cached corpora are rebuilt. */
const GENERATOR_VERSION = 1;

/** The cache directory. */
export const CACHE_DIR = `${(Deno.env.get("TMPDIR") ?? "/tmp").replace(/\/$/, "")}/ptc-fs-mcp-bench`;

/** The file-name word that about 10% of tree files carry; `search_files` looks for it. */
export const TREE_QUERY = "-iris.";

const TREE_WORDS = ["apple", "birch", "cedar", "delta", "ember", "fjord", "grove", "haven", "iris", "jade"];

/** Sizes of every corpus; `quick` makes them small. */
export interface Sizes {
  textFiles: number;
  textFileBytes: number;
  /** Files per leaf of the 1,000-leaf tree: 100 makes the 100,000-file tree. */
  treeLeafFiles: number;
  readBytes: number;
  smallFiles: number;
  /** Rounds of fresh processes for the per-call latencies. */
  callRounds: number;
  /** Growth figures: files per leaf of each tree, bytes of each read, files of each line-length corpus. */
  growthLeafFiles: number[];
  growthReadBytes: number[];
  growthLineFiles: number;
  /** Names in the one big directory. */
  bigDirNames: number;
}

const MIB = 1024 * 1024;

/** The full sizes of the issue, and the `--quick` ones. */
export const FULL: Sizes = {
  textFiles: 2_000,
  textFileBytes: 128 * 1024,
  treeLeafFiles: 100,
  readBytes: 64 * MIB,
  smallFiles: 500,
  callRounds: 5,
  growthLeafFiles: [1, 10, 100],
  growthReadBytes: [MIB, 8 * MIB, 64 * MIB],
  growthLineFiles: 32,
  bigDirNames: 160_000,
};
export const QUICK: Sizes = {
  textFiles: 200,
  textFileBytes: 128 * 1024,
  treeLeafFiles: 10,
  readBytes: 8 * MIB,
  smallFiles: 100,
  callRounds: 2,
  growthLeafFiles: [1, 10],
  growthReadBytes: [MIB, 8 * MIB],
  growthLineFiles: 8,
  bigDirNames: 20_000,
};

function exists(path: string): boolean {
  try {
    Deno.lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Returns the root of a cached corpus, building it first when its marker is
 * missing or names another spec.
 */
async function cached(name: string, spec: unknown, build: (root: string) => void | Promise<void>) {
  await Deno.mkdir(CACHE_DIR, { recursive: true });
  const root = `${CACHE_DIR}/${name}`;
  const marker = `${root}.done`;
  const want = JSON.stringify({ version: GENERATOR_VERSION, spec });
  let have = "";
  try {
    have = await Deno.readTextFile(marker);
  } catch { /* not built */ }
  if (have === want && exists(root)) return root;
  console.error(`bench: building corpus ${name} in ${CACHE_DIR} ...`);
  const t0 = performance.now();
  await Deno.remove(marker).catch(() => {});
  await Deno.remove(root, { recursive: true }).catch(() => {});
  await Deno.mkdir(root, { recursive: true });
  await build(root);
  await Deno.writeTextFile(marker, want);
  console.error(`bench: built ${name} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return root;
}

/** The search_text corpus: `files` files of about `fileBytes` in 100-file directories; ~1 in 40 has the needle. */
export function textCorpus(files: number, fileBytes: number): Promise<string> {
  return cached(`text-${files}x${fileBytes}`, { files, fileBytes, NEEDLE }, (root) => {
    const pool = linePool(1, 40_000);
    const rand = mulberry32(2);
    for (let i = 0; i < files; i++) {
      const dir = `${root}/d${String(Math.floor(i / 100)).padStart(2, "0")}`;
      if (i % 100 === 0) Deno.mkdirSync(dir);
      const needles = rand() < 1 / 40 ? 1 + Math.floor(rand() * 3) : 0;
      Deno.writeTextFileSync(
        `${dir}/f${String(i).padStart(5, "0")}.txt`,
        textOf(pool, rand, fileBytes, needles),
      );
    }
  });
}

/** The name of file `i` of the big directory: numbered in a scrambled order, so no read returns them sorted. */
export function bigDirName(i: number, names: number): string {
  return `n${String(Math.imul(i, 7_919) % names).padStart(6, "0")}-${i % 7}.txt`;
}

/** One directory `big` of `names` empty files (`bigDirName`). */
export function bigDirCorpus(names: number): Promise<string> {
  return cached(`bigdir-${names}`, { names }, (root) => {
    Deno.mkdirSync(`${root}/big`);
    for (let i = 0; i < names; i++) {
      Deno.writeFileSync(`${root}/big/${bigDirName(i, names)}`, new Uint8Array());
    }
  });
}

/** The tree shape: three directory levels (a, b, c) and files in the leaves. */
export interface TreeShape {
  a: number;
  b: number;
  c: number;
  files: number;
}

/** The 1,000-leaf tree with `files` files per leaf. */
export const tree = (files: number): TreeShape => ({ a: 10, b: 10, c: 10, files });

/** The 1,000,000-file tree. */
export const TREE_HUGE: TreeShape = { a: 10, b: 10, c: 100, files: 100 };

/** The name of file `i` in leaf `leaf`; about 10% carry `-iris.`. */
export function treeFileName(leaf: number, i: number): string {
  const h = Math.imul(leaf * 1_000_003 + i * 7_919 + 12_345, 2_654_435_761) >>> 0;
  return `f${String(i).padStart(3, "0")}-${TREE_WORDS[(h >>> 8) % TREE_WORDS.length]}.dat`;
}

/** Every leaf directory of a tree, in creation order. */
export function treeLeaves(shape: TreeShape): string[] {
  const pad = (n: number, max: number) => String(n).padStart(String(max - 1).length, "0");
  const leaves: string[] = [];
  for (let a = 0; a < shape.a; a++) {
    for (let b = 0; b < shape.b; b++) {
      for (let c = 0; c < shape.c; c++) {
        leaves.push(`a${pad(a, shape.a)}/b${pad(b, shape.b)}/c${pad(c, shape.c)}`);
      }
    }
  }
  return leaves;
}

/** A tree of empty files. */
export function treeCorpus(shape: TreeShape): Promise<string> {
  const total = shape.a * shape.b * shape.c * shape.files;
  return cached(`tree-${total}-${shape.a}.${shape.b}.${shape.c}.${shape.files}`, shape, (root) => {
    const empty = new Uint8Array(0);
    const leaves = treeLeaves(shape);
    let made = 0;
    for (let l = 0; l < leaves.length; l++) {
      const dir = `${root}/${leaves[l]}`;
      Deno.mkdirSync(dir, { recursive: true });
      for (let i = 0; i < shape.files; i++) {
        Deno.writeFileSync(`${dir}/${treeFileName(l, i)}`, empty);
      }
      made += shape.files;
      if (total >= 200_000 && l % 500 === 499) {
        console.error(`bench:   ${made.toLocaleString("en-US")} / ${total.toLocaleString("en-US")} files`);
      }
    }
  });
}

/** One UTF-8 text file of about `bytes` bytes, named `big.txt`. */
export function readCorpus(bytes: number): Promise<string> {
  return cached(`read-${bytes}`, { bytes }, async (root) => {
    const pool = linePool(3, 50_000);
    const rand = mulberry32(4);
    const file = await Deno.open(`${root}/big.txt`, { write: true, create: true });
    let written = 0;
    while (written < bytes) {
      const chunk = new TextEncoder().encode(textOf(pool, rand, Math.min(1024 * 1024, bytes - written)));
      await file.write(chunk);
      written += chunk.length;
    }
    file.close();
  });
}

/** `count` small text files (1-4 KiB) in one directory `s/`. */
export function smallCorpus(count: number): Promise<string> {
  return cached(`small-${count}`, { count }, (root) => {
    const pool = linePool(5, 5_000);
    const rand = mulberry32(6);
    Deno.mkdirSync(`${root}/s`);
    for (let i = 0; i < count; i++) {
      const size = 1024 + Math.floor(rand() * 3072);
      Deno.writeTextFileSync(`${root}/s/f${String(i).padStart(4, "0")}.txt`, textOf(pool, rand, size));
    }
  });
}

/**
 * `files` ASCII files of about 1 MB each whose lines are all `lineBytes`
 * long (one line per file at 1 MB); the needle sits in one line of every
 * fourth file.
 */
export function lineCorpus(lineBytes: number, files: number): Promise<string> {
  return cached(`lines-${lineBytes}x${files}`, { lineBytes, files, NEEDLE }, (root) => {
    const rand = mulberry32(7);
    const ascii = WORDS.filter((w) => /^[a-z]+$/.test(w));
    const words: string[] = [];
    for (let n = 0; n < 2 * lineBytes + 65_536; n += words[words.length - 1].length + 1) {
      words.push(ascii[Math.floor(rand() * ascii.length)]);
    }
    const text = words.join(" ");
    const perFile = Math.max(1, Math.round(1_000_000 / (lineBytes + 1)));
    for (let f = 0; f < files; f++) {
      const needleLine = f % 4 === 0 ? Math.floor(rand() * perFile) : -1;
      const lines: string[] = [];
      for (let i = 0; i < perFile; i++) {
        const at = Math.floor(rand() * (text.length - lineBytes));
        let line = text.slice(at, at + lineBytes);
        if (i === needleLine) {
          const p = Math.floor(rand() * (lineBytes - NEEDLE.length));
          line = line.slice(0, p) + NEEDLE + line.slice(p + NEEDLE.length);
        }
        lines.push(line);
      }
      Deno.writeTextFileSync(`${root}/f${String(f).padStart(3, "0")}.txt`, lines.join("\n") + "\n");
    }
  });
}

/** Two files for the per-call floor: `tiny.txt` (3 bytes) and `page.txt` (about 22 KB of UTF-8 text, one page). */
export function floorCorpus(): Promise<string> {
  return cached("floor", { tiny: 3, page: 22_000 }, (root) => {
    Deno.writeTextFileSync(`${root}/tiny.txt`, "ok\n");
    Deno.writeTextFileSync(`${root}/page.txt`, textOf(linePool(8, 2_000), mulberry32(9), 22_000));
  });
}
