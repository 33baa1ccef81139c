/**
 * SVG charts for the benchmark report
 * ===================================
 * Owns the drawing: each function returns one self-contained `<svg>` element as a string (no
 * script, no external font or stylesheet, nothing fetched), so the HTML report works offline and
 * a chart can be saved alone as an .svg file (the README's picture). Every chart carries a
 * `data-chart` attribute naming it (the report test looks for them) and `<title>` elements that
 * give exact figures on hover.
 *
 * Charts: latency dots (p50) with whiskers to p99 per case and implementation, on a log axis;
 * lines on log-log or log-linear axes (latency against page depth, the stream's CDF); one stacked
 * bar (build time by phase); bars against goal marks (memory per structure).
 *
 * Log axes: ticks at 1, 2 and 5 times powers of ten inside the data's range, the range widened to
 * whole decades so two charts of the same unit line up by eye.
 */

import { num } from "./format.js";

export const PALETTE: Record<string, string> = {
  quiver: "#1f5fbf",
  "naive scan": "#c0392b",
  "Map store": "#e67e22",
  "N3 Store": "#27ae60",
};
/** Colours for series that are not implementations (phases, CDF families), in order. */
export const SERIES_COLOURS = ["#1f5fbf", "#e67e22", "#27ae60", "#c0392b", "#8e44ad", "#16a085", "#7f8c8d", "#d4ac0d"];
const GOAL_COLOUR = "#b03030";
const GOAL_DASH = "5 3";
const STRETCH_DASH = "2 2";
const GRID_COLOUR = "#e3e3e3";
const AXIS_COLOUR = "#555";
const FONT = `font-family="system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"`;

export function escapeXml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface Scale {
  at: (v: number) => number;
  ticks: number[];
}

/** A log scale over [lo, hi] widened to whole decades, onto pixels [from, to]. */
function logScale(lo: number, hi: number, from: number, to: number): Scale {
  const positive = (x: number) => (Number.isFinite(x) && x > 0 ? x : 1);
  const a = Math.floor(Math.log10(positive(Math.min(lo, hi))));
  let b = Math.ceil(Math.log10(positive(Math.max(lo, hi))));
  if (b <= a) b = a + 1;
  const at = (v: number) => from + ((Math.log10(positive(v)) - a) / (b - a)) * (to - from);
  const ticks: number[] = [];
  for (let e = a; e <= b; e++)
    for (const m of b - a > 4 ? [1] : [1, 2, 5]) if (m * 10 ** e <= 10 ** b) ticks.push(m * 10 ** e);
  return { at, ticks };
}

function linearScale(lo: number, hi: number, from: number, to: number, tickCount = 5): Scale {
  const span = hi - lo || 1;
  const step = niceStep(span / tickCount);
  const top = Math.ceil(hi / step) * step;
  const bottom = Math.floor(lo / step) * step;
  const at = (v: number) => from + ((v - bottom) / (top - bottom || 1)) * (to - from);
  const ticks: number[] = [];
  for (let v = bottom; v <= top + step / 2; v += step) ticks.push(Number(v.toPrecision(12)));
  return { at, ticks };
}

function niceStep(raw: number): number {
  const p = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function tickLabel(v: number): string {
  if (v >= 1000) return num(v, 0);
  if (v >= 1) return String(Number(v.toPrecision(3)));
  return String(Number(v.toPrecision(2)));
}

function text(x: number, y: number, s: string, attrs = ""): string {
  return `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${attrs}>${escapeXml(s)}</text>`;
}

function open(name: string, width: number, height: number, title: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" data-chart="${escapeXml(name)}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeXml(title)}" ${FONT} font-size="12"><rect width="${width}" height="${height}" fill="#fff"/>${text(12, 20, title, 'font-size="14" font-weight="600" fill="#222"')}`;
}

/** Legend entries: a filled square, or a line with the given dash pattern. */
function legend(x: number, y: number, entries: readonly { name: string; colour: string; dash?: string }[]): string {
  let out = "";
  let at = x;
  for (const e of entries) {
    out +=
      e.dash !== undefined
        ? `<line x1="${at}" y1="${y - 4}" x2="${at + 14}" y2="${y - 4}" stroke="${e.colour}" stroke-width="2" stroke-dasharray="${e.dash}"/>`
        : `<rect x="${at}" y="${y - 9}" width="12" height="10" rx="2" fill="${e.colour}"/>`;
    out += text(at + 18, y, e.name, 'fill="#333"');
    at += 30 + e.name.length * 6.6;
  }
  return out;
}

