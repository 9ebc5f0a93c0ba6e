/**
 * Summarises a V8 `.cpuprofile` (as written by `node --cpu-prof`, which
 * `deno task bench --profile DIR` passes to the Node server): the functions
 * with the most self time, and the project functions with the most total
 * (inclusive) time.
 *
 * Usage: deno run --allow-read scripts/bench/profile.ts FILE.cpuprofile [TOP]
 *
 * @module
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const [file, topArg] = Deno.args;
if (!file) {
  console.error("usage: profile.ts FILE.cpuprofile [TOP]");
  Deno.exit(2);
}
const top = Number(topArg ?? 25);
const profile: Profile = JSON.parse(await Deno.readTextFile(file));

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

const selfUs = new Map<number, number>();
let totalUs = 0;
for (let i = 0; i < profile.samples.length; i++) {
  const dt = profile.timeDeltas[i] ?? 0;
  totalUs += dt;
  selfUs.set(profile.samples[i], (selfUs.get(profile.samples[i]) ?? 0) + dt);
}

function keyOf(frame: CallFrame): string {
  const url = frame.url.replace(/^file:\/\//, "").replace(/^.*\/(node_modules\/)/, "$1")
    .replace(/^.*\/dist\//, "dist/");
  return `${frame.functionName || "(anonymous)"} ${url ? `${url}:${frame.lineNumber + 1}` : ""}`.trim();
}

const self = new Map<string, number>();
const total = new Map<string, number>();
for (const [id, us] of selfUs) {
  const node = byId.get(id)!;
  const key = keyOf(node.callFrame);
  self.set(key, (self.get(key) ?? 0) + us);
  // Inclusive time: every distinct function on the stack gets the sample once.
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const k = keyOf(byId.get(at)!.callFrame);
    if (seen.has(k)) continue;
    seen.add(k);
    total.set(k, (total.get(k) ?? 0) + us);
  }
}

const pct = (us: number) => `${(us / totalUs * 100).toFixed(1).padStart(5)}%`;
console.log(`profile ${file}: ${(totalUs / 1000).toFixed(0)} ms sampled`);
console.log("\nself time:");
for (const [k, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${pct(us)}  ${k}`);
console.log("\ntotal time (functions of dist/ and node_modules/):");
for (
  const [k, us] of [...total].filter(([k]) => /dist\/|node_modules\//.test(k)).sort((a, b) => b[1] - a[1])
    .slice(0, top)
) console.log(`${pct(us)}  ${k}`);
