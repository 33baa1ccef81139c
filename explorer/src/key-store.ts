/**
 * Where the API key is kept
 * =========================
 * In sessionStorage (this tab, until it closes) unless the person ticks "remember", then in
 * localStorage too (this browser, until they untick it or clear the field). Never in the URL, a
 * cookie or a log. Storage can be unavailable (a private window, a policy): then the key lives in
 * memory for the page's life, and nothing fails.
 */

const STORAGE_NAME = "quiver.apiKey";

function storage(kind: "session" | "local"): Storage | null {
  try {
    return kind === "session" ? window.sessionStorage : window.localStorage;
  } catch {
    return null;
  }
}

export interface KeyStore {
  readonly key: string;
  readonly remembered: boolean;
  set(key: string, remember: boolean): void;
}

export function openKeyStore(): KeyStore {
  const session = storage("session");
  const local = storage("local");
  const stored = local?.getItem(STORAGE_NAME) ?? null;
  let key = session?.getItem(STORAGE_NAME) ?? stored ?? "";
  let remembered = stored !== null;
  return {
    get key() {
      return key;
    },
    get remembered() {
      return remembered;
    },
    set(next: string, remember: boolean) {
      key = next.trim();
      remembered = remember && key !== "";
      try {
        if (key === "") session?.removeItem(STORAGE_NAME);
        else session?.setItem(STORAGE_NAME, key);
        // Each branch: remembered keys go to localStorage; otherwise none is left there.
        if (remembered) local?.setItem(STORAGE_NAME, key);
        else local?.removeItem(STORAGE_NAME);
      } catch {
        // Storage full or refused: the key still works for this page.
      }
    },
  };
}
