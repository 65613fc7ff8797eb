/**
 * Preloaded into a gateway child by memory tests (`bun --preload`): SIGUSR2 runs a full, synchronous
 * garbage collection, so that RSS measured afterwards is what the process still holds, not garbage a
 * lazy collector has not reached yet.
 */
process.on("SIGUSR2", () => {
  Bun.gc(true);
});
