/**
 * A request body of known length that can be read two ways. As the ReadableStream it is, each chunk its
 * own copy: fetch (https, proxies), the simulator and a caller's own network read it so. By `chunks`,
 * which the gateway's HTTP/1.1 client (upstream-client.ts) writes as they come, each one on the socket
 * before it asks for the next: a chunk is valid only until then, so a file on disk is sent through one
 * buffer and sending it allocates nothing per chunk, whatever its size. `chunks` starts over each time
 * it is called (a request sent again on a fresh connection reads its body again).
 */
export class SizedBody extends ReadableStream<Uint8Array> {
  constructor(
    readonly length: number,
    readonly chunks: () => AsyncIterable<Uint8Array>,
  ) {
    let iterator: AsyncIterator<Uint8Array> | undefined;
    super({
      async pull(controller) {
        iterator ??= chunks()[Symbol.asyncIterator]();
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value.slice());
      },
      async cancel() {
        await iterator?.return?.();
      },
    });
  }
}
