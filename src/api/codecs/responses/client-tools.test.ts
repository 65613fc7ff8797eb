import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { setSystemTime } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import type { CanonicalResponse, StreamPart } from "../../../core/canonical.ts";
import { ResponsesRequest } from "../../schemas/responses-request.ts";
import { responsesCodec } from "./index.ts";
import { checkStream, context, decode, decodeError, expectedFinal, type Json, NOW, run } from "./testing.ts";

beforeAll(() => setSystemTime(NOW));
afterAll(() => setSystemTime());

const GRAMMAR = { type: "grammar", syntax: "lark", definition: 'start: "*** Begin Patch" LF' };

/** The tools Codex 0.169.0 sends (trimmed), plus the other client-run kinds. */
const CODEX_TOOLS = [
  { type: "function", name: "exec_command", description: "Runs a command", strict: false, parameters: { type: "object", properties: { cmd: { type: "string" } } } },
  { type: "custom", name: "apply_patch", description: "Edits files. FREEFORM.", format: GRAMMAR },
  {
    type: "namespace",
    name: "multi_agent_v1",
    description: "Sub-agents",
    tools: [{ type: "function", name: "close_agent", description: "Close an agent", strict: false, parameters: { type: "object", properties: {} } }],
  },
  { type: "tool_search", execution: "client", description: "Finds tools", parameters: { type: "object", properties: { query: { type: "string" } } } },
  { type: "web_search", external_web_access: false },
];

