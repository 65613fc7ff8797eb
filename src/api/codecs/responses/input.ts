import type { CacheControl, ContentPart, Message, ReasoningPart, ToolCall } from "../../../core/canonical.ts";
import { GatewayError } from "../../../core/errors.ts";
import { clientToolCall, clientToolOutput } from "./client-items.ts";

/**
 * Responses `input` items → canonical messages. Adjacent assistant output (a text message, reasoning,
 * function calls) folds into one assistant message, as a chat transcript would carry it; reasoning items
 * attach to the assistant message that follows them.
 */

type Item = Record<string, unknown>;

/** Reasoning items replayed from an Anthropic answer carry this `format`; redacted thinking travels in `encrypted_content`. */
export const ANTHROPIC_REASONING_FORMAT = "anthropic-claude-v1";

const UNSUPPORTED = (where: string, type: string) =>
  new GatewayError("bad_request", `${where}: items of type "${type}" are not supported by this gateway`);

function bad(message: string): GatewayError {
  return new GatewayError("bad_request", message);
}

function isObject(value: unknown): value is Item {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function cacheControlOf(part: Item): CacheControl | undefined {
  const value = part.cache_control;
  if (!isObject(value) || value.type !== "ephemeral") return undefined;
  return typeof value.ttl === "string" ? { type: "ephemeral", ttl: value.ttl } : { type: "ephemeral" };
}

function withCache<P extends ContentPart>(part: P, source: Item): P {
  const cacheControl = cacheControlOf(source);
  return cacheControl === undefined ? part : { ...part, cacheControl };
}

const MEDIA_TYPES: Record<string, string> = {
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json",
  html: "text/html",
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
};

function mediaTypeOfName(filename: string | undefined): string | undefined {
  const extension = filename?.split(".").pop()?.toLowerCase();
  return extension === undefined ? undefined : MEDIA_TYPES[extension];
}

function fileUrl(part: Item, where: string): { url: string; mediaType?: string } {
  const filename = typeof part.filename === "string" ? part.filename : undefined;
  if (typeof part.file_data === "string" && part.file_data !== "") {
    const data = part.file_data;
    const match = /^data:([^;,]+)[;,]/.exec(data);
    if (match?.[1] !== undefined) return { url: data, mediaType: match[1] };
    // Bare base64, as some clients send it: wrap it into a data URL.
    const mediaType = mediaTypeOfName(filename) ?? "application/pdf";
    return { url: `data:${mediaType};base64,${data}`, mediaType };
  }
  if (typeof part.file_url === "string" && part.file_url !== "") {
    const mediaType = mediaTypeOfName(filename ?? part.file_url.split(/[?#]/)[0]);
    return mediaType === undefined ? { url: part.file_url } : { url: part.file_url, mediaType };
  }
  throw bad(`${where}: input_file needs file_data, file_url or file_id`);
}

/** One content part of a message or a function call output. */
export function decodePart(part: unknown, where: string): ContentPart {
  if (!isObject(part) || typeof part.type !== "string") throw bad(`${where}: expected a content part object with a string type`);
  switch (part.type) {
    case "input_text":
    case "output_text":
    case "text":
      if (typeof part.text !== "string") throw bad(`${where}.text: expected a string`);
      return withCache({ type: "text", text: part.text }, part);
    case "refusal":
      if (typeof part.refusal !== "string") throw bad(`${where}.refusal: expected a string`);
      return withCache({ type: "text", text: part.refusal }, part);
    case "input_image": {
      if (typeof part.image_url !== "string" || part.image_url === "") {
        if (part.file_id !== undefined && part.file_id !== null) {
          throw bad(`${where}: input_image with file_id is not supported by this gateway; send image_url (an http(s) or data: URL)`);
        }
        throw bad(`${where}: input_image needs image_url`);
      }
      const image: ContentPart = { type: "image", url: part.image_url };
      if (part.detail === "auto" || part.detail === "low" || part.detail === "high") image.detail = part.detail;
      return withCache(image, part);
    }
    case "input_file": {
      if (typeof part.file_id === "string" && part.file_id !== "" && !part.file_data && !part.file_url) {
        return withCache({ type: "file", url: "", fileId: part.file_id, ...(typeof part.filename === "string" ? { filename: part.filename } : {}) }, part);
      }
      const { url, mediaType } = fileUrl(part, where);
      const file: ContentPart = { type: "file", url };
      if (typeof part.filename === "string") file.filename = part.filename;
      if (mediaType !== undefined) file.mediaType = mediaType;
      return withCache(file, part);
    }
    default:
      throw bad(`${where}: content parts of type "${part.type}" are not supported by this gateway`);
  }
}

function decodeContent(content: unknown, where: string): ContentPart[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw bad(`${where}: expected a string or an array of content parts`);
  return content.map((part, index) => decodePart(part, `${where}[${index}]`));
}

function decodeReasoning(item: Item, where: string): ReasoningPart {
  const texts = (value: unknown): string[] =>
    Array.isArray(value) ? value.flatMap((entry) => (isObject(entry) && typeof entry.text === "string" ? [entry.text] : [])) : [];
  const summary = texts(item.summary);
  const text = summary.length > 0 ? summary.join("\n\n") : texts(item.content).join("\n\n");
  const part: ReasoningPart = { text };
  if (typeof item.signature === "string" && item.signature !== "") part.signature = item.signature;
  if (typeof item.encrypted_content === "string" && item.encrypted_content !== "") {
    if (item.format === ANTHROPIC_REASONING_FORMAT && part.signature === undefined && text === "") part.redacted = item.encrypted_content;
    else part.encrypted = item.encrypted_content;
  }
  if (item.summary !== undefined && !Array.isArray(item.summary)) throw bad(`${where}.summary: expected an array`);
  return part;
}

function decodeOutput(output: unknown, where: string): ContentPart[] {
  if (typeof output === "string") return [{ type: "text", text: output }];
  if (Array.isArray(output)) return output.map((part, index) => decodePart(part, `${where}[${index}]`));
  throw bad(`${where}: expected a string or an array of content parts`);
}

type Assistant = Extract<Message, { role: "assistant" }>;

/** Builds the message list, keeping track of the assistant turn that adjacent output items extend. */
class Transcript {
  readonly messages: Message[] = [];
  #pendingReasoning: ReasoningPart[] = [];
  /** The assistant message the next function call may join (the last pushed message, when assistant). */
  #open: Assistant | undefined;

  push(message: Message): void {
    this.#flushReasoning();
    this.messages.push(message);
    this.#open = undefined;
  }

  reasoning(part: ReasoningPart): void {
    this.#pendingReasoning.push(part);
  }

  assistantText(content: ContentPart[]): void {
    const message: Assistant = { role: "assistant", content };
    this.#takeReasoning(message);
    this.messages.push(message);
    this.#open = message;
  }

  functionCall(call: ToolCall): void {
    let message = this.#open;
    if (message === undefined) {
      message = { role: "assistant", content: [] };
      this.messages.push(message);
      this.#open = message;
    }
    this.#takeReasoning(message);
    (message.toolCalls ??= []).push(call);
  }

  finish(): Message[] {
    this.#flushReasoning();
    return this.messages;
  }

  #takeReasoning(message: Assistant): void {
    if (this.#pendingReasoning.length === 0) return;
    (message.reasoning ??= []).push(...this.#pendingReasoning);
    this.#pendingReasoning = [];
  }

  /** Reasoning with no assistant output after it still belongs to an assistant turn. */
  #flushReasoning(): void {
    if (this.#pendingReasoning.length === 0) return;
    const message: Assistant = { role: "assistant", content: [], reasoning: this.#pendingReasoning };
    this.#pendingReasoning = [];
    this.messages.push(message);
  }
}

function decodeMessage(item: Item, where: string, transcript: Transcript): void {
  const role = item.role;
  const content = decodeContent(item.content, `${where}.content`);
  switch (role) {
    case "user":
      transcript.push({ role: "user", content });
      return;
    case "system":
    case "developer":
      transcript.push({ role: "system", content });
      return;
    case "assistant":
      transcript.assistantText(content);
      return;
    default:
      throw bad(`${where}.role: expected "user", "system", "developer" or "assistant"`);
  }
}

function requireString(item: Item, key: string, where: string): string {
  const value = item[key];
  if (typeof value !== "string" || value === "") throw bad(`${where}.${key}: is required`);
  return value;
}

/** What decoding `input` reports besides the messages. */
export interface InputContext {
  /** What was left out, and why. */
  warnings: string[];
  /** Tool definitions a client-run tool_search loaded (`tool_search_output.tools`), with where they came from. */
  loadedTools: Array<{ tool: unknown; where: string }>;
}

/** Ids the gateway gives reasoning items (encode.ts `itemId`), which OpenAI's own reasoning ids share. */
const REASONING_ID = /^rs_/;
/**
 * Ids the gateway gives its own assistant messages (encode.ts `itemId`: `msg_` and the generation id
 * without `gen-`, then the output index). The AI SDK sends such a reference instead of the text a step
 * wrote before its tool calls; the gateway stores no responses, so that text cannot come back.
 */
const OWN_MESSAGE_ID = /^msg_\d+-[0-9A-Za-z]{2}[A-Za-z0-9_-]{18}_\d+$/;

/** Output items of server tools: the gateway ran none of them, so a history carrying one is replayed without it. */
const SERVER_TOOL_ITEMS = new Set([
  "web_search_call",
  "file_search_call",
  "computer_call",
  "computer_call_output",
  "code_interpreter_call",
  "image_generation_call",
  "mcp_list_tools",
  "mcp_approval_request",
  "mcp_approval_response",
  "mcp_call",
]);

/** The items of `input` by their `id`, for `item_reference`. */
function itemsById(input: unknown[]): Map<string, Item> {
  const byId = new Map<string, Item>();
  for (const item of input) {
    if (isObject(item) && item.type !== "item_reference" && typeof item.id === "string" && item.id !== "") byId.set(item.id, item);
  }
  return byId;
}

/**
 * `input` (a string or an item list) → messages, without instructions. An `item_reference` stands for
 * the item of that id elsewhere in the input (the client sent the whole history); the gateway stores no
 * responses, so a reference it cannot resolve is dropped with a warning when it names reasoning (the
 * model can do without its earlier reasoning) or an assistant message this gateway issued (the model's
 * own earlier words; its tool calls and their results still travel as items), and is a 400 otherwise:
 * a reference to anything else would lose what the client said or a call a result answers.
 */
export function decodeInput(input: unknown, context: InputContext = { warnings: [], loadedTools: [] }): Message[] {
  if (input === undefined || input === null) return [];
  if (typeof input === "string") return [{ role: "user", content: [{ type: "text", text: input }] }];
  if (!Array.isArray(input)) throw bad("input: expected a string or an array of input items");
  const transcript = new Transcript();
  let byId: Map<string, Item> | undefined;
  input.forEach((entry: unknown, index) => {
    const where = `input[${index}]`;
    if (!isObject(entry)) throw bad(`${where}: expected an input item object`);
    let item = entry;
    if (item.type === "item_reference") {
      const id = item.id;
      if (typeof id !== "string" || id === "") throw bad(`${where}.id: is required`);
      const referenced = (byId ??= itemsById(input)).get(id);
      if (referenced === undefined) {
        if (REASONING_ID.test(id)) {
          context.warnings.push(`${where}: item_reference "${id}" names reasoning this gateway does not store; it was dropped`);
          return;
        }
        if (OWN_MESSAGE_ID.test(id)) {
          context.warnings.push(`${where}: item_reference "${id}" names an earlier assistant message this gateway does not store; it was dropped`);
          return;
        }
        throw bad(`${where}: item_reference "${id}" cannot be resolved: this gateway stores no responses; send the item itself in input`);
      }
      item = referenced;
    }
    decodeItem(item, where, transcript, context);
  });
  return transcript.finish();
}

function decodeItem(item: Item, where: string, transcript: Transcript, context: InputContext): void {
  const type = item.type;
  if (type === undefined || type === "message") {
    if (typeof item.role !== "string") throw bad(`${where}.role: is required`);
    decodeMessage(item, where, transcript);
    return;
  }
  const call = clientToolCall(item, where);
  if (call !== undefined) {
    transcript.functionCall(call);
    return;
  }
  const output = clientToolOutput(item, where, decodeOutput);
  if (output !== undefined) {
    transcript.push({ role: "tool", ...output });
    if (type === "tool_search_output" && Array.isArray(item.tools)) {
      item.tools.forEach((tool, index) => context.loadedTools.push({ tool, where: `${where}.tools[${index}]` }));
    }
    return;
  }
  switch (type) {
    case "reasoning":
      transcript.reasoning(decodeReasoning(item, where));
      return;
    case "function_call": {
      const args = item.arguments;
      if (typeof args !== "string") throw bad(`${where}.arguments: expected a JSON string`);
      transcript.functionCall({
        id: requireString(item, "call_id", where),
        name: requireString(item, "name", where),
        arguments: args,
      });
      return;
    }
    case "function_call_output":
      transcript.push({
        role: "tool",
        toolCallId: requireString(item, "call_id", where),
        content: decodeOutput(item.output, `${where}.output`),
      });
      return;
    default:
      if (typeof type === "string" && SERVER_TOOL_ITEMS.has(type)) {
        context.warnings.push(`${where}: a "${type}" item of a server tool this gateway does not run was dropped`);
        return;
      }
      // A server tool call this gateway ran on an earlier turn (its own output, replayed): the answer
      // that followed already carries what the model made of it.
      if (typeof type === "string" && type.startsWith("service:")) return;
      throw UNSUPPORTED(where, typeof type === "string" ? type : JSON.stringify(type));
  }
}
