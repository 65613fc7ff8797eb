/**
 * A streamed chat completion from the dashboard: `POST /api/v1/chat/completions` with an inference key
 * (never the session), read as server-sent events; each text delta is handed on as it arrives.
 */

/** What a finished stream reports besides its text. */
export interface StreamResult {
  id: string | undefined;
  model: string | undefined;
  provider: string | undefined;
  usage: { prompt_tokens: number; completion_tokens: number; cost?: number } | undefined;
}

interface Chunk {
  id?: string;
  model?: string;
  provider?: string;
  usage?: StreamResult["usage"];
  error?: { message?: string };
  choices?: Array<{ delta?: { content?: string | null } }>;
}

async function failureOf(response: Response): Promise<Error> {
  const text = await response.text();
  try {
    const message = (JSON.parse(text) as { error?: { message?: string } }).error?.message;
    if (message) return new Error(`${response.status}: ${message}`);
  } catch {}
  return new Error(`${response.status} ${response.statusText || "request failed"}`);
}

/** Sends `body` (streamed) with `key`; calls `onText` with each piece of the answer; resolves when it ends. */
export async function streamChat(key: string, body: Record<string, unknown>, onText: (text: string) => void, signal: AbortSignal): Promise<StreamResult> {
  const response = await fetch("/api/v1/chat/completions", {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify({ ...body, stream: true, stream_options: { include_usage: true } }),
    credentials: "omit",
    signal,
  });
  if (!response.ok || !response.body) throw await failureOf(response);
  const result: StreamResult = { id: undefined, model: undefined, provider: undefined, usage: undefined };
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block
        .split("\n")
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).trim())
        .join("\n");
      if (!data || data === "[DONE]") continue;
      const chunk = JSON.parse(data) as Chunk;
      if (chunk.error) throw new Error(chunk.error.message ?? "The stream ended with an error");
      result.id ??= chunk.id;
      result.model = chunk.model ?? result.model;
      result.provider = chunk.provider ?? result.provider;
      result.usage = chunk.usage ?? result.usage;
      const text = chunk.choices?.[0]?.delta?.content;
      if (text) onText(text);
    }
  }
  return result;
}
