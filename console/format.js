// How the console writes money, time and counts. Money is integer satang from the API
// (a JSON number, or a decimal string for sums beyond 2^53): it is turned into baht with
// BigInt and string arithmetic only, never divided into a float, so ฿0.01 is always
// exact. Times are shown in Asia/Bangkok (the business's clock: UTC+7, no daylight
// saving) with the UTC ISO instant kept for the title attribute (hover).

const bangkok = 'Asia/Bangkok';
const bangkokOffsetMs = 7 * 3600 * 1000;

/** A satang amount as a BigInt, or null when it is absent or not an integer. */
export function minorOf(value) {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : null;
  if (typeof value === 'string' && /^-?\d+$/.test(value)) return BigInt(value);
  return null;
}

/** '1234567' → '12,345.67': the digits of a non-negative satang amount as baht. */
function bahtDigits(minorAbs) {
  const digits = minorAbs.toString().padStart(3, '0');
  const whole = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return `${whole}.${digits.slice(-2)}`;
}

/** 1234567 → '฿12,345.67'; -1 → '-฿0.01'; absent → '—'. */
export function formatBaht(value) {
  const minor = minorOf(value);
  if (minor === null) return '—';
  return minor < 0n ? `-฿${bahtDigits(-minor)}` : `฿${bahtDigits(minor)}`;
}

/**
 * What an operator typed as baht ('12,345.67', '฿ 100', '0.5') → satang as a safe integer
 * Number, or null when it is not an amount with at most two decimals. String arithmetic:
 * '0.1' is 10 satang exactly.
 */
export function parseBahtToMinor(text) {
  // Commas only as thousands separators (1,500.50): "1500,50" — a decimal comma, or a slip
  // of the neighbouring key — is no amount, never 150,050.00.
  const cleaned = String(text ?? '').replace(/[฿\s]/g, '');
  if (!/^(\d{1,3}(,\d{3})+|\d+)(\.\d{1,2})?$/.test(cleaned)) return null;
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(cleaned.replace(/,/g, ''));
  if (!m) return null;
  const minor = BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  return minor <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(minor) : null;
}

/** A rate in basis points as a percentage: 150 → '1.50%', 7 → '0.07%' (string arithmetic, as baht). */
export function formatBps(value) {
  const bps = minorOf(value);
  if (bps === null || bps < 0n) return '—';
  return `${bahtDigits(bps)}%`;
}

/**
 * A percentage an operator typed ('1.5', '1.50 %', '0.07') → basis points as a safe integer
 * Number, or null when it is not one with at most two decimals (a basis point is 0.01 %).
 */
export function parsePercentToBps(text) {
  const m = /^(\d+)(?:\.(\d{1,2}))?$/.exec(String(text ?? '').replace(/[%\s]/g, ''));
  if (!m) return null;
  const bps = BigInt(m[1]) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  return bps <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(bps) : null;
}

export function formatCount(n) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return '—';
  return String(Math.trunc(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 0.1234 → '12.3%'; null → '—'. */
export function formatPercent(rate) {
  if (typeof rate !== 'number' || !Number.isFinite(rate)) return '—';
  return `${(Math.round(rate * 1000) / 10).toFixed(1)}%`;
}

const dateTimeParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: bangkok, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
});

