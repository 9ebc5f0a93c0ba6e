/**
 * The benchmark's report: the rows the scenarios returned, judged against
 * their targets, as one markdown table, with the notes and the growth figures
 * under it. Pure functions of what the driver collected.
 *
 * @module
 */

/** The runtimes a row has a column for. */
export type RuntimeName = "node" | "deno";
/** Both runtimes: a floor row that is part of the server's work on each. */
export const BOTH_RUNTIMES: readonly RuntimeName[] = ["node", "deno"];

/** The table's sections, in the order they are printed. */
export const SECTIONS = ["warm", "cold", "read", "call", "start", "memory", "scale"] as const;
/** Where a row sits in the table. */
export type Section = typeof SECTIONS[number];

/** The largest acceptable figure per runtime, and of Deno's figure divided by Node's. None: a reference row. */
export interface Target {
  node?: number;
  deno?: number;
  denoOverNode?: number;
}

/** One line of the table. */
export interface Row {
  section: Section;
  /** What is measured. */
  what: string;
  /** What it is divided by, measured in the same run (or "—"). */
  baseline: string;
  /** `×`: a ratio to the baseline; `ms` or `MiB`: an absolute figure. */
  unit: "×" | "ms" | "MiB";
  values: Partial<Record<RuntimeName, number>>;
  /** Free text in place of a figure (the 1,000,000-file root). */
  texts?: Partial<Record<RuntimeName, string>>;
  target: Target;
  /** Shown in place of the target's own text. */
  targetText?: string;
  /**
   * A floor: part of the work the server must do, measured in the same run against the same baseline. Its
   * figure past the target of the judged row above it proves that part of the target out of reach. The
   * runtimes listed are those where it is such a part (none: shown for reference only).
   */
  floorOn?: readonly RuntimeName[];
}

/** Deno's figure may be at most this multiple of Node's on every row that measures the server. */
export const DENO_OVER_NODE = 1.25;

/** A target on both runtimes (Deno's may differ) and on Deno/Node. */
export function both(max: number, denoMax = max): Target {
  return { node: max, deno: denoMax, denoOverNode: DENO_OVER_NODE };
}

/** A row that is measured and shown, not judged. */
export const REFERENCE: Target = {};

function figure(value: number | undefined, unit: Row["unit"]): string {
  if (value === undefined || Number.isNaN(value)) return "—";
  if (unit === "MiB") return `${value.toFixed(0)} MiB`;
  const digits = value < 1 && unit === "ms" ? 3 : value < 10 ? 2 : 1;
  return unit === "×" ? `${value.toFixed(digits)}×` : `${value.toFixed(digits)} ms`;
}

/** Deno's figure divided by Node's, when both were measured. */
export function denoOverNode(row: Row): number | undefined {
  const { node, deno } = row.values;
  return node === undefined || deno === undefined ? undefined : deno / node;
}

function targetText(row: Row): string {
  if (row.targetText) return row.targetText;
  const { node, deno, denoOverNode } = row.target;
  const at = (v: number) => `${v}${row.unit === "×" ? "×" : ` ${row.unit}`}`;
  const parts: string[] = [];
  if (node !== undefined && node === deno) parts.push(`≤ ${at(node)}`);
  else {
    if (node !== undefined) parts.push(`Node ≤ ${at(node)}`);
    if (deno !== undefined) parts.push(`Deno ≤ ${at(deno)}`);
  }
  if (denoOverNode !== undefined) parts.push(`Deno/Node ≤ ${denoOverNode}`);
  return parts.length === 0 ? "reference" : parts.join("; ");
}

/** How a judged row stands: every target met, a miss that a floor row bounds, or a miss that none does. */
export type Standing = "met" | "bounded" | "missed";

/** A judged row's verdict: its standing, and the text of the table's last column. */
export interface Verdict {
  standing: Standing;
  text: string;
}

/**
 * The parts of a target: the row's figure for each, and what a floor row proves of it. A floor's figure past
 * a runtime's target proves that target out of reach; for Deno/Node, Deno's floor alone divided by Node's
 * whole figure (Deno must do at least its floor, and Node already does all of its work in its figure).
 */
const PARTS = [
  { name: "Node", key: "node", figure: (r: Row) => r.values.node, bound: floorFigure("node") },
  { name: "Deno", key: "deno", figure: (r: Row) => r.values.deno, bound: floorFigure("deno") },
  {
    name: "Deno/Node",
    key: "denoOverNode",
    figure: denoOverNode,
    bound: (floor: Row, row: Row) => {
      const deno = floorFigure("deno")(floor);
      return deno === undefined || row.values.node === undefined ? undefined : deno / row.values.node;
    },
  },
] as const;

/** A floor row's figure on `runtime`, where it is a floor there. */
function floorFigure(runtime: RuntimeName): (floor: Row) => number | undefined {
  return (floor) => (floor.floorOn?.includes(runtime) ? floor.values[runtime] : undefined);
}

/**
 * Judges `row` against its targets: `met`; or, per part missed (Node, Deno, Deno/Node), the strongest bound
 * among `floors` past that target, as `Node: floor 4.31× > 4×`, or `not met` when none is. Undefined for a
 * row with nothing to judge.
 */
