import type { StreamPart } from "./canonical.ts";

/**
 * A stream of parts that implements the async generator's protocol itself (next, return, throw) instead
 * of being a generator, to spare a generator layer's promise turns per part. The protocol's fixed
 * parts: it is its own iterator, and disposing of it returns it.
 */
export abstract class PartIterator implements AsyncGenerator<StreamPart, undefined> {
  abstract next(): Promise<IteratorResult<StreamPart, undefined>>;
  abstract return(): Promise<IteratorResult<StreamPart, undefined>>;
  abstract throw(error: unknown): Promise<IteratorResult<StreamPart, undefined>>;

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}
