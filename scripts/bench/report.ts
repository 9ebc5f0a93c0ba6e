/**
 * The benchmark's report: the rows the scenarios returned, judged against
 * their targets, as one markdown table, with the notes and the growth figures
 * under it. Pure functions of what the driver collected.
 *
 * @module
 */

/** The runtimes a row has a column for. */
export type RuntimeName = "node" | "deno";

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

/** `met`, `not met: …` naming what missed, or `—` for a row with nothing to judge. */
export function verdict(row: Row): string {
  if (row.texts) return "met";
  const { target, values } = row;
  const judged: [string, number | undefined, number | undefined][] = [
    ["Node", values.node, target.node],
    ["Deno", values.deno, target.deno],
    ["Deno/Node", denoOverNode(row), target.denoOverNode],
  ];
  const missed: string[] = [];
  let checked = 0;
  for (const [name, value, max] of judged) {
    if (value === undefined || max === undefined) continue;
    checked++;
    if (!(value <= max)) missed.push(name);
  }
  return checked === 0 ? "—" : missed.length === 0 ? "met" : `not met: ${missed.join(", ")}`;
}

/** The rows as one markdown table, section by section, each section in the order its rows came. */
export function table(rows: readonly Row[]): string {
  const sorted = [...rows].sort((a, b) => SECTIONS.indexOf(a.section) - SECTIONS.indexOf(b.section));
  const lines = [
    "| row | baseline (same run) | Node | Deno | Deno/Node | target | met |",
    "|---|---|---|---|---|---|---|",
  ];
  for (const row of sorted) {
    const node = row.texts ? row.texts.node ?? "—" : figure(row.values.node, row.unit);
    const deno = row.texts ? row.texts.deno ?? "—" : figure(row.values.deno, row.unit);
    const ratio = denoOverNode(row);
    lines.push(
      `| ${row.what} | ${row.baseline} | ${node} | ${deno} | ${
        ratio === undefined ? "—" : ratio.toFixed(2)
      } | ` +
        `${targetText(row)} | ${verdict(row)} |`,
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
  const judged = run.rows.map(verdict).filter((v) => v !== "—");
  const met = judged.filter((v) => v === "met").length;
  const list = (title: string, items: readonly string[]) =>
    items.length === 0 ? [] : [title, "", ...items.map((i) => `- ${i}`), ""];
  return [
    `## ${run.title}`,
    "",
    `Machine: ${run.machine}. Medians of ${run.reps} repetitions (after a warm-up), interleaved with the ` +
    `baseline; per-call p50s are medians over ${run.rounds} rounds of fresh processes; peak RSS is the ` +
    "kernel's VmHWM, reset after discover. Deno/Node is Deno's figure divided by Node's.",
    "",
    table(run.rows),
    "",
    `${met} of ${judged.length} judged rows meet their targets.`,
    "",
    ...list("How cost grows:", run.figures),
    ...list("Details:", run.notes),
    ...list("FAILURES (a correctness check failed or a server broke):", run.failures),
    `Run time ${run.seconds.toFixed(0)} s; corpora cached in ${run.cacheDir}.`,
  ].join("\n");
}