function xAxis(scale: Scale, y: number, top: number, label: string, left: number, right: number): string {
  let out = `<line x1="${left}" y1="${y}" x2="${right}" y2="${y}" stroke="${AXIS_COLOUR}"/>`;
  for (const t of scale.ticks) {
    const x = scale.at(t);
    out += `<line x1="${x.toFixed(1)}" y1="${top}" x2="${x.toFixed(1)}" y2="${y}" stroke="${GRID_COLOUR}"/>`;
    out += text(x, y + 15, tickLabel(t), 'text-anchor="middle" fill="#444"');
  }
  out += text((left + right) / 2, y + 32, label, 'text-anchor="middle" fill="#333"');
  return out;
}

function yAxis(scale: Scale, x: number, right: number, label: string, top: number, bottom: number): string {
  let out = `<line x1="${x}" y1="${top}" x2="${x}" y2="${bottom}" stroke="${AXIS_COLOUR}"/>`;
  for (const t of scale.ticks) {
    const y = scale.at(t);
    out += `<line x1="${x}" y1="${y.toFixed(1)}" x2="${right}" y2="${y.toFixed(1)}" stroke="${GRID_COLOUR}"/>`;
    out += text(x - 6, y + 4, tickLabel(t), 'text-anchor="end" fill="#444"');
  }
  const cy = (top + bottom) / 2;
  out += `<text x="14" y="${cy}" transform="rotate(-90 14 ${cy})" text-anchor="middle" fill="#333">${escapeXml(label)}</text>`;
  return out;
}

export interface WhiskerRow {
  label: string;
  /** One mark per implementation that answered the case. */
  marks: { impl: string; p50: number; p99: number; note?: string }[];
}

/**
 * p50 dots with whiskers to p99, one row per case, one mark per implementation inside the row,
 * on a log axis of microseconds; dashed vertical lines at the goals.
 */
export function whiskerChart(options: {
  name: string;
  title: string;
  rows: readonly WhiskerRow[];
  goals?: readonly { value: number; label: string }[];
  width?: number;
}): string {
  const width = options.width ?? 900;
  const impls = [...new Set(options.rows.flatMap((r) => r.marks.map((m) => m.impl)))];
  const sub = 9;
  const rowHeight = Math.max(20, impls.length * sub + 6);
  const left = 250;
  // Room for the last tick's label ("10,000,000") past the axis end.
  const right = width - 44;
  const top = 52;
  const bottom = top + options.rows.length * rowHeight;
  const height = bottom + 44;
  const values = options.rows.flatMap((r) => r.marks.flatMap((m) => [m.p50, m.p99]));
  for (const g of options.goals ?? []) values.push(g.value);
  const finite = values.filter((v) => Number.isFinite(v) && v > 0);
  const x = logScale(Math.min(...finite, 1), Math.max(...finite, 10), left, right);
  let out = open(options.name, width, height, options.title);
  out += legend(
    left,
    40,
    impls.map((i) => ({ name: i, colour: PALETTE[i] ?? "#555" })),
  );
  out += xAxis(x, bottom, top, "µs (log scale): dot p50, whisker to p99", left, right);
  options.rows.forEach((r, i) => {
    const y0 = top + i * rowHeight;
    if (i % 2 === 1)
      out += `<rect x="0" y="${y0}" width="${right}" height="${rowHeight}" fill="#f7f7f7" opacity="0.6"/>`;
    out += text(
      left - 8,
      y0 + rowHeight / 2 + 4,
      r.label.length > 38 ? `${r.label.slice(0, 37)}…` : r.label,
      'text-anchor="end" fill="#222"',
    );
    r.marks.forEach((m) => {
      const k = impls.indexOf(m.impl);
      const y = y0 + 3 + sub / 2 + k * sub + (rowHeight - impls.length * sub - 6) / 2;
      const colour = PALETTE[m.impl] ?? "#555";
      const x50 = x.at(m.p50);
      const x99 = x.at(m.p99);
      out += `<g><title>${escapeXml(`${r.label}, ${m.impl}: p50 ${num(m.p50)} µs, p99 ${num(m.p99)} µs${m.note ? `; ${m.note}` : ""}`)}</title>`;
      out += `<line x1="${x50.toFixed(1)}" y1="${y.toFixed(1)}" x2="${x99.toFixed(1)}" y2="${y.toFixed(1)}" stroke="${colour}" stroke-width="1.5"/>`;
      out += `<line x1="${x99.toFixed(1)}" y1="${(y - 3).toFixed(1)}" x2="${x99.toFixed(1)}" y2="${(y + 3).toFixed(1)}" stroke="${colour}" stroke-width="1.5"/>`;
      out += `<circle cx="${x50.toFixed(1)}" cy="${y.toFixed(1)}" r="3.6" fill="${colour}"/></g>`;
    });
  });
  for (const g of options.goals ?? []) {
    const gx = x.at(g.value);
    out += `<line x1="${gx.toFixed(1)}" y1="${top - 4}" x2="${gx.toFixed(1)}" y2="${bottom}" stroke="${GOAL_COLOUR}" stroke-dasharray="5 4"/>`;
    out += text(gx + 3, top + 8, g.label, `fill="${GOAL_COLOUR}" font-size="11"`);
  }
  return `${out}</svg>`;
}