export function verdict(row: Row, floors: readonly Row[] = []): Verdict | undefined {
  if (row.texts) return { standing: "met", text: "met" };
  const unit = row.unit === "×" ? "×" : ` ${row.unit}`;
  const missed: string[] = [];
  const bounded: string[] = [];
  let checked = 0;
  for (const part of PARTS) {
    const value = part.figure(row);
    const max = row.target[part.key];
    if (value === undefined || max === undefined) continue;
    checked++;
    if (value <= max) continue;
    const bounds = floors.map((floor) => part.bound(floor, row))
      .filter((b): b is number => b !== undefined && b > max);
    if (bounds.length === 0) missed.push(part.name);
    else if (part.key === "denoOverNode") {
      bounded.push(`Deno/Node: Deno's floor alone is ${Math.max(...bounds).toFixed(2)}× Node's figure`);
    } else bounded.push(`${part.name}: floor ${figure(Math.max(...bounds), row.unit)} > ${max}${unit}`);
  }
  if (checked === 0) return undefined;
  if (missed.length === 0 && bounded.length === 0) return { standing: "met", text: "met" };
  const text = [
    ...(missed.length > 0 ? [`not met: ${missed.join(", ")}`] : []),
    ...(bounded.length > 0 ? [`bounded (${bounded.join("; ")})`] : []),
  ].join("; ");
  return { standing: missed.length > 0 ? "missed" : "bounded", text };
}

/**
 * The rows in print order, each judged row with its floors: the rows after it, up to the next judged row,
 * that are floors for some runtime and share its baseline and unit.
 */
function judgedInOrder(rows: readonly Row[]): { row: Row; verdict: Verdict | undefined }[] {
  const sorted = [...rows].sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section));
  const isJudged = (r: Row) => verdict(r) !== undefined;
  return sorted.map((row, i) => {
    if (!isJudged(row)) return { row, verdict: undefined };
    const floors: Row[] = [];
    for (const next of sorted.slice(i + 1)) {
      if (isJudged(next)) break;
      if (next.floorOn && next.baseline === row.baseline && next.unit === row.unit) floors.push(next);
    }
    return { row, verdict: verdict(row, floors) };
  });
}

/** The rows as one markdown table, section by section, each section in the order its rows came. */
export function table(rows: readonly Row[]): string {
  const lines = [
    "| row | baseline (same run) | Node | Deno | Deno/Node | target | met |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const { row, verdict } of judgedInOrder(rows)) {
    const node = row.texts ? row.texts.node ?? "—" : figure(row.values.node, row.unit);
    const deno = row.texts ? row.texts.deno ?? "—" : figure(row.values.deno, row.unit);
    const ratio = denoOverNode(row);
    lines.push(
      `| ${row.what} | ${row.baseline} | ${node} | ${deno} | ${
        ratio === undefined ? "—" : ratio.toFixed(2)
      } | ` +
        `${targetText(row)} | ${verdict?.text ?? "—"} |`,
    );
  }
  return lines.join("\n");
}

/** Everything a run prints. */
export interface Run {
  title: string;
  /** The machine, the runtimes' versions and the load average. */
  machine: string;
  reps: number;
  /** Timed repetitions of a judged traversal (`Context.traversalReps`). */
  traversalReps: number;
  /** Rounds of fresh processes behind each per-call p50. */
  rounds: number;
  rows: readonly Row[];
  notes: readonly string[];
  figures: readonly string[];
  failures: readonly string[];
  seconds: number;
  cacheDir: string;
}

/** The whole report as markdown. */
export function render(run: Run): string {
  const judged = judgedInOrder(run.rows).flatMap(({ verdict }) => verdict ? [verdict.standing] : []);
  const count = (standing: Standing) => judged.filter((s) => s === standing).length;
  const list = (title: string, items: readonly string[]) =>
    items.length === 0 ? [] : [title, "", ...items.map((i) => `- ${i}`), ""];
  return [
    `## ${run.title}`,
    "",
    `Machine: ${run.machine}. Medians of ${run.reps} repetitions (after a warm-up), interleaved with the ` +
    `baseline; a judged traversal's, warm or cold, of ${run.traversalReps}, both runtimes in one loop, the ` +
    "baseline run before each runtime's turn and each runtime's median divided by the median of all its " +
    `runs; per-call p50s are medians over ${run.rounds} rounds of fresh processes; peak RSS is the ` +
    "kernel's VmHWM, reset after discover. Deno/Node is Deno's figure divided by Node's. A \"(floor)\" row " +
    "under a judged row measures part of the work the server must do, against the same baseline: a target " +
    'it is itself past is out of reach, and the last column says "bounded" with that floor (for ' +
    "Deno/Node, when Deno's floor alone is past the target times Node's whole figure).",
    "",
    table(run.rows),
    "",
    `Judged rows: ${judged.length}. Met: ${
      count("met")
    }. Bounded, every miss by a floor row of this run that ` +
    `is itself past the target: ${count("bounded")}. Missed with no such floor: ${count("missed")}.`,
    "",
    ...list("How cost grows:", run.figures),
    ...list("Details:", run.notes),
    ...list("FAILURES (a correctness check failed or a server broke):", run.failures),
    `Run time ${run.seconds.toFixed(0)} s; corpora cached in ${run.cacheDir}.`,
  ].join("\n");
}
