import type { SecretBox } from "../core/secret-box.ts";
import type { Backend } from "./backend.ts";

/**
 * A counter of the writes to one table, for readers that keep decrypted copies of its rows: bumped
 * before and after each write made here and on every change another process or replica announces, so
 * a copy taken at one value is stale once the value differs.
 */
class WriteVersion {
  #value = 0;

  constructor(backend: Backend, table: string) {
    backend.changes.onChange((changed) => {
      if (changed === "*" || changed === table) this.#value++;
    });
  }

  /** The current value; only its equality with an earlier reading means anything. */
  get value(): number {
    return this.#value;
  }

  /** Runs a write, marking kept copies stale before it starts and after it ends (committed or not). */
  async around<T>(work: () => Promise<T>): Promise<T> {
    this.#value++;
    try {
      return await work();
    } finally {
      this.#value++;
    }
  }
}

/**
 * A store of secrets sealed with the SecretBox in one table, whose `version` tells readers holding
 * revealed plaintext when their copy is stale; subclasses run their writes through `writes.around`.
 */
export abstract class SealedStore {
  protected readonly writes: WriteVersion;

  constructor(
    protected readonly backend: Backend,
    protected readonly box: SecretBox,
    table: string,
  ) {
    this.writes = new WriteVersion(backend, table);
  }

  /** Bumped on every write (here, or another process's or replica's): revealed secrets are stale. */
  get version(): number {
    return this.writes.value;
  }
}