export interface LineSeries {
  name: string;
  colour: string;
  dashed?: boolean;
  points: readonly { x: number; y: number; note?: string }[];
}

/** Lines with point marks; x on a log axis, y on a log or linear axis. */
export function lineChart(options: {
  name: string;
  title: string;
  series: readonly LineSeries[];
  xLabel: string;
  yLabel: string;
  yLog: boolean;
  /** Linear y only: the axis range. */
  yRange?: [number, number];
  marks?: boolean;
  goals?: readonly { value: number; label: string }[];
  width?: number;
  height?: number;
}): string {
  const width = options.width ?? 900;
  const height = options.height ?? 380;
  const left = 70;
  const right = width - 44;
  const top = 52;
  const bottom = height - 46;
  const xs = options.series.flatMap((s) => s.points.map((p) => p.x)).filter((v) => Number.isFinite(v) && v > 0);
  const ys = options.series
    .flatMap((s) => s.points.map((p) => p.y))
    .filter((v) => Number.isFinite(v) && (!options.yLog || v > 0));
  for (const g of options.goals ?? []) xs.push(g.value);
  const x = logScale(Math.min(...xs, 1), Math.max(...xs, 10), left, right);
  const y = options.yLog
    ? logScale(Math.min(...ys, 1), Math.max(...ys, 10), bottom, top)
    : linearScale(options.yRange?.[0] ?? Math.min(...ys, 0), options.yRange?.[1] ?? Math.max(...ys, 1), bottom, top);
  let out = open(options.name, width, height, options.title);
  out += legend(
    left,
    40,
    options.series.map((s) => ({ name: s.name, colour: s.colour, ...(s.dashed ? { dash: "6 4" } : {}) })),
  );
  out += yAxis(y, left, right, options.yLabel, top, bottom);
  out += xAxis(x, bottom, top, options.xLabel, left, right);
  for (const g of options.goals ?? []) {
    const gx = x.at(g.value);
    out += `<line x1="${gx.toFixed(1)}" y1="${top}" x2="${gx.toFixed(1)}" y2="${bottom}" stroke="${GOAL_COLOUR}" stroke-dasharray="5 4"/>`;
    out += text(gx + 3, top + 12, g.label, `fill="${GOAL_COLOUR}" font-size="11"`);
  }
  for (const s of options.series) {
    const pts = s.points.filter(
      (p) => Number.isFinite(p.x) && Number.isFinite(p.y) && p.x > 0 && (!options.yLog || p.y > 0),
    );
    if (pts.length === 0) continue;
    const d = pts.map((p, i) => `${i === 0 ? "M" : "L"}${x.at(p.x).toFixed(1)} ${y.at(p.y).toFixed(1)}`).join(" ");
    out += `<path d="${d}" fill="none" stroke="${s.colour}" stroke-width="2"${s.dashed ? ' stroke-dasharray="6 4"' : ""}/>`;
    if (options.marks ?? true)
      for (const p of pts)
        out += `<circle cx="${x.at(p.x).toFixed(1)}" cy="${y.at(p.y).toFixed(1)}" r="3.5" fill="${s.colour}"><title>${escapeXml(p.note ?? `${s.name}: ${num(p.x)}, ${num(p.y)}`)}</title></circle>`;
  }
  return `${out}</svg>`;
}

