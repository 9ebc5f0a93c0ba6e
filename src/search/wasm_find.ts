/**
 * A substring search in WebAssembly SIMD, for a runtime whose `Buffer#indexOf` is not native code (Deno):
 * the bytes are copied, a block at a time, into memory the module owns, so a search allocates nothing per
 * block and leaves no garbage behind, however many bytes it reads (but for a block that defeats its filter,
 * which it searches as a string: see the budget below).
 *
 * The module is assembled here from named instructions, so it can be read. In the text format:
 *
 * ```wat
 * (func $find (param $hay i32) (param $len i32) (param $needle i32) (param $n i32) (result i32)
 *   ;; the first match of the $n bytes at $needle in the $len bytes at $hay, or -1; -2 once the bytes
 *   ;; compared past the first and last (each candidate's agreeing prefix, and one more) exceed $len + 4096
 *   (if (i32.lt_u $len $n) (return -1))
 *   $last := $len - $n                          ;; the last position a match can start at
 *   $budget := $len + 4096
 *   $firsts := i8x16.splat(needle[0])            ;; its first byte, 16 times
 *   $lasts := i8x16.splat(needle[$n - 1])        ;; its last byte, 16 times
 *   $steps := 4                                  ;; steps of 16 owed before a skip (a next match is often near)
 *   loop                                         ;; 16 positions at a time
 *     (if ($steps == 0)                          ;; but first, skip 64 at a time where no position is a candidate
 *       while ($i + 63 <= $last)
 *         (if (v128.any_true(OR over k in 0, 16, 32, 48 of
 *                            i8x16.eq(v128.load($hay + $i + k), $firsts)
 *                            & i8x16.eq(v128.load($hay + $i + k + $n - 1), $lasts)))
 *           ($steps := 4, break))                ;; a candidate among these 64: they go 16 at a time
 *         $i += 64)
 *     (if ($i + 15 > $last) (break))
 *     $mask := i8x16.bitmask(i8x16.eq(v128.load($hay + $i), $firsts)
 *                            & i8x16.eq(v128.load($hay + $i + $n - 1), $lasts))
 *     while ($mask != 0)                         ;; each position where both bytes agree
 *       $agreed := ($agree $hay + $i + ctz($mask), $needle, $n)
 *       (if ($agreed == $n) (return $i + ctz($mask)))
 *       (if (($work += $agreed + 1) > $budget) (return -2))
 *       $mask &= $mask - 1
 *     $i += 16
 *     (if ($steps > 0) ($steps -= 1))
 *   while ($i <= $last)                          ;; the last few positions, one at a time
 *     (if (($agree $hay + $i, $needle, $n) == $n) (return $i))
 *     $i += 1
 *   -1)
 * (func $agree (param $a i32) (param $b i32) (param $n i32) (result i32)
 *   ;; how many of the $n bytes at $a and $b agree before the first that differs
 *   ...)
 * ```
 *
 * The skip takes a rare needle's search at about twice the speed of the 16-position loop alone; where the
 * two bytes agree every few positions (a short, common needle), each call finds its match within the steps
 * it owes first, and the skip is seldom tried.
 *
 * The budget bounds the work a block can take: where the first and last byte agree at most positions (a
 * long needle of `=` in a line of them), comparing byte by byte would cost the block's length times the
 * needle's, and the block is searched by `String#indexOf` instead, whose work stays about linear.
 *
 * @module
 */
import type { Buffer } from "node:buffer";

/** Bytes of a window copied in and searched at a time: a block that stays in the processor's cache. */
export const WASM_BLOCK_BYTES = 64 * 1024;

const PAGE_BYTES = 64 * 1024; // WebAssembly's unit of memory

// The encodings of the instructions used (the WebAssembly core specification and its SIMD extension).
const I32 = 0x7f;
const V128 = 0x7b;
const EMPTY = 0x40; // a block that leaves nothing on the stack
const block = [0x02, EMPTY];
const loop = [0x03, EMPTY];
const if_ = [0x04, EMPTY];
const end = [0x0b];
const br = (depth: number) => [0x0c, depth];
const brIf = (depth: number) => [0x0d, depth];
const return_ = [0x0f];
const call = (func: number) => [0x10, func];
const get = (local: number) => [0x20, local];
const set = (local: number) => [0x21, local];
const tee = (local: number) => [0x22, local];
const load8 = [0x2d, 0, 0]; // i32.load8_u, alignment 1, offset 0
const i32 = (value: number) => [0x41, ...signedLeb(value)];
const eqz = [0x45];
const eq = [0x46];
const ne = [0x47];
const ltU = [0x49];
const gtU = [0x4b];
const geU = [0x4f];
const ctz = [0x68];
const add = [0x6a];
const sub = [0x6b];
const and = [0x71];
const v128Load = [0xfd, 0x00, 0, 0]; // alignment 1, offset 0
const v128LoadAt = (offset: number) => [0xfd, 0x00, 0, offset]; // the same, `offset` bytes on (under 128)
const splat8 = [0xfd, 0x0f]; // i8x16.splat
const eq8 = [0xfd, 0x23]; // i8x16.eq
const v128And = [0xfd, 0x4e];
const v128Or = [0xfd, 0x50];
const anyTrue = [0xfd, 0x53]; // v128.any_true
const bitmask8 = [0xfd, 0x64]; // i8x16.bitmask

