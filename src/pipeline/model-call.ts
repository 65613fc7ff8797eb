/**
 * A model call a plugin makes (a guard model, a fusion panelist, a compression summary): routed like any
 * request (the workspace's provider lists, fallbacks, health), without plugins and not streamed. It
 * writes no record of its own: its attempts join the calling generation's (marked `call`) and its cost
 * is added to that generation's, settled and recorded with it.
 */
import type { CanonicalRequest, CanonicalResponse } from "../core/canonical.ts";
import type { Endpoint } from "../core/catalog-types.ts";
import { chargeFor } from "../core/cost.ts";
import { GatewayError } from "../core/errors.ts";
import { adapterFor } from "../providers/registry.ts";
import { openStream, sendJson } from "../transport/engine.ts";
import type { PluginContext } from "../plugins/contract.ts";
import { offerServerTools } from "./server-tool-offer.ts";
import { runToolLoop, turnRecord } from "./tool-loop.ts";
import { ClientGone, RequestEnded, tryInOrder } from "./attempts.ts";
import { routePlan } from "./byok-plan.ts";
import type { PipelineDeps } from "./deps.ts";
import { type AttemptRecord, type Caller, estimatedUsage } from "./generation-record.ts";
import { checkGuardrailModels, filterGuardrailContent } from "./guardrail-admission.ts";

/** The calling generation: its attempts and the cost of its calls so far. */
export interface CallParent {
  attempts: AttemptRecord[];
  calls: { cost: number };
}

export async function modelCall(
  deps: PipelineDeps,
  input: { model: string; request: Omit<CanonicalRequest, "model">; caller: Caller; signal: AbortSignal; parent: CallParent; context: PluginContext },
  redact: (error: GatewayError, endpoint: Endpoint) => GatewayError,
): Promise<CanonicalResponse> {
  const { caller, signal, parent } = input;
  const called = { ...input.request, model: input.model, stream: false, streamUsage: false } as CanonicalRequest;
  delete called.plugins;
  // Server tools the call asks for (a fusion panelist's) run in the call's own loop, on its endpoint.
  const offered = called.serverTools?.length ? await offerServerTools(deps.plugins, called, input.context) : [];
  checkGuardrailModels(caller, called, deps.catalog);
  // A plugin's call records no flags of its own: the generation records those of the client's request.
  const { request } = filterGuardrailContent(caller, called);
  const plan = routePlan(deps, request, caller);
  const attempts: AttemptRecord[] = [];
  try {
    return await tryInOrder(
      plan,
      {
        generationId: "call",
        health: deps.health,
        logger: deps.logger,
        signal,
        attempts,
        failed: (error, attempt) => redact(error, attempt.endpoint),
        counted: (provider, status, code) => deps.metrics?.attempt(provider, status, code),
      },
      async ({ model, endpoint }) => {
        const started = performance.now();
        const adapter = adapterFor(endpoint.provider);
        const chat = adapter.chat;
        if (chat === undefined) throw new GatewayError("bad_gateway", `${endpoint.provider.name} does not serve chat`);
        const attemptRequest = { ...request, model: model.id };
        const build = { stream: false, apiKey: deps.credentialFor(caller.workspaceId, endpoint) };
        const send = { fetch: deps.transports.fetchFor(endpoint.provider), signal };
        const charge = chargeFor(endpoint.pricing);
        const response =
          offered.length === 0
            ? await sendJson(chat.buildRequest(attemptRequest, endpoint, build), endpoint, chat, adapter, send)
            : await runToolLoop({
                request: attemptRequest,
                offered,
                context: input.context,
                endpoint,
                costOf: charge.total,
                turns: {
                  json: (turn) => sendJson(chat.buildRequest(turn, endpoint, build), endpoint, chat, adapter, send),
                  stream: (turn) => openStream(chat.buildRequest(turn, endpoint, build), endpoint, chat, adapter, send),
                },
                // The call's cost joins the calling generation's, which reserved for its own turns.
                reserveTurn: async () => true,
                onTurn: (turn) => attempts.push(turnRecord(endpoint, model.id, turn, charge.total)),
              });
        const usage = response.usage ?? estimatedUsage(response.output, attemptRequest);
        parent.calls.cost += charge.total(usage);
        attempts.push({
          provider: endpoint.provider.slug,
          endpoint: endpoint.key,
          model: model.id,
          status: 200,
          latency_ms: Math.round(performance.now() - started),
          tokens_prompt: usage.inputTokens,
          tokens_completion: usage.outputTokens,
          cost: charge.total(usage),
        });
        deps.metrics?.attempt(endpoint.provider.slug, 200);
        return response;
      },
    );
  } catch (caught) {
    throw caught instanceof ClientGone || caught instanceof RequestEnded ? caught.error : caught;
  } finally {
    for (const attempt of attempts) parent.attempts.push({ ...attempt, call: true });
  }
}
