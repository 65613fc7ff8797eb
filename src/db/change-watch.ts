import type { Database } from "bun:sqlite";

/**
 * Notices writes made to the database by another process (the CLI revoking a key while the gateway
 * runs) through SQLite's `PRAGMA data_version`, which changes only when another connection commits.
 * Caches call `check()` before serving from memory; it asks SQLite at most once per interval.
 */
export class ChangeWatch {
  #version: number;
  #checkedAt = 0;
  readonly #listeners: Array<() => void> = [];

  constructor(
    private readonly client: Database,
    private readonly intervalMs = 1000,
    private readonly now: () => number = Date.now,
  ) {
    this.#version = this.#read();
  }

  #read(): number {
    return (this.client.query("PRAGMA data_version").get() as { data_version: number }).data_version;
  }

  onChange(listener: () => void): void {
    this.#listeners.push(listener);
  }

  check(): void {
    const now = this.now();
    if (now - this.#checkedAt < this.intervalMs) return;
    this.#checkedAt = now;
    const version = this.#read();
    if (version === this.#version) return;
    this.#version = version;
    for (const listener of this.#listeners) listener();
  }
}
