/**
 * Deterministic generated text for the corpora: a seeded PRNG and lines of
 * words (ASCII, accented, CJK, Greek, Cyrillic, an emoji), so the same
 * corpus comes out on every machine.
 *
 * @module
 */
import { mulberry32 } from "../../tests/_rng.ts";

/** The rare needle of the text corpus; no generated word can form it. */
export const NEEDLE = "Qz7NeedleX9";

/** The words of generated lines. */
export const WORDS = (
  "the of and to in is that for it as with was on be at by this had not are but from or have an " +
  "they which one you were all we her she there would their will when who him been has more if no " +
  "out so said what up its about into than them can only other new some could time these two may " +
  "then do first any my now such like our over man me even most made after also did many before " +
  "must through back years where much your way function return const value buffer index result " +
  "error count string café naïve Grüße smörgåsbord façade 日本語 中文 Ελληνικά русский 😀 →"
).split(" ");

/** A pool of generated text lines (without newlines). */
export function linePool(seed: number, count: number): string[] {
  const rand = mulberry32(seed);
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
export function textOf(pool: string[], rand: () => number, bytes: number, needles = 0): string {
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
