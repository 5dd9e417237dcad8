// Small hand-written SVG charts (no chart library): grouped columns over a shared axis
// (volumes per hour), horizontal bars with their own labels (success rate per webhook
// endpoint), and lines (errors per hour). Heights and positions are computed here as
// plain numbers; the values shown (titles, axis labels) are formatted by the caller, so
// money keeps its exact satang text. Every mark has a <title> for hover. Colours come
// from CSS classes (style.css: .series-0 …), never inline styles (the CSP allows none).
// A screen reader hears each chart by its `name`, and reads its figures in a visually
// hidden table beside it (`labelsName` heads the labels' column); a bar list is named with
// its figures.

import { h } from 'preact';
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import htm from 'htm';

const html = htm.bind(h);

/**
 * Draws `render(width)` at the width its box really has (measured, and again on resize),
 * so the SVG is drawn at 1:1 and its 11 px labels stay 11 px on any screen.
 */
function Sized({ render, fallback = 560 }) {
  const box = useRef(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const measure = () => setWidth(Math.floor(box.current?.getBoundingClientRect().width ?? 0));
    measure();
    const observer = typeof ResizeObserver === 'function' ? new ResizeObserver(measure) : null;
    observer?.observe(box.current);
    return () => observer?.disconnect();
  }, []);
  return html`<div class="chart-box" ref=${box}>${render(width > 0 ? width : fallback)}</div>`;
}

/** A value as a plain number for geometry only (an amount's text is formatted elsewhere, exactly). */
export function magnitude(value) {
  if (typeof value === 'number') return Number.isFinite(value) ? value : 0;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value))) return Number(value);
  return 0;
}

