/** Formatting of numbers, money, durations and times for the dashboard (the browser's locale). */

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
const compact = new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 });

/** A count: 1,234 (or 1.2M when `short`). */
export function formatCount(value: number | null | undefined, short = false): string {
  if (value === null || value === undefined) return "—";
  return (short ? compact : integer).format(value);
}

/** US dollars with enough digits for per-request costs. */
export function formatCost(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  const digits = value !== 0 && Math.abs(value) < 0.01 ? 6 : 2;
  return `$${value.toFixed(digits)}`;
}

/** Milliseconds, or seconds above ten of them. */
export function formatMs(value: number | null | undefined): string {
  if (value === null || value === undefined) return "—";
  return value >= 10_000 ? `${(value / 1000).toFixed(1)} s` : `${Math.round(value)} ms`;
}

/** A timestamp in the browser's locale and time zone. */
export function formatTime(value: string | null | undefined): string {
  if (!value) return "—";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString();
}
