import { describe, expect, test } from "bun:test";
import { openAiCompatibleAdapter as adapter } from "./adapter.ts";
import { makeEndpoint, makeRequest } from "./test-support.ts";

const PNG = "data:image/png;base64,iVBORw0KGgo=";
const options = { stream: false, apiKey: undefined };

describe("openai-compatible chat: image output", () => {
  test("modalities and image_config are sent as the client gave them; absent, neither is sent", () => {
    const body = adapter.chat.buildRequest(makeRequest({ modalities: ["image", "text"], imageConfig: { aspect_ratio: "16:9" } }), makeEndpoint(), options).body;
    expect(body).toMatchObject({ modalities: ["image", "text"], image_config: { aspect_ratio: "16:9" } });
    const plain = adapter.chat.buildRequest(makeRequest(), makeEndpoint(), options).body;
    expect("modalities" in plain || "image_config" in plain).toBe(false);
  });

  test("message.images become image blocks after the text; malformed entries are skipped", () => {
    const response = adapter.chat.parseResponse(
      {
        choices: [
          {
            message: { role: "assistant", content: "Here", images: [{ type: "image_url", image_url: { url: PNG } }, { type: "image_url" }, { image_url: "data:image/jpeg;base64,/9j/" }] },
            finish_reason: "stop",
          },
        ],
      },
      makeEndpoint(),
    );
    expect(response.output).toEqual([
      { type: "text", text: "Here" },
      { type: "image", url: PNG },
      { type: "image", url: "data:image/jpeg;base64,/9j/" },
    ]);
  });

  test("delta.images become image parts", () => {
    const parser = adapter.chat.createStreamParser(makeEndpoint());
    const parts = [
      ...parser.parse({ data: JSON.stringify({ id: "c1", choices: [{ delta: { content: "Hi" } }] }) }),
      ...parser.parse({ data: JSON.stringify({ id: "c1", choices: [{ delta: { images: [{ type: "image_url", image_url: { url: PNG } }] } }] }) }),
      ...parser.parse({ data: JSON.stringify({ id: "c1", choices: [{ delta: {}, finish_reason: "stop" }] }) }),
      ...parser.parse({ data: "[DONE]" }),
    ];
    expect(parts).toEqual([
      { type: "start", upstreamId: "c1" },
      { type: "text-delta", text: "Hi" },
      { type: "image", url: PNG },
      { type: "finish", reason: "stop", nativeReason: "stop" },
    ]);
  });
});
