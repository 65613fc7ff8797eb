/**
 * The plugin form's own parts: enabling the tool (once) with the instruction, and the 503 when the
 * tool reports that every panelist failed, for JSON answers and streams.
 */
import { describe, expect, test } from "bun:test";
import { type AttemptResult, GatewayError, type OutputBlock, type ServerToolResult, type StreamPart } from "../../src/plugins/api.ts";
import { req, userText } from "../../test/helpers/routing.ts";
import { rememberedConversation } from "./conversation.ts";
import { enableFusion, FUSION_INSTRUCTION, failWhenPanelFailed, streamFailingWhenPanelFailed } from "./plugin-form.ts";

const system = { role: "system" as const, content: [{ type: "text" as const, text: "Be brief." }] };

const allFailed: ServerToolResult = {
  content: { status: "error", error: "every panel model failed", failure_reason: "all_panels_failed" },
  isError: true,
  display: { failed_models: [{ model: "m/a", error: "down", status_code: 502 }] },
};
const call = { id: "call_1", name: "fusion", arguments: "{}" };

describe("enableFusion", () => {
  test("adds the tool with the config as parameters, the instruction after the leading system messages, and remembers the conversation as sent", () => {
    const request = req("m/outer", { messages: [system, userText("Q?")] });
    const enabled = enableFusion(request, { analysis_models: ["m/a"] });
    expect(enabled.serverTools).toEqual([{ name: "fusion", parameters: { analysis_models: ["m/a"] } }]);
    expect(enabled.messages.map((message) => message.role)).toEqual(["system", "system", "user"]);
    expect(enabled.messages[1]!.content).toEqual([{ type: "text", text: FUSION_INSTRUCTION }]);
    expect(rememberedConversation(enabled.serverTools![0]!.parameters)).toBe(request.messages);
  });

  test("a request that already names the tool keeps it and its parameters: never two", () => {
    const own = { name: "fusion", parameters: { model: "m/judge" } };
    const enabled = enableFusion(req("m/outer", { serverTools: [own] }), { analysis_models: ["m/a"] });
    expect(enabled.serverTools).toEqual([own]);
    expect(rememberedConversation(own.parameters)).toBeDefined();
  });
});

describe("every panelist failed", () => {
  const json = (output: OutputBlock[]): AttemptResult => ({ kind: "json", response: { output, finishReason: "stop" } });

  test("a JSON answer whose fusion call failed entirely becomes a 503 with availability; a degraded one passes", () => {
    let thrown: unknown;
    try {
      failWhenPanelFailed(json([{ type: "server-tool-call", call, result: allFailed }, { type: "text", text: "sorry" }]));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).status).toBe(503);
    expect((thrown as GatewayError).availability).toMatchObject({ code: "temporarily_unavailable", requested_models: ["m/a"] });
    const degraded = json([{ type: "server-tool-call", call, result: { content: { status: "ok" } } }]);
    expect(failWhenPanelFailed(degraded)).toBe(degraded);
    const capped = json([{ type: "server-tool-call", call, result: { ...allFailed, content: { status: "error", failure_reason: "fusion_invocation_capped" } } }]);
    expect(failWhenPanelFailed(capped)).toBe(capped);
  });

  test("a stream ends with the 503 as its error part at the failed call; nothing after it is read", async () => {
    let readAfter = false;
    async function* parts(): AsyncGenerator<StreamPart> {
      yield { type: "start" };
      yield { type: "server-tool-call", call, result: allFailed };
      readAfter = true;
      yield { type: "text-delta", text: "never" };
      yield { type: "finish", reason: "stop" };
    }
    const seen: StreamPart[] = [];
    for await (const part of streamFailingWhenPanelFailed(parts())) seen.push(part);
    expect(seen.map((part) => part.type)).toEqual(["start", "error"]);
    expect(seen[1]!.type === "error" && seen[1]!.error.status).toBe(503);
    expect(readAfter).toBe(false);
  });
});
