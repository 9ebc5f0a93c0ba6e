/**
 * The Node binary's young generation, kept at its starting size (growth factor 1): V8 would grow it and
 * keep heap it no longer uses after a large search or read. Imported first by the Node entry; the library
 * leaves its host's heap alone.
 *
 * @module
 */
import { setFlagsFromString } from "node:v8";

// V8 reads this flag each time the young generation would grow, so setting it after start-up works.
setFlagsFromString("--semi-space-growth-factor=1");
