import { Elysia, t } from "elysia";
import type { RequestStyle } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import { redactStored } from "../core/content-filters.ts";
import { type ContentInput, type ContentSink, generationContent } from "../core/generation-content.ts";
import { FEEDBACK_CATEGORIES } from "../db/generation-feedback.ts";
import type { Services } from "./services.ts";
import { authenticate, type Principal, requireOwnGeneration, requireWorkspaceRoute } from "./auth.ts";

/** What the client sent in, in the reference's shape: the conversation with its system text first. */
export function clientInput(style: RequestStyle, body: Record<string, unknown>): ContentInput {
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  const system = (value: unknown) => (value === undefined || value === null || value === "" ? [] : [{ role: "system", content: value }]);
  if (style === "messages") return { messages: [...system(body.system), ...list(body.messages)] };
  if (style === "responses") {
    const input = typeof body.input === "string" ? [{ role: "user", content: body.input }] : list(body.input);
    return { messages: [...system(body.instructions), ...input] };
  }
  return { messages: list(body.messages) };
}

/**
 * The content sink of a request, or undefined when its workspace does not log I/O
 * (`is_observability_io_logging_enabled`, off by default) or the request falls outside the sampling rate.
 */
export function contentSink(services: Services, principal: Principal, style: RequestStyle, body: Record<string, unknown>): ContentSink | undefined {
  const { workspace } = principal;
  if (!workspace.isObservabilityIoLoggingEnabled || Math.random() >= workspace.ioLoggingSamplingRate) return undefined;
  const rules = (principal.guardrails ?? []).flatMap((guardrail) => guardrail.contentFilters);
  const input = redactStored(clientInput(style, body), rules);
  return (row, answer) => services.generationContent.save(workspace.id, row.id, generationContent(input, row, answer));
}

const IdQuery = t.Object({ id: t.String({ minLength: 1, maxLength: 128 }) });

const ErrorAttempt = t.Object({ code: t.Integer(), message: t.String(), provider_name: t.Union([t.String(), t.Null()]), raw: t.Union([t.String(), t.Null()]) });
const ContentResponse = t.Object({
  data: t.Object({
    input: t.Union([t.Object({ prompt: t.String() }), t.Object({ messages: t.Array(t.Unknown()) })]),
    output: t.Object({ completion: t.Union([t.String(), t.Null()]), reasoning: t.Union([t.String(), t.Null()]) }),
    error: t.Union([
      t.Object({
        status: t.Union([t.Integer(), t.Null()]),
        message: t.Union([t.String(), t.Null()]),
        provider_name: t.Union([t.String(), t.Null()]),
        raw: t.Union([t.String(), t.Null()]),
        previous_errors: t.Array(ErrorAttempt),
      }),
      t.Null(),
    ]),
  }),
});

const FeedbackBody = t.Object({
  generation_id: t.String({ minLength: 1, maxLength: 128 }),
  category: t.Union(
    FEEDBACK_CATEGORIES.map((category) => t.Literal(category)),
    { expected: `one of ${FEEDBACK_CATEGORIES.join(", ")}` },
  ),
  comment: t.Optional(t.String({ maxLength: 1000 })),
});

const FeedbackResponse = t.Object({ data: t.Object({ success: t.Literal(true) }) });

/**
 * `GET /generation/content` (the workspace's inference and management keys; a plain member's session,
 * its own keys' generations only): a generation's stored input, output and failure, kept only while
 * the workspace logs I/O. `POST /generation/feedback`
 * (management keys): a quality signal on a generation of the workspace, one per generation.
 */
export function generationContentApi(services: Services) {
  return new Elysia({ name: "generation-content-api" })
    .derive(async ({ request }) => ({ principal: await authenticate(services, request) }))
    .get(
      "/generation/content",
      async ({ principal, query }) => {
        requireWorkspaceRoute(principal, ["management", "inference"]);
        if (!principal.workspace.isObservabilityIoLoggingEnabled) {
          throw new GatewayError("not_found", "Generation content is not stored: input/output logging is off for this workspace (is_observability_io_logging_enabled)");
        }
        await services.generationContent.flush();
        await requireOwnGeneration(services, principal, query.id);
        const content = await services.generationContent.get(principal.workspace.id, query.id);
        if (!content) throw new GatewayError("not_found", `Generation '${query.id}' has no stored content`);
        return { data: content };
      },
      { query: IdQuery, response: { 200: ContentResponse } },
    )
    .post(
      "/generation/feedback",
      async ({ principal, body }) => {
        requireWorkspaceRoute(principal);
        await services.generations.flush();
        const generation = await services.generations.get(principal.workspace.id, body.generation_id);
        if (!generation) throw new GatewayError("not_found", `generation_id: generation '${body.generation_id}' not found`);
        await services.generationFeedback.submit(principal.workspace.id, generation.id, { category: body.category, comment: body.comment ?? null, keyHash: principal.key.hash });
        return { data: { success: true as const } };
      },
      { body: FeedbackBody, response: { 200: FeedbackResponse } },
    );
}
