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

  /**
   * The next part when it is already at hand (parsed from a read that brought several), taken without
   * waiting: a consumer drains a read's parts in one go and writes them together. `undefined` when the
   * next part needs a `next` (none at hand, or the stream is over).
   */
  takeReady(): StreamPart | undefined {
    return undefined;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }
}

/** The part at hand from `parts` when it can say (see PartIterator.takeReady); otherwise `undefined`. */
export function takeReady(parts: AsyncIterator<StreamPart>): StreamPart | undefined {
  return parts instanceof PartIterator ? parts.takeReady() : undefined;
}