/** An instant (ISO text or epoch ms) → 'YYYY-MM-DD HH:mm:ss' in Bangkok; '—' when absent or unreadable. */
export function formatTime(value) {
  const date = toDate(value);
  if (!date) return '—';
  const p = Object.fromEntries(dateTimeParts.formatToParts(date).map((x) => [x.type, x.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
}

/** The UTC ISO instant, for the title attribute. */
export function isoTitle(value) {
  const date = toDate(value);
  return date ? `${date.toISOString()} (UTC)` : '';
}

function toDate(value) {
  if (value === null || value === undefined || value === '') return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** How far the service's clock runs ahead of this browser's (ms): a manual test clock may be days ahead. */
let serviceAheadMs = 0;

/** The service's time as GET /v1/bo/clock answered it: "today" is the service's from then on. */
export function setServiceTime(iso, atMs = Date.now()) {
  const ms = Date.parse(iso);
  if (!Number.isNaN(ms)) serviceAheadMs = ms - atMs;
}

/** The service's time now (ms), as far as this browser knows it. */
export function serviceNow() {
  return Date.now() + serviceAheadMs;
}

/** Today's date in Bangkok as YYYY-MM-DD (the finance reports' day), on the service's clock. */
/**
 * The month (YYYY-MM) a run of days is, when it is one whole month — its first day to its
 * last — else undefined: a closed month asked for day by day is asked for as the month, so
 * its report is named and dated as the month, as the command line's is.
 */
export function wholeMonthOf(first, last) {
  if (!/^\d{4}-\d{2}-01$/.test(first ?? '') || !/^\d{4}-\d{2}-\d{2}$/.test(last ?? '')) return undefined;
  const [y, m] = first.split('-').map(Number);
  const lastDay = new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10);
  return last === lastDay ? first.slice(0, 7) : undefined;
}

export function bangkokToday(nowMs = serviceNow()) {
  return new Date(nowMs + bangkokOffsetMs).toISOString().slice(0, 10);
}

/** The period a report page's URL names: one day (the service's today by default), a month (its days up to the server's today), or a period (from, to). */
export function reportPeriodOf(query) {
  if (query.month) return { month: query.month };
  if (query.from && query.to) return query.from === query.to ? { date: query.from } : { from: query.from, to: query.to };
  return { date: query.date ?? bangkokToday() };
}

/** A Bangkok wall time from <input type="datetime-local"> ('2026-11-21T09:30') → the UTC ISO instant; null if unreadable. */
export function bangkokLocalToIso(local) {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(String(local ?? ''));
  if (!m) return null;
  const ms = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +(m[6] ?? 0)) - bangkokOffsetMs;
  return Number.isNaN(ms) ? null : new Date(ms).toISOString();
}

/**
 * The last instant a typed Bangkok wall time names: the end of its second, so "as of
 * 23:59:59" takes in what was posted during that second. (A time input with seconds drops
 * ":00" from its value, so a value without seconds is the second :00, not the minute.)
 */
export function bangkokLocalEndToIso(local) {
  const start = bangkokLocalToIso(local);
  return start === null ? null : new Date(Date.parse(start) + 999).toISOString();
}

/** An instant → the Bangkok wall time for <input type="datetime-local">. */
export function isoToBangkokLocal(value) {
  const date = toDate(value);
  return date ? new Date(date.getTime() + bangkokOffsetMs).toISOString().slice(0, 16) : '';
}

/** Seconds → parts for an age ('2d 3h', '4h 05m', '12m', '40s'); the words come from i18n. */
export function ageParts(seconds) {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds < 0) return null;
  const s = Math.floor(seconds);
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60);
  if (d > 0) return { d, h };
  if (h > 0) return { h, m };
  if (m > 0) return { m };
  return { s };
}

/** The first and last characters of a long id or hash, for dense tables (the whole one goes in the title). */
export function shortId(text, keep = 8) {
  const s = String(text ?? '');
  return s.length <= keep * 2 + 1 ? s : `${s.slice(0, keep)}…${s.slice(-keep)}`;
}

// What shows as nothing (core/note.ts, the server's rule: control and format characters,
// variation selectors, the combining grapheme joiner, the blank letters).
const invisible = /[\p{Cc}\p{Cf}\u034F\u115F\u1160\u17B4\u17B5\u2800\u3164\uFE00-\uFE0F\uFFA0\u{E0100}-\u{E01EF}]/gu;
// One glyph counts its characters up to three (core/note.ts).
const graphemes = new Intl.Segmenter('und', { granularity: 'grapheme' });

/** Characters as the server counts a note (core/note.ts readableLength): what a reader sees, each run of whitespace one space, none around. */
export function noteLength(text) {
  const clean = String(text ?? '').replace(/\s+/g, ' ').replace(invisible, '').replace(/ {2,}/g, ' ').trim();
  let n = 0;
  for (const { segment } of graphemes.segment(clean)) n += Math.min([...segment].length, 3);
  return n;
}

/** One person for four eyes whatever the case, Unicode compatibility form or invisible characters of their id, as the server compares them (core/operators.ts operatorKey; specs/console/fold.unit.spec.ts keeps the two the same). */
const folded = (sub) => String(sub).normalize('NFKC').replace(/[\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}]/gu, '').toLowerCase().normalize('NFKC').toLowerCase().trim();

/** Whether two operator ids name one person (false when either is absent), as four eyes decides. */
export const sameOperator = (a, b) => typeof a === 'string' && typeof b === 'string' && folded(a) === folded(b);
