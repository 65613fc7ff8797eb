import type { Logger } from "../core/log.ts";
import type { Budget, RateLimits } from "../core/limits.ts";
import type { Backend } from "./backend.ts";
import { type HealthFeed, RoutingBus, type StickyFeed } from "./team-bus.ts";
import { teamLimits } from "./team-limits.ts";

/** Added to the longest a request may run: a reservation outlives its request by this much at least. */
const RESERVATION_MARGIN_MS = 60_000;

/** What team state is built from: the backend and this replica's routing state. */
export interface TeamStateOptions {
  /** A PostgreSQL backend (`backend.pg` is used). */
  backend: Backend;
  /** The replica's HealthStats. */
  health: HealthFeed;
  /** The replica's StickySessions. */
  sticky: StickyFeed;
  logger: Logger;
  /**
   * The longest a request may run (from the server's timeouts). A reservation a killed replica leaves
   * stops counting against its key this long (plus a margin) after it was made.
   */
  reservationTtlMs: number;
}

/** The state N replicas share in team mode, as the services use it. */
export interface TeamState {
  rateLimits: RateLimits;
  budget: Budget;
  bus: RoutingBus;
  /** Sends what is still written behind (tokens, settled reservations, routing news) and stops listening. */
  close(): Promise<void>;
}

/**
 * Team mode's shared state over a PostgreSQL backend: rate and spend limits exact across replicas
 * (team-limits.ts), and the routing bus that shares sticky sessions and upstream health (team-bus.ts).
 */
export async function teamState(options: TeamStateOptions): Promise<TeamState> {
  const pg = options.backend.pg;
  if (!pg) throw new Error("team state needs the PostgreSQL backend");
  const limits = teamLimits({ pg, logger: options.logger, reservationTtlMs: options.reservationTtlMs + RESERVATION_MARGIN_MS });
  const bus = await RoutingBus.open({ pg, health: options.health, sticky: options.sticky, logger: options.logger });
  return {
    rateLimits: limits.rateLimits,
    budget: limits.budget,
    bus,
    async close() {
      await Promise.all([limits.close(), bus.close()]);
    },
  };
}
