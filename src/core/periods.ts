/** Spend-limit periods, shared by the ledger (pipeline) and the spend queries (storage). */

export type LimitReset = "daily" | "weekly" | "monthly" | null;

/** Start of the current limit period, UTC: midnight, Monday midnight, the 1st; epoch when it never resets. */
export function periodStart(reset: LimitReset, now: Date): Date {
  if (reset === null) return new Date(0);
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  if (reset === "weekly") start.setUTCDate(start.getUTCDate() - ((start.getUTCDay() + 6) % 7));
  if (reset === "monthly") start.setUTCDate(1);
  return start;
}
