/**
 * The substring search `search_text` runs over each window (and `search_files` over each listing): two
 * methods with the same answers, the port naming the one its runtime runs fast (`FsPort.byteSearch`), never
 * chosen by timing.
 *
 * @module
 */
import type { Buffer } from "node:buffer";
import type { FsPort } from "../ports/fs_port.ts";
import { WasmFinder } from "./wasm_find.ts";

/** Finds a needle in one window: `find(from)` is the first match at or after `from`, or -1. */
export type WindowSearch = (window: Buffer) => (from: number) => number;

/** Builds the `WindowSearch` for one needle. */
export type SearchMethod = (needle: Buffer) => WindowSearch;

/** `Buffer.prototype.indexOf` on the bytes: native code where `Buffer` is native (Node). */
export const bytesSearch: SearchMethod = (needle) => (window) => (from) => window.indexOf(needle, from);

/** The WebAssembly SIMD search (`wasm_find.ts`): a block of the window at a time, nothing allocated per block. */
export const wasmSearch: SearchMethod = (needle) => {
  const finder = new WasmFinder(needle);
  return (window) => (from) => finder.find(window, from);
};

/** The search method the port asks for (`Buffer#indexOf` unless it says otherwise). */
export function searchMethodFor(fs: Pick<FsPort, "byteSearch">): SearchMethod {
  return fs.byteSearch === "wasm" ? wasmSearch : bytesSearch;
}
