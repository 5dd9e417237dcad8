// Timestamps on the wire. The contract fixes one output form: RFC 3339 UTC with exactly
// three fractional digits and a trailing Z ('2026-08-01T10:00:00.000Z'). Input is parsed
// strictly as RFC 3339 (no Date.parse leniency): a full date and time, optional fraction,
// and Z or a numeric offset, because Thai merchants often send '+07:00'. Output is
// core/present.ts iso, the one formatter.

/** RFC 3339's date-time; its ABNF is case-insensitive, so "t" and "z" are as good as "T" and "Z" (§5.6). */
const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** Milliseconds since the epoch, or null when `s` is not a valid RFC 3339 date-time. */
export function parseIso(s: string): number | null {
  const m = rfc3339.exec(s);
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  // Leap seconds (:60) are refused: JavaScript time cannot represent them.
  if (hour > 23 || minute > 59 || second > 59) return null;
  const fractionMs = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
  const offsetMinutes = m[8] !== undefined ? 0 : parseOffsetMinutes(m[9], m[10], m[11]);
  if (offsetMinutes === null) return null;
  return utcMs(year, month, day, hour, minute, second, fractionMs) - offsetMinutes * 60_000;
}

function parseOffsetMinutes(sign: string, hours: string, minutes: string): number | null {
  const h = Number(hours);
  const m = Number(minutes);
  if (h > 23 || m > 59) return null;
  return (sign === '-' ? -1 : 1) * (h * 60 + m);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function utcMs(year: number, month: number, day: number, hour: number, minute: number, second: number, ms: number): number {
  // Date.UTC maps years 0-99 to 1900-1999; setUTCFullYear does not.
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, ms);
  return date.getTime();
}
