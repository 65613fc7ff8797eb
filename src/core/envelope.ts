/** The routing envelope: what every request style shares and routing reads (see operations.ts). */

/**
 * What routing reads, the same for every operation and style: the model (or a preset's), fallback
 * models, the provider object, plugins, session, end user, metadata and the preset named.
 */
export interface RoutingEnvelope {
  /** As the client named it, after preset expansion: a catalog model id. */
  model: string;
  /** Ordered fallback models (`models[]`); the first is tried first. */
  models?: string[];
  provider?: Record<string, unknown> | null;
  plugins?: Array<Record<string, unknown>>;
  route?: string | null;
  sessionId?: string;
  user?: string;
  metadata?: Record<string, string>;
  /** The preset slug named by `preset` or `@preset/slug`; resolved before routing. */
  preset?: string;
  /** The task a router's classifier assigned (`code:debugging`), recorded with the generation. */
  task?: string;
}