/** One horizontal bar cut into segments (e.g. build time by phase), with a legend of values. */
export function stackedBar(options: {
  name: string;
  title: string;
  unit: string;
  segments: readonly { label: string; value: number }[];
  width?: number;
}): string {
  const width = options.width ?? 900;
  const left = 24;
  const right = width - 24;
  const total = options.segments.reduce((a, s) => a + s.value, 0) || 1;
  const legendRows = options.segments.length;
  const height = 110 + legendRows * 18;
  let out = open(options.name, width, height, options.title);
  let at = left;
  options.segments.forEach((s, i) => {
    const w = ((right - left) * s.value) / total;
    const colour = SERIES_COLOURS[i % SERIES_COLOURS.length]!;
    out += `<rect x="${at.toFixed(1)}" y="40" width="${Math.max(0.5, w).toFixed(1)}" height="30" fill="${colour}"><title>${escapeXml(`${s.label}: ${num(s.value)} ${options.unit}`)}</title></rect>`;
    at += w;
  });
  out += text(right, 88, `total ${num(total)} ${options.unit}`, 'text-anchor="end" fill="#222" font-weight="600"');
  options.segments.forEach((s, i) => {
    const y = 108 + i * 18;
    out += `<rect x="${left}" y="${y - 10}" width="12" height="12" rx="2" fill="${SERIES_COLOURS[i % SERIES_COLOURS.length]}"/>`;
    out += text(
      left + 18,
      y,
      `${s.label}: ${num(s.value)} ${options.unit} (${num((100 * s.value) / total, 0)}%)`,
      'fill="#333"',
    );
  });
  return `${out}</svg>`;
}

/** Horizontal bars of one unit, each with its goal (dashed) and stretch (dotted) marks. */
export function barChart(options: {
  name: string;
  title: string;
  unit: string;
  bars: readonly { label: string; value: number; goal?: number; stretch?: number }[];
  width?: number;
}): string {
  const width = options.width ?? 900;
  const left = 300;
  const right = width - 80;
  const top = 40;
  const rowHeight = 26;
  const bottom = top + options.bars.length * rowHeight;
  const height = bottom + 44;
  const hi = Math.max(...options.bars.flatMap((b) => [b.value, b.goal ?? 0, b.stretch ?? 0]), 1);
  const x = linearScale(0, hi, left, right);
  let out = open(options.name, width, height, options.title);
  out += xAxis(x, bottom, top, options.unit, left, right);
  options.bars.forEach((b, i) => {
    const y = top + i * rowHeight;
    const ok = b.goal === undefined || b.value <= b.goal;
    const colour = ok ? PALETTE["quiver"]! : GOAL_COLOUR;
    out += text(left - 8, y + rowHeight / 2 + 4, b.label, 'text-anchor="end" fill="#222"');
    out += `<rect x="${left}" y="${y + 5}" width="${Math.max(0.5, x.at(b.value) - left).toFixed(1)}" height="${rowHeight - 10}" fill="${colour}" opacity="0.85"><title>${escapeXml(`${b.label}: ${num(b.value)} ${options.unit}${b.goal === undefined ? "" : `, goal ≤ ${num(b.goal)}`}${b.stretch === undefined ? "" : `, stretch ≤ ${num(b.stretch)}`}`)}</title></rect>`;
    out += text(x.at(b.value) + 5, y + rowHeight / 2 + 4, num(b.value), 'fill="#222"');
    for (const [v, dash] of [
      [b.goal, GOAL_DASH],
      [b.stretch, STRETCH_DASH],
    ] as const) {
      if (v === undefined) continue;
      out += `<line x1="${x.at(v).toFixed(1)}" y1="${y + 2}" x2="${x.at(v).toFixed(1)}" y2="${y + rowHeight - 2}" stroke="${GOAL_COLOUR}" stroke-width="2" stroke-dasharray="${dash}"/>`;
    }
  });
  // The legend of the goal marks only where a bar has one (the report draws them with --goals).
  if (options.bars.some((b) => b.goal !== undefined || b.stretch !== undefined))
    out += legend(right - 160, 20, [
      { name: "goal", colour: GOAL_COLOUR, dash: GOAL_DASH },
      { name: "stretch goal", colour: GOAL_COLOUR, dash: STRETCH_DASH },
    ]);
  return `${out}</svg>`;
}
