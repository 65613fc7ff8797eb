/**
 * Reads a body to its end, at most `maxBytes` (of what the stream yields: decoded bytes when the
 * runtime decodes a compressed body). Past the limit the stream is cancelled, which closes its
 * connection, and `tooLarge()` is thrown: nothing beyond the limit is ever held.
 */
export async function readAtMost(body: ReadableStream<Uint8Array>, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  let done = false;
  try {
    for (;;) {
      const read = await reader.read();
      if (read.done) break;
      total += read.value.byteLength;
      if (total > maxBytes) throw tooLarge();
      chunks.push(read.value);
    }
    done = true;
  } finally {
    // Not awaited: a stream whose cancel never settles must not hold the error back.
    if (!done) reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks, total);
}