describe("responses codec: tools the client runs", () => {
  test("the schema accepts Codex's tools and every tool_choice form the spec lists", () => {
    expect(Value.Check(ResponsesRequest, { model: "m", tools: [...CODEX_TOOLS, { type: "local_shell" }, { type: "shell" }, { type: "apply_patch" }] })).toBe(true);
    const choices = [
      "auto",
      { type: "function", name: "f" },
      { type: "custom", name: "apply_patch" },
      { type: "web_search_preview" },
      { type: "web_search_preview_2025_03_11" },
      { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "f" }] },
      { type: "apply_patch" },
      { type: "shell" },
    ];
    for (const tool_choice of choices) expect(Value.Check(ResponsesRequest, { model: "m", tool_choice })).toBe(true);
  });

  test("namespaces flatten, custom tools take one string, built-ins become functions, server tools drop", () => {
    const request = decode({ tools: [...CODEX_TOOLS, { type: "local_shell" }, { type: "shell" }, { type: "apply_patch" }] });
    const names = request.tools?.map((tool) => tool.name);
    expect(names).toEqual(["exec_command", "apply_patch", "multi_agent_v1__close_agent", "tool_search", "local_shell", "shell"]);
    const [, custom, member, search, localShell] = request.tools ?? [];
    expect(custom?.origin).toEqual({ kind: "custom" });
    expect(custom?.description).toBe("Edits files. FREEFORM.");
    expect(custom?.parameters).toMatchObject({ type: "object", required: ["input"], properties: { input: { type: "string" } } });
    expect(JSON.stringify(custom?.parameters)).toContain("*** Begin Patch");
    expect(member).toMatchObject({ description: "Close an agent", origin: { kind: "namespace", namespace: "multi_agent_v1", name: "close_agent" } });
    expect(search).toMatchObject({ origin: { kind: "tool_search" }, parameters: { properties: { query: { type: "string" } } } });
    expect(localShell).toMatchObject({ origin: { kind: "local_shell" }, parameters: { required: ["command"] } });
    expect(request.warnings).toEqual(['tools[4]: server tool "web_search" is not supported by any endpoint for this model and was dropped']);
  });

  test("a long namespaced name is shortened to what upstreams accept, the same way every time", () => {
    const tools = [{ type: "namespace", name: "n".repeat(40), tools: [{ type: "function", name: "f".repeat(40) }] }];
    const [tool] = decode({ tools }).tools ?? [];
    expect(tool?.name.length).toBe(64);
    expect(tool?.name).toMatch(/^[a-zA-Z0-9_-]+$/);
    expect(decode({ tools }).tools?.[0]?.name).toBe(tool?.name);
  });

  test("tool_choice: forced client tools, allowed tools", () => {
    const tools = [...CODEX_TOOLS, { type: "shell" }, { type: "apply_patch" }];
    expect(decode({ tools, tool_choice: { type: "shell" } }).toolChoice).toEqual({ name: "shell" });
    expect(decode({ tools, tool_choice: { type: "custom", name: "apply_patch" } }).toolChoice).toEqual({ name: "apply_patch" });
    expect(decode({ tools, tool_choice: { type: "apply_patch" } }).toolChoice).toEqual({ name: "apply_patch" });
    const allowed = decode({
      tools,
      tool_choice: { type: "allowed_tools", mode: "required", tools: [{ type: "function", name: "exec_command" }, { type: "namespace", name: "multi_agent_v1" }, { type: "web_search" }] },
    });
    expect(allowed.toolChoice).toBe("required");
    expect(allowed.tools?.map((tool) => tool.name)).toEqual(["exec_command", "multi_agent_v1__close_agent"]);
    const byMember = decode({
      tools,
      tool_choice: { type: "allowed_tools", mode: "auto", tools: [{ type: "function", namespace: "multi_agent_v1", name: "close_agent" }] },
    });
    expect(byMember.tools?.map((tool) => tool.name)).toEqual(["multi_agent_v1__close_agent"]);
    expect(decodeError({ tool_choice: { type: "custom" } }).message).toBe("tool_choice.name: is required");
  });

  test("call and output items of every client-run kind replay as the function calls upstreams saw", () => {
    const request = decode({
      input: [
        { role: "user", content: "go" },
        { type: "custom_tool_call", id: "ctc_1", call_id: "c1", name: "apply_patch", input: "*** Begin Patch\n*** End Patch" },
        { type: "custom_tool_call_output", call_id: "c1", output: "Done" },
        { type: "function_call", call_id: "c2", namespace: "multi_agent_v1", name: "close_agent", arguments: "{}" },
        { type: "function_call_output", call_id: "c2", output: "closed" },
        { type: "local_shell_call", id: "ls_1", call_id: "c3", status: "completed", action: { type: "exec", command: ["ls"], env: {} } },
        { type: "local_shell_call_output", id: "c3", output: "a.txt" },
        { type: "shell_call", call_id: "c4", action: { commands: ["pwd"], timeout_ms: 1000 } },
        { type: "shell_call_output", call_id: "c4", output: [{ stdout: "/w", stderr: "", outcome: { type: "exit", exit_code: 0 } }] },
        { type: "apply_patch_call", call_id: "c5", status: "completed", operation: { type: "delete_file", path: "a.txt" } },
        { type: "apply_patch_call_output", call_id: "c5", status: "failed", output: "no such file" },
        { type: "tool_search_call", call_id: "c6", execution: "client", status: "completed", arguments: { query: "github" } },
        {
          type: "tool_search_output",
          call_id: "c6",
          execution: "client",
          status: "completed",
          tools: [{ type: "function", name: "gh_issue", parameters: { type: "object", properties: {} } }],
        },
      ],
      tools: CODEX_TOOLS,
    });
    const calls = request.messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
    expect(calls).toEqual([
      { id: "c1", name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch\n*** End Patch" }) },
      { id: "c2", name: "multi_agent_v1__close_agent", arguments: "{}" },
      { id: "c3", name: "local_shell", arguments: JSON.stringify({ command: ["ls"], env: {} }) },
      { id: "c4", name: "shell", arguments: JSON.stringify({ commands: ["pwd"], timeout_ms: 1000 }) },
      { id: "c5", name: "apply_patch", arguments: JSON.stringify({ operation: { type: "delete_file", path: "a.txt" } }) },
      { id: "c6", name: "tool_search", arguments: JSON.stringify({ query: "github" }) },
    ]);
    const results = request.messages.flatMap((message) => (message.role === "tool" ? [[message.toolCallId, message.content]] : []));
    expect(results).toEqual([
      ["c1", [{ type: "text", text: "Done" }]],
      ["c2", [{ type: "text", text: "closed" }]],
      ["c3", [{ type: "text", text: "a.txt" }]],
      ["c4", [{ type: "text", text: "/w\n(exit code 0)" }]],
      ["c5", [{ type: "text", text: "failed: no such file" }]],
      ["c6", [{ type: "text", text: JSON.stringify([{ type: "function", name: "gh_issue", parameters: { type: "object", properties: {} } }]) }]],
    ]);
    // What tool_search loaded is callable from then on.
    expect(request.tools?.map((tool) => tool.name)).toContain("gh_issue");
    expect(decodeError({ input: [{ type: "custom_tool_call", call_id: "c", name: "x" }] }).message).toBe("input[0].input: expected a string");
    expect(decodeError({ input: [{ type: "shell_call", call_id: "c" }] }).message).toBe("input[0].action: expected an object");
  });

  test("item_reference: resolved within the input, an unknown reasoning id dropped with a warning, any other a 400", () => {
    const request = decode({
      input: [
        { role: "user", content: "q" },
        { type: "item_reference", id: "rs_gone_0" },
        { type: "function_call", id: "fc_1", call_id: "c1", name: "f", arguments: "{}" },
        { type: "function_call_output", call_id: "c1", output: "r" },
        { type: "item_reference", id: "msg_keep" },
        { type: "message", id: "msg_keep", role: "user", content: "again" },
      ],
    });
    expect(request.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "q" }] },
      { role: "assistant", content: [], toolCalls: [{ id: "c1", name: "f", arguments: "{}" }] },
      { role: "tool", toolCallId: "c1", content: [{ type: "text", text: "r" }] },
      { role: "user", content: [{ type: "text", text: "again" }] },
      { role: "user", content: [{ type: "text", text: "again" }] },
    ]);
    expect(request.warnings).toEqual(['input[1]: item_reference "rs_gone_0" names reasoning this gateway does not store; it was dropped']);
    // The gateway's own message ids (the text a step wrote before its tool calls) are dropped too.
    const own = decode({ input: [{ role: "user", content: "q" }, { type: "item_reference", id: "msg_1732476000-0Babcdefghijklmnopqr_0" }] });
    expect(own.messages).toEqual([{ role: "user", content: [{ type: "text", text: "q" }] }]);
    expect(own.warnings).toEqual(['input[1]: item_reference "msg_1732476000-0Babcdefghijklmnopqr_0" names an earlier assistant message this gateway does not store; it was dropped']);
    const error = decodeError({ input: [{ role: "user", content: "q" }, { type: "item_reference", id: "msg_gone" }] });
    expect(error.status).toBe(400);
    expect(error.message).toBe('input[1]: item_reference "msg_gone" cannot be resolved: this gateway stores no responses; send the item itself in input');
  });
});

