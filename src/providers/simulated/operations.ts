/**
 * The simulator's answers to the operations besides chat, each on the OpenAI wire path an
 * OpenAI-compatible server serves it at (`/embeddings`, `/audio/speech`, ...). Deterministic: the same
 * request always gets the same answer, so `npm start` demos every operation without an upstream.
 */
import type { Simulation } from "../../core/catalog-types.ts";

/** Answers one simulated request (the path is the part after the provider's base URL). */
export type SimulatedHandler = (request: Request, simulation: Simulation) => Promise<Response>;

/** Path → handler. Each operation's module adds its own routes here. */
export const SIMULATED_ROUTES: Array<{ path: RegExp; method?: string; handle: SimulatedHandler }> = [];

/** The handler for a simulated request to `url`, or undefined for chat (the default). */
export function simulatedRoute(url: string, method: string): SimulatedHandler | undefined {
  const path = new URL(url).pathname;
  return SIMULATED_ROUTES.find((route) => route.path.test(path) && (route.method ?? "POST") === method)?.handle;
}
