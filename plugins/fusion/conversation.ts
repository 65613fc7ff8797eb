/**
 * The conversation the panel answers. The server tool's `run` receives only its arguments and
 * parameters, not the request, so the plugin form hands the request's conversation over by the
 * identity of the parameters object it puts on the request (the loop passes that same object to
 * `run`); the tool form has only the question the model wrote in its `prompt` argument.
 */
import type { ContentPart, Message } from "../../src/plugins/api.ts";

const conversations = new WeakMap<object, Message[]>();

/** Remembers the conversation of the request whose fusion tool has these parameters. */
export function rememberConversation(parameters: object, messages: Message[]): void {
  conversations.set(parameters, messages);
}

/** The conversation remembered for these parameters (the plugin form), if any. */
export function rememberedConversation(parameters: object): Message[] | undefined {
  return conversations.get(parameters);
}

function texts(content: ContentPart[]): string[] {
  return content.flatMap((part) => (part.type === "text" && part.text.length > 0 ? [part.text] : []));
}

/**
 * The conversation as a panelist reads it: system and user messages as they are; the client's tool
 * calls and their results written into the assistant's text (panelists are not offered the client's
 * tools, and some upstreams refuse calls to tools a request does not define); reasoning left out.
 */
export function panelConversation(messages: Message[]): Message[] {
  const result: Message[] = [];
  for (const message of messages) {
    if (message.role === "system" || message.role === "user") {
      result.push(message);
    } else if (message.role === "assistant") {
      const calls = (message.toolCalls ?? []).map((call) => `[called ${call.name} with ${call.arguments}]`);
      const text = [...texts(message.content), ...calls].join("\n");
      if (text.length > 0) result.push({ role: "assistant", content: [{ type: "text", text }] });
    } else {
      const text = `[result of ${message.toolCallId}: ${texts(message.content).join("\n")}]`;
      const last = result.at(-1);
      if (last?.role === "assistant") {
        const previous = texts(last.content).join("\n");
        result[result.length - 1] = { role: "assistant", content: [{ type: "text", text: `${previous}\n${text}` }] };
      } else {
        result.push({ role: "assistant", content: [{ type: "text", text }] });
      }
    }
  }
  return result;
}

/** The text of the last user message: the question the analyst is told the panel answered. */
export function lastUserText(messages: Message[]): string {
  const last = messages.findLast((message) => message.role === "user");
  return last ? texts(last.content).join("\n") : "";
}