function signedLeb(value: number): number[] {
  const out: number[] = [];
  for (;;) {
    const low = value & 0x7f;
    value >>= 7;
    const done = (value === 0 && (low & 0x40) === 0) || (value === -1 && (low & 0x40) !== 0);
    out.push(done ? low : low | 0x80);
    if (done) return out;
  }
}

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  do {
    const low = value & 0x7f;
    value >>>= 7;
    out.push(value === 0 ? low : low | 0x80);
  } while (value !== 0);
  return out;
}

const vector = (items: number[][]) => [...unsignedLeb(items.length), ...items.flat()];
const section = (id: number, bytes: number[]) => [id, ...unsignedLeb(bytes.length), ...bytes];
const name = (text: string) => vector([...text].map((c) => [c.charCodeAt(0)]));
/** A function body: its locals, as `[count, type]` runs, then its code. */
const body = (locals: [number, number][], code: number[][]) => {
  const bytes = [...vector(locals), ...code.flat(), ...end];
  return [...unsignedLeb(bytes.length), ...bytes];
};

// $find's parameters and locals; a skip's 64 positions start at AT, their bytes at the needle's end at AT_LAST.
const HAY = 0, LEN = 1, NEEDLE = 2, N = 3, I = 4, LAST = 5, MASK = 6, AGREED = 7, WORK = 8, BUDGET = 9;
const FIRSTS = 10, LASTS = 11, AT = 12, AT_LAST = 13, STEPS = 14;
const FIND = 0, AGREE = 1;
/** What `$find` returns once its budget is spent. */
const GAVE_UP = -2;

// deno-fmt-ignore
const find = body([[6, I32], [2, V128], [3, I32]], [
  get(LEN), get(N), ltU, if_, i32(-1), return_, end,                     // shorter than the needle: -1
  get(LEN), get(N), sub, set(LAST),
  get(LEN), i32(4096), add, set(BUDGET),
  get(NEEDLE), load8, splat8, set(FIRSTS),
  get(NEEDLE), get(N), add, i32(1), sub, load8, splat8, set(LASTS),
  i32(4), set(STEPS),                                                    // a next match is often near: 16 at a time
  block, loop,                                                           // 16 positions at a time
    get(STEPS), eqz, if_,                                                // none owed: 64 at a time first
      block, loop,
        get(I), i32(63), add, get(LAST), gtU, brIf(1),
        get(HAY), get(I), add, tee(AT), get(N), add, i32(1), sub, set(AT_LAST),
        get(AT), v128LoadAt(0), get(FIRSTS), eq8, get(AT_LAST), v128LoadAt(0), get(LASTS), eq8, v128And,
        get(AT), v128LoadAt(16), get(FIRSTS), eq8, get(AT_LAST), v128LoadAt(16), get(LASTS), eq8, v128And, v128Or,
        get(AT), v128LoadAt(32), get(FIRSTS), eq8, get(AT_LAST), v128LoadAt(32), get(LASTS), eq8, v128And, v128Or,
        get(AT), v128LoadAt(48), get(FIRSTS), eq8, get(AT_LAST), v128LoadAt(48), get(LASTS), eq8, v128And, v128Or,
        anyTrue, if_, i32(4), set(STEPS), br(2), end,                    // a candidate: these 64, 16 at a time
        get(I), i32(64), add, set(I),
      br(0), end, end,
    end,
    get(I), i32(15), add, get(LAST), gtU, brIf(1),
    get(HAY), get(I), add, v128Load, get(FIRSTS), eq8,
    get(HAY), get(I), add, get(N), add, i32(1), sub, v128Load, get(LASTS), eq8,
    v128And, bitmask8, set(MASK),
    block, loop,                                                         // each where both bytes agree
      get(MASK), eqz, brIf(1),
      get(HAY), get(I), add, get(MASK), ctz, add, get(NEEDLE), get(N), call(AGREE), tee(AGREED),
      get(N), eq, if_, get(I), get(MASK), ctz, add, return_, end,
      get(WORK), get(AGREED), add, i32(1), add, tee(WORK), get(BUDGET), gtU, if_, i32(GAVE_UP), return_, end,
      get(MASK), get(MASK), i32(1), sub, and, set(MASK),
    br(0), end, end,
    get(I), i32(16), add, set(I),
    get(STEPS), if_, get(STEPS), i32(1), sub, set(STEPS), end,
  br(0), end, end,
  block, loop,                                                           // the last few, one at a time
    get(I), get(LAST), gtU, brIf(1),
    get(HAY), get(I), add, get(NEEDLE), get(N), call(AGREE), get(N), eq,
    if_, get(I), return_, end,
    get(I), i32(1), add, set(I),
  br(0), end, end,
  i32(-1),
]);

