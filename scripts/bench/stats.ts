/**
 * Small statistics for the benchmark: medians and percentiles.
 *
 * @module
 */

/** The `p`-th percentile (0..100) by the nearest-rank method. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}

/** The median (mean of the two middle values for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** `2.31×`, or `—` for a figure that was not measured. */
export function ratioText(value: number | undefined): string {
  if (value === undefined || Number.isNaN(value)) return "—";
  return `${value < 10 ? value.toFixed(2) : value.toFixed(1)}×`;
}