/** A round axis maximum at or above `max` (1, 2, 5 × 10^n), so the top label reads cleanly. */
export function niceMax(max) {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** Room on the left for the widest axis label (about 7 px a character at 11 px). */
function padFor(widestLabel) {
  return { left: Math.max(28, String(widestLabel).length * 7 + 10), right: 8, top: 10, bottom: 26 };
}

/** Which of `count` labels to print so that at most `room` are shown, evenly. */
function labelStride(count, room) {
  return Math.max(1, Math.ceil(count / Math.max(1, room)));
}

/**
 * Grouped columns: labels along x, one column per series in each group.
 * series: [{name, values: [number|string|bigint], format?(v) → text}], format: axis value → text,
 * least: the smallest axis top (an empty day's axis still reads 0, half and top as whole labels).
 */
export function ColumnChart(props) {
  return html`<${Sized} render=${(width) => columns({ ...props, width })} /><${FiguresTable} ...${props} />`;
}

/** The chart's figures as a table for a screen reader (hidden from sight): a row per label, a column per series. */
function FiguresTable({ name, labels, labelsName, series, format = String, testid }) {
  return html`<table class="visually-hidden" data-testid=${testid ? `${testid}-table` : undefined}>
    <caption>${name}</caption>
    <thead><tr><th scope="col">${labelsName}</th>${series.map((s) => html`<th scope="col">${s.name}</th>`)}</tr></thead>
    <tbody>${labels.map((labelText, i) => html`<tr><th scope="row">${labelText}</th>${series.map((s) => html`<td>${(s.format ?? format)(s.values[i])}</td>`)}</tr>`)}</tbody>
  </table>`;
}

function columns({ labels, series, format = String, width, height = 180, testid, least = 0, name }) {
  const top = Math.max(least, niceMax(Math.max(0, ...series.flatMap((s) => s.values.map(magnitude)))));
  const pad = padFor(format(top));
  const plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
  const groupW = plotW / Math.max(1, labels.length);
  const colW = Math.max(1, (groupW * 0.8) / Math.max(1, series.length));
  const stride = labelStride(labels.length, Math.floor(plotW / 44));
  const y = (v) => pad.top + plotH - (Math.max(0, magnitude(v)) / top) * plotH;
  return html`<svg class="chart" viewBox=${`0 0 ${width} ${height}`} role="img" data-testid=${testid} aria-label=${name ?? series.map((s) => s.name).join(', ')}>
    ${[0, 0.5, 1].map((f) => html`<g class="grid">
      <line x1=${pad.left} x2=${width - pad.right} y1=${pad.top + plotH * (1 - f)} y2=${pad.top + plotH * (1 - f)} />
      <text x=${pad.left - 6} y=${pad.top + plotH * (1 - f) + 4} text-anchor="end">${format(top * f)}</text>
    </g>`)}
    ${labels.map((labelText, i) => html`<g>
      ${series.map((s, k) => {
        const v = s.values[i];
        const x = pad.left + i * groupW + groupW * 0.1 + k * colW;
        const yTop = y(v);
        return html`<rect class=${`mark series-${k}`} x=${x} y=${yTop} width=${colW} height=${Math.max(0, pad.top + plotH - yTop)}>
          <title>${labelText} · ${s.name}: ${(s.format ?? format)(v)}</title>
        </rect>`;
      })}
      ${i % stride === 0 ? html`<text class="axis" x=${pad.left + (i + 0.5) * groupW} y=${height - 8} text-anchor="middle">${labelText}</text>` : null}
    </g>`)}
  </svg>`;
}

/** Lines over a shared axis: series as in ColumnChart. */
export function LineChart(props) {
  return html`<${Sized} render=${(width) => lines({ ...props, width })} /><${FiguresTable} ...${props} />`;
}

function lines({ labels, series, format = String, width, height = 180, testid, least = 0, name }) {
  const top = Math.max(least, niceMax(Math.max(0, ...series.flatMap((s) => s.values.map(magnitude)))));
  const pad = padFor(format(top));
  const plotW = width - pad.left - pad.right, plotH = height - pad.top - pad.bottom;
  const step = plotW / Math.max(1, labels.length - 1);
  const x = (i) => pad.left + (labels.length === 1 ? plotW / 2 : i * step);
  const y = (v) => pad.top + plotH - (Math.max(0, magnitude(v)) / top) * plotH;
  const stride = labelStride(labels.length, Math.floor(plotW / 44));
  return html`<svg class="chart" viewBox=${`0 0 ${width} ${height}`} role="img" data-testid=${testid} aria-label=${name ?? series.map((s) => s.name).join(', ')}>
    ${[0, 0.5, 1].map((f) => html`<g class="grid">
      <line x1=${pad.left} x2=${width - pad.right} y1=${pad.top + plotH * (1 - f)} y2=${pad.top + plotH * (1 - f)} />
      <text x=${pad.left - 6} y=${pad.top + plotH * (1 - f) + 4} text-anchor="end">${format(top * f)}</text>
    </g>`)}
    ${series.map((s, k) => html`<g class=${`line series-${k}`}>
      <polyline points=${s.values.map((v, i) => `${x(i)},${y(v)}`).join(' ')} />
      ${s.values.map((v, i) => html`<circle cx=${x(i)} cy=${y(v)} r="3"><title>${labels[i]} · ${s.name}: ${(s.format ?? format)(v)}</title></circle>`)}
    </g>`)}
    ${labels.map((labelText, i) => (i % stride === 0 ? html`<text class="axis" x=${x(i)} y=${height - 8} text-anchor="middle">${labelText}</text>` : null))}
  </svg>`;
}

/**
 * Horizontal bars, one per row: the label and the value text are HTML (they wrap and
 * keep their size), the bar an SVG of its own. rows: [{label, value (0..max), text, tone?, title?}].
 * One image to a screen reader, named `name` with every row's label and figure.
 */
export function BarList({ rows, max, testid, name }) {
  const top = max ?? niceMax(Math.max(0, ...rows.map((r) => magnitude(r.value))));
  const spoken = `${name}: ${rows.map((r) => `${r.label} ${r.text}`).join(', ')}`;
  return html`<div class="bar-list" data-testid=${testid} role="img" aria-label=${spoken}>
    ${rows.map((r) => {
      const share = top > 0 ? Math.min(1, Math.max(0, magnitude(r.value)) / top) : 0;
      const title = r.title ?? `${r.label}: ${r.text}`;
      return html`<div class="bar-row">
        <span class="bar-label" title=${title}>${r.label}</span>
        <svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none">
          <title>${title}</title>
          <rect class="track" x="0" y="0" width="100" height="10" />
          <rect class=${`mark ${r.tone ?? 'series-0'}`} x="0" y="0" width=${share * 100} height="10" />
        </svg>
        <span class="bar-value" title=${title}>${r.text}</span>
      </div>`;
    })}
  </div>`;
}
