/**
 * Deterministic benchmark corpora, built once and cached under
 * `$TMPDIR/ptc-fs-mcp-bench/`. Each corpus is a directory `<name>/` (the
 * served root) with a marker `<name>.done` beside it (outside the root),
 * written last and holding the generator's spec: a corpus whose marker is
 * missing or different is removed and built again.
 *
 * @module
 */

/** Bumped whenever a generator changes, so cached corpora are rebuilt. */
const GENERATOR_VERSION = 1;

/** The cache directory. */
export const CACHE_DIR = `${(Deno.env.get("TMPDIR") ?? "/tmp").replace(/\/$/, "")}/ptc-fs-mcp-bench`;

/** The rare needle of the text corpus; no generated word can form it. */
export const NEEDLE = "Qz7NeedleX9";

/** The file-name word that about 10% of tree files carry; `search_files` looks for it. */
export const TREE_QUERY = "-iris.";

const TREE_WORDS = ["apple", "birch", "cedar", "delta", "ember", "fjord", "grove", "haven", "iris", "jade"];

const WORDS = [
  "the",
  "of",
  "and",
  "to",
  "in",
  "is",
  "that",
  "for",
  "it",
  "as",
  "with",
  "was",
  "on",
  "be",
  "at",
  "by",
  "this",
  "had",
  "not",
  "are",
  "but",
  "from",
  "or",
  "have",
  "an",
  "they",
  "which",
  "one",
  "you",
  "were",
  "all",
  "we",
  "her",
  "she",
  "there",
  "would",
  "their",
  "will",
  "when",
  "who",
  "him",
  "been",
  "has",
  "more",
  "if",
  "no",
  "out",
  "so",
  "said",
  "what",
  "up",
  "its",
  "about",
  "into",
  "than",
  "them",
  "can",
  "only",
  "other",
  "new",
  "some",
  "could",
  "time",
  "these",
  "two",
  "may",
  "then",
  "do",
  "first",
  "any",
  "my",
  "now",
  "such",
  "like",
  "our",
  "over",
  "man",
  "me",
  "even",
  "most",
  "made",
  "after",
  "also",
  "did",
  "many",
  "before",
  "must",
  "through",
  "back",
  "years",
  "where",
  "much",
  "your",
  "way",
  "function",
  "return",
  "const",
  "value",
  "buffer",
  "index",
  "result",
  "error",
  "count",
  "string",
  "café",
  "naïve",
  "Grüße",
  "smörgåsbord",
  "façade",
  "日本語",
  "中文",
  "Ελληνικά",
  "русский",
  "😀",
  "→",
];

/** A small fast deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A pool of generated text lines (without newlines). */
function linePool(seed: number, count: number): string[] {
  const rand = prng(seed);
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = 2 + Math.floor(rand() * 16);
    const words: string[] = [];
    for (let w = 0; w < n; w++) words.push(WORDS[Math.floor(rand() * WORDS.length)]);
    if (rand() < 0.03) words.push(""); // an occasional trailing space
    lines.push(rand() < 0.02 ? "" : words.join(" "));
  }
  return lines;
}

const encoder = new TextEncoder();

/** Text of about `bytes` UTF-8 bytes made of whole pool lines, from a random place in the pool. */
function textOf(pool: string[], rand: () => number, bytes: number, needles = 0): string {
  const lines: string[] = [];
  let size = 0;
  let at = Math.floor(rand() * pool.length);
  while (size < bytes) {
    const line = pool[at];
    at = (at + 1) % pool.length;
    const cost = encoder.encode(line).length + 1;
    if (size + cost > bytes && lines.length > 0) break;
    lines.push(line);
    size += cost;
  }
  for (let i = 0; i < needles; i++) {
    const where = Math.floor(rand() * lines.length);
    const words = lines[where].split(" ");
    words.splice(Math.floor(rand() * (words.length + 1)), 0, NEEDLE);
    lines[where] = words.join(" ");
  }
  return lines.join("\n") + "\n";
}

/** Sizes of every corpus; `quick` makes them small. */
export interface Sizes {
  textFiles: number;
  textFileBytes: number;
  treeLeafFiles: number;
  readBytes: number;
  smallFiles: number;
}

/** The full sizes of the issue, and the `--quick` ones. */
export const FULL: Sizes = {
  textFiles: 2_000,
  textFileBytes: 128 * 1024,
  treeLeafFiles: 100,
  readBytes: 64 * 1024 * 1024,
  smallFiles: 500,
};
export const QUICK: Sizes = {
  textFiles: 200,
  textFileBytes: 128 * 1024,
  treeLeafFiles: 10,
  readBytes: 8 * 1024 * 1024,
  smallFiles: 100,
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
    const rand = prng(2);
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

/** The tree shape: three directory levels (a, b, c) and files in the leaves. */
export interface TreeShape {
  a: number;
  b: number;
  c: number;
  files: number;
}

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
    const rand = prng(4);
    const file = await Deno.open(`${root}/big.txt`, { write: true, create: true });
    let written = 0;
    while (written < bytes) {
      const chunk = encoder.encode(textOf(pool, rand, Math.min(1024 * 1024, bytes - written)));
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
    const rand = prng(6);
    Deno.mkdirSync(`${root}/s`);
    for (let i = 0; i < count; i++) {
      const size = 1024 + Math.floor(rand() * 3072);
      Deno.writeTextFileSync(`${root}/s/f${String(i).padStart(4, "0")}.txt`, textOf(pool, rand, size));
    }
  });
}