// $agree's parameters and local.
const A = 0, B = 1, COUNT = 2, K = 3;

// deno-fmt-ignore
const agree = body([[1, I32]], [
  block, loop,
    get(K), get(COUNT), geU, brIf(1),
    get(A), get(K), add, load8, get(B), get(K), add, load8, ne, brIf(1),
    get(K), i32(1), add, set(K),
  br(0), end, end,
  get(K),
]);

const MODULE_BYTES = new Uint8Array([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00], // "\0asm", version 1
  ...section(1, vector([[0x60, 4, I32, I32, I32, I32, 1, I32], [0x60, 3, I32, I32, I32, 1, I32]])), // types
  ...section(3, vector([[0], [1]])), // $find and $agree, of those types
  ...section(5, vector([[0x00, 1]])), // one memory of at least one page
  ...section(7, vector([[...name("memory"), 0x02, 0], [...name("find"), 0x00, FIND]])), // exports
  ...section(10, vector([find, agree])), // code
]);

interface Exports {
  memory: WebAssembly.Memory;
  find(hay: number, length: number, needle: number, n: number): number;
}

/**
 * The one instance of the module in the process, which every finder shares: `find` is synchronous, so a
 * finder loads its needle (and then its blocks) whenever it finds another finder's there. One memory, grown to
 * the longest needle searched for, rather than one a call: each reserves gigabytes of address space.
 */
let shared: { exports: Exports; bytes: Uint8Array; owner: WasmFinder | null } | null = null;

/** The shared instance, its memory large enough for a block and a needle of `needleLength` bytes. */
function instanceFor(needleLength: number): NonNullable<typeof shared> {
  if (shared === null) {
    const exports = new WebAssembly.Instance(new WebAssembly.Module(MODULE_BYTES))
      .exports as unknown as Exports;
    shared = { exports, bytes: new Uint8Array(exports.memory.buffer), owner: null };
  }
  const needed = WASM_BLOCK_BYTES + 2 * needleLength;
  if (shared.bytes.length < needed) {
    shared.exports.memory.grow(Math.ceil((needed - shared.bytes.length) / PAGE_BYTES));
    shared.bytes = new Uint8Array(shared.exports.memory.buffer);
  }
  return shared;
}

/**
 * One needle's search. In the shared memory, the block searched sits at offset 0 (`WASM_BLOCK_BYTES` of the
 * window and the `needle - 1` bytes after them, so a match across the seam is found in its own block), the
 * needle after it. A window is searched a block at a time, each copied in once, so its bytes must not change
 * while it is searched (each window the scan reads is a new `subarray`).
 */
export class WasmFinder {
  readonly #needle: Buffer;
  readonly #text: string; // the needle read as latin1, for a block past the module's budget
  #window: Buffer | null = null; // whose block the memory holds
  #start = 0; // where that block starts in it
  #length = 0; // and its length
  #blockText: string | null = null; // that block read as latin1, once it spent the module's budget

  constructor(needle: Buffer) {
    this.#needle = needle;
    this.#text = needle.toString("latin1");
  }

  /** The first match in `window` at or after `from`, or -1 (an empty needle: as `Buffer#indexOf`). */
  find(window: Buffer, from: number): number {
    const n = this.#needle.length;
    if (n === 0) return Math.min(Math.max(from, 0), window.length);
    const wasm = instanceFor(n);
    const needleAt = WASM_BLOCK_BYTES + n;
    if (wasm.owner !== this) {
      wasm.bytes.set(this.#needle, needleAt);
      wasm.owner = this;
      this.#window = null; // another finder's blocks were loaded since
    }
    for (let at = Math.max(from, 0); at + n <= window.length; at = this.#start + WASM_BLOCK_BYTES) {
      const start = at - (at % WASM_BLOCK_BYTES);
      if (window !== this.#window || start !== this.#start) {
        this.#length = Math.min(window.length - start, WASM_BLOCK_BYTES + n - 1);
        wasm.bytes.set(window.subarray(start, start + this.#length), 0);
        [this.#window, this.#start, this.#blockText] = [window, start, null];
      }
      // A match found in this block starts in it: the overlap is too short to hold one that starts after it.
      if (this.#blockText === null) {
        const i = wasm.exports.find(at - start, this.#length - (at - start), needleAt, n);
        if (i >= 0) return at + i;
        if (i !== GAVE_UP) continue;
        // A block that defeats the filter: searched as a string from here on, each later find in it too.
        this.#blockText = window.toString("latin1", start, start + this.#length);
      }
      const j = this.#blockText.indexOf(this.#text, at - start);
      if (j >= 0) return start + j;
    }
    return -1;
  }
}
