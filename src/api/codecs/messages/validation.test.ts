import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { MessagesRequest } from "../../schemas/messages-request.ts";
import { messagesValidationMessage } from "./validation.ts";

const checker = TypeCompiler.Compile(MessagesRequest);
const base = { model: "m", max_tokens: 10, messages: [{ role: "user", content: "hi" }] };

function message(body: Record<string, unknown>): string {
  return messagesValidationMessage(checker.Errors({ ...base, ...body }));
}

describe("messages validation errors in Anthropic's words", () => {
  test("paths are dotted with indices, messages say what the input should be", () => {
    expect(message({ messages: [{ role: "user", content: "a" }, { role: "tool", content: "b" }] })).toBe(
      "messages.1.role: Input should be 'user', 'assistant' or 'system'",
    );
    expect(messagesValidationMessage(checker.Errors({ messages: base.messages }))).toBe("model: Field required");
    expect(message({ messages: [] })).toBe("messages: List should have at least 1 item after validation, not 0");
    expect(message({ max_tokens: 0 })).toBe("max_tokens: Input should be greater than or equal to 1");
    expect(message({ max_tokens: 1.5 })).toBe("max_tokens: Input should be a valid integer");
    expect(message({ temperature: 1.5 })).toBe("temperature: Input should be less than or equal to 1");
    expect(message({ stream: "yes" })).toBe("stream: Input should be a valid boolean");
    expect(message({ stop_sequences: "END" })).toBe("stop_sequences: Input should be a valid list");
    expect(message({ fallbacks: [{ model: "a", extra: 1 }] })).toBe("fallbacks.0.extra: Extra inputs are not permitted");
    expect(message({ thinking: { type: "enabled", budget_tokens: 10 } })).toBe("thinking.budget_tokens: Input should be greater than or equal to 1024");
    expect(message({ output_config: { effort: "huge" } })).toBe(
      "output_config.effort: Input should be 'max', 'xhigh', 'high', 'medium', 'low', 'minimal' or 'none'",
    );
    expect(message({ session_id: "x".repeat(257) })).toBe("session_id: String should have at most 256 characters");
  });
});
