// The finance calendar: statements are for a day in Asia/Bangkok (UTC+7 all year; Thailand
// keeps no daylight saving), while every instant is stored in UTC milliseconds. A day is
// named 'YYYY-MM-DD' and covers [start, end) in UTC. Bangkok's offset is whole hours, so
// UTC hours nest inside Bangkok days (the projections sum whole hours inside a day).

import { financeLimits } from '../limits.ts';

const dayMs = 24 * 3_600_000;
const hourMs = 3_600_000;
const { bangkokOffsetMs } = financeLimits;

export const financeTimeZone = 'Asia/Bangkok';

/** The Bangkok calendar day an instant falls on. */
export function bangkokDayOf(ms: number): string {
  return new Date(ms + bangkokOffsetMs).toISOString().slice(0, 10);
}

/** An instant as a Bangkok wall time, 'YYYY-MM-DD HH:MM:SS' (for messages an operator reads in that zone). */
export function bangkokWallTimeOf(ms: number): string {
  return new Date(ms + bangkokOffsetMs).toISOString().slice(0, 19).replace('T', ' ');
}

/** Whether `s` names a real calendar day as YYYY-MM-DD. */
export function isCalendarDay(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const ms = Date.parse(`${s}T00:00:00.000Z`);
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === s;
}

/** The UTC instants a Bangkok day covers: [startMs, endMs). */
export function bangkokDayBounds(day: string): { readonly startMs: number; readonly endMs: number } {
  const startMs = Date.parse(`${day}T00:00:00.000Z`) - bangkokOffsetMs;
  return { startMs, endMs: startMs + dayMs };
}

/** How many Bangkok days run from `from` to `to`, both included (0 when `to` is before `from`). */
export function bangkokDaysIn(from: string, to: string): number {
  return Math.max(0, Math.round((bangkokDayBounds(to).startMs - bangkokDayBounds(from).startMs) / dayMs) + 1);
}

/** The start of the UTC hour an instant falls in. */
export function hourOf(ms: number): number {
  return Math.floor(ms / hourMs) * hourMs;
}
