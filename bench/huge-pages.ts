/**
 * Huge pages: whether this process has them
 * =========================================
 * Owns what a benchmark says of the process's pages. A graph is a few large typed arrays and text
 * chunks (malloc'd off the JavaScript heap), read at random: at 10M entities / 100M statements
 * about 4 GB, so with 4 KiB pages nearly every read of a page's rows, entities and text misses the
 * TLB as well as the cache, and the page walk itself misses. With 2 MiB pages the CPU's second-level
 * TLB covers gigabytes (docs/operations.md, "Huge pages"). On Linux with transparent huge pages in
 * `madvise` mode (the common default) a process gets them only for memory it asks for with
 * madvise(MADV_HUGEPAGE); glibc 2.35 and later does that for its mmapped chunks when started with
 * GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (read once, at process start: nothing can turn it on later).
 *
 * `hugePages()` reads the system's mode, whether the tunable is set, and how much of the resident
 * set is in huge pages now (/proc/self/smaps_rollup, AnonHugePages): the one proof that it took.
 * `withHugePages(env, on)` is an environment for a child process with the tunable set or removed.
 * Elsewhere than Linux every reading is null.
 */

import { readFileSync } from "node:fs";

/** The glibc tunable that makes malloc madvise its mmapped chunks for transparent huge pages. */
export const HUGE_PAGE_TUNABLE = "glibc.malloc.hugetlb=1";

export interface HugePages {
  /** The transparent huge page mode (always, madvise, never), or null when unknown. */
  mode: string | null;
  /** Whether GLIBC_TUNABLES asks malloc for huge pages (hugetlb=1, or 2: reserved pages). */
  tunable: boolean;
  /** Bytes of the resident set in transparent huge pages, and the resident set; null when unknown. */
  hugeBytes: number | null;
  rssBytes: number | null;
}

function readOr(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** The kB figure of `field` in a /proc file's text, in bytes; null when absent. */
function kbField(text: string | null, field: string): number | null {
  const m = text === null ? null : new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(text);
  return m === null ? null : Number(m[1]) * 1024;
}

export function hugePages(): HugePages {
  const enabled = readOr("/sys/kernel/mm/transparent_hugepage/enabled");
  const rollup = readOr("/proc/self/smaps_rollup");
  return {
    // The file lists every mode, the one in effect in brackets: "always [madvise] never".
    mode: /\[(\w+)\]/.exec(enabled ?? "")?.[1] ?? null,
    tunable: /(^|:)glibc\.malloc\.hugetlb=[12]($|:)/.test(process.env.GLIBC_TUNABLES ?? ""),
    hugeBytes: kbField(rollup, "AnonHugePages"),
    rssBytes: kbField(rollup, "Rss"),
  };
}

/** One line for a report: the mode, the tunable, and the share of the resident set in huge pages. */
export function describeHugePages(h: HugePages): string {
  const mb = (b: number) => `${Math.round(b / 1e6).toLocaleString("en-US")} MB`;
  const share =
    h.hugeBytes === null || h.rssBytes === null
      ? "resident set unknown"
      : `${mb(h.hugeBytes)} of ${mb(h.rssBytes)} resident in huge pages`;
  return `transparent huge pages ${h.mode ?? "unknown"}, GLIBC_TUNABLES ${h.tunable ? HUGE_PAGE_TUNABLE : "without hugetlb"}; ${share}`;
}

/** `env` with the tunable added (on) or taken out (off), the other tunables kept. */
export function withHugePages(env: NodeJS.ProcessEnv, on: boolean): NodeJS.ProcessEnv {
  const others = (env.GLIBC_TUNABLES ?? "")
    .split(":")
    .filter((t) => t !== "" && !t.startsWith("glibc.malloc.hugetlb="));
  const tunables = on ? [...others, HUGE_PAGE_TUNABLE] : others;
  const out = { ...env };
  if (tunables.length === 0) delete out.GLIBC_TUNABLES;
  else out.GLIBC_TUNABLES = tunables.join(":");
  return out;
}