const CALL_CONTEXT = { model: "acme/model", input: "hi", tools: [...CODEX_TOOLS, { type: "shell" }] };

describe("responses codec: calls come back in the client's tool kinds", () => {
  test("encodeResponse restores custom, namespaced, tool_search and shell calls; a plain function stays one", () => {
    const ctx = context(CALL_CONTEXT);
    const response: CanonicalResponse = {
      output: [
        { type: "tool-call", call: { id: "c1", name: "apply_patch", arguments: JSON.stringify({ input: "*** Begin Patch" }) } },
        { type: "tool-call", call: { id: "c2", name: "multi_agent_v1__close_agent", arguments: '{"target":"a"}' } },
        { type: "tool-call", call: { id: "c3", name: "tool_search", arguments: '{"query":"gh"}' } },
        { type: "tool-call", call: { id: "c4", name: "shell", arguments: '{"commands":["ls"],"extra":1}' } },
        { type: "tool-call", call: { id: "c5", name: "shell", arguments: '{"oops":true}' } },
        { type: "tool-call", call: { id: "c6", name: "exec_command", arguments: '{"cmd":"ls"}' } },
      ],
      finishReason: "tool_calls",
    };
    const output = responsesCodec.encodeResponse(response, ctx).output as Json[];
    const id = (index: number) => `fc_1762000000-abc_${index}`;
    expect(output).toEqual([
      { type: "custom_tool_call", id: id(0), call_id: "c1", status: "completed", name: "apply_patch", input: "*** Begin Patch" },
      { type: "function_call", id: id(1), call_id: "c2", status: "completed", namespace: "multi_agent_v1", name: "close_agent", arguments: '{"target":"a"}' },
      { type: "tool_search_call", id: id(2), call_id: "c3", status: "completed", execution: "client", arguments: { query: "gh" } },
      { type: "shell_call", id: id(3), call_id: "c4", status: "completed", action: { commands: ["ls"] } },
      { type: "function_call", id: id(4), call_id: "c5", name: "shell", arguments: '{"oops":true}', status: "completed" },
      { type: "function_call", id: id(5), call_id: "c6", name: "exec_command", arguments: '{"cmd":"ls"}', status: "completed" },
    ]);
    // The output replays as the same calls.
    const replayed = decode({ tools: CALL_CONTEXT.tools, input: [{ role: "user", content: "hi" }, ...output.slice(0, 4)] });
    const calls = replayed.messages.flatMap((message) => (message.role === "assistant" ? (message.toolCalls ?? []) : []));
    expect(calls.map((call) => call.name)).toEqual(["apply_patch", "multi_agent_v1__close_agent", "tool_search", "shell"]);
  });

  test("streaming: a custom tool call is announced whole with its input events; a namespaced call streams its arguments", () => {
    const parts: StreamPart[] = [
      { type: "start" },
      { type: "tool-call-start", index: 0, id: "c1", name: "apply_patch" },
      { type: "tool-call-delta", index: 0, argumentsDelta: '{"input":"*** Be' },
      { type: "tool-call-delta", index: 0, argumentsDelta: 'gin Patch"}' },
      { type: "tool-call-start", index: 1, id: "c2", name: "multi_agent_v1__close_agent" },
      { type: "tool-call-delta", index: 1, argumentsDelta: "{}" },
      { type: "finish", reason: "tool_calls" },
    ];
    const { events, context: ctx } = run(parts, CALL_CONTEXT);
    checkStream(events, ctx.id);
    expect(events.map((event) => event.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.function_call_arguments.delta",
      "response.output_item.added",
      "response.custom_tool_call_input.delta",
      "response.custom_tool_call_input.done",
      "response.output_item.done",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    expect(events[2]?.data.item).toMatchObject({ type: "function_call", namespace: "multi_agent_v1", name: "close_agent", call_id: "c2" });
    expect(events[4]?.data.item).toMatchObject({ type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch", status: "in_progress" });
    expect(events[6]?.data).toMatchObject({ input: "*** Begin Patch", item_id: "fc_1762000000-abc_0", output_index: 0 });
    expect(events[7]?.data.item).toEqual({
      type: "custom_tool_call",
      id: "fc_1762000000-abc_0",
      call_id: "c1",
      status: "completed",
      name: "apply_patch",
      input: "*** Begin Patch",
    });
    expect(events.at(-1)?.data.response).toEqual(expectedFinal(parts, ctx));
  });
});
