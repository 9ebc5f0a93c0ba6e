/**
 * The Node binary's heap: a young generation kept at its starting size (growth factor 1), and an old
 * generation collected once it grew by 20% since the last full collection. V8 would otherwise grow both and
 * keep heap it no longer uses after a large search or read. Imported first by the Node entry; the library
 * leaves its host's heap alone.
 *
 * @module
 */
import { setFlagsFromString } from "node:v8";

// V8 reads these each time it sizes a generation, so setting them after start-up works.
setFlagsFromString("--semi-space-growth-factor=1");
setFlagsFromString("--heap-growing-percent=20");
