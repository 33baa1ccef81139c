/**
 * Benchmark text output
 * =====================
 * Owns how the benchmark writes to a terminal: numbers in one unit per column, and tables that fit
 * TERMINAL_COLUMNS, never mixing ns, µs and ms in one column. A column names its unit in its header
 * ("p50 µs"); a cell holds a bare number.
 *
 * Rule for numbers: three significant digits where that is enough, never scientific notation, and
 * thousands separators from 1,000 up, so a column of µs reads from 0.85 to 1,234,567 without a
 * change of unit. The first column (the case's name) is cut with "…" when a row would not fit.
 *
 * Cost: string work on a few dozen rows; nothing here runs inside a timed region.
 */

/** Widest line the benchmark prints. */
export const TERMINAL_COLUMNS = 100;
/** Spaces between two columns. */
const GAP = 2;

/** A number as people read it: 0.85, 8.50, 85.0, 850, 8,500. NaN and undefined print as "–". */
export function num(x: number | undefined | null, decimals?: number): string {
  if (x === undefined || x === null || !Number.isFinite(x)) return "–";
  const digits = decimals ?? (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2);
  return x.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/**
 * A bench:changes read row's figures as cells: base and live p50, live over base, base and live p99,
 * live over base (µs to one decimal, ratios to two): the printed table's and the HTML report's.
 */
export function readCells(r: { baseP50us: number; liveP50us: number; baseP99us: number; liveP99us: number }): string[] {
  return [
    num(r.baseP50us, 1),
    num(r.liveP50us, 1),
    num(r.liveP50us / r.baseP50us, 2),
    num(r.baseP99us, 1),
    num(r.liveP99us, 1),
    num(r.liveP99us / r.baseP99us, 2),
  ];
}

/** A whole count with thousands separators. */
export function count(n: number): string {
  return Math.round(n).toLocaleString("en-US");
}

export function mib(bytes: number): string {
  return num(bytes / 2 ** 20, 1);
}

/** Milliseconds as seconds, for the "s" columns. */
export function secondsOf(ms: number): string {
  return num(ms / 1000, 2);
}

export interface Column {
  header: string;
  /** Numbers align right, text left (the default for the first column). */
  align?: "left" | "right";
}

/**
 * A table as lines of at most TERMINAL_COLUMNS characters. The first column absorbs any shortage:
 * it is cut to what is left after the others (which are never cut: they hold the figures).
 */
export function tableLines(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  const widths = columns.map((c, i) => Math.max(width(c.header), ...rows.map((r) => width(r[i] ?? ""))));
  const others = widths.slice(1).reduce((a, b) => a + b + GAP, 0);
  widths[0] = Math.max(8, Math.min(widths[0] ?? 0, TERMINAL_COLUMNS - others));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, i) => {
        const w = widths[i] ?? 0;
        const text = width(cell) > w ? `${[...cell].slice(0, w - 1).join("")}…` : cell;
        const pad = " ".repeat(Math.max(0, w - width(text)));
        // The first column is text; the others right-aligned unless they say otherwise.
        const right = (columns[i]?.align ?? (i === 0 ? "left" : "right")) === "right";
        return right ? pad + text : text + pad;
      })
      .join(" ".repeat(GAP))
      .trimEnd();
  const header = line(columns.map((c) => c.header));
  return [header, "-".repeat(Math.min(TERMINAL_COLUMNS, width(header))), ...rows.map(line)];
}

export function printTable(columns: readonly Column[], rows: readonly (readonly string[])[]): void {
  for (const l of tableLines(columns, rows)) console.log(l);
}

/** A section heading, then a blank line above the next. */
export function heading(text: string): void {
  console.log(`\n## ${text}`);
}

/** Wraps a paragraph to TERMINAL_COLUMNS. */
export function wrap(text: string, indent = ""): string {
  const words = text.split(/\s+/).filter((w) => w !== "");
  const lines: string[] = [];
  let current = indent;
  for (const w of words) {
    if (current.trim() !== "" && width(current) + 1 + width(w) > TERMINAL_COLUMNS) {
      lines.push(current);
      current = indent + w;
    } else {
      current = current.trim() === "" ? indent + w : `${current} ${w}`;
    }
  }
  if (current.trim() !== "") lines.push(current);
  return lines.join("\n");
}

/** Printed width: code points (the text here has no wide or combining characters but for names). */
function width(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Progress on stderr, so stdout holds only the report. */
export function progress(text: string): void {
  process.stderr.write(`${text.length > TERMINAL_COLUMNS ? `${text.slice(0, TERMINAL_COLUMNS - 1)}…` : text}\n`);
}
