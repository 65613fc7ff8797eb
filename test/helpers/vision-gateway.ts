import { listening, newInferenceKey } from "./gateway.ts";

/**
 * A listening gateway whose one model sits on an upstream that takes images only inline
 * (`quirks.inline_image_urls`), so the gateway itself fetches the image URLs a request names; with
 * `allowPrivate`, loopback and private addresses are allowed. `ask` sends one chat request with an
 * image URL (and any extra body fields).
 */
export async function visionGateway(upstreamUrl: string, allowPrivate: boolean) {
  const gateway = await listening({
    configText: `security: { allow_private_urls: ${allowPrivate} }
providers:
  inline: { type: openai-compatible, base_url: ${upstreamUrl}/v1, quirks: { inline_image_urls: true } }
models:
  - id: acme/vision
    endpoints: [{ provider: inline, model: v }]
`,
  });
  const key = await newInferenceKey(gateway.url, "vision");
  const ask = (url: string, extra: Record<string, unknown> = {}) =>
    fetch(`${gateway.url}/api/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({
        model: "acme/vision",
        messages: [{ role: "user", content: [{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url } }] }],
        ...extra,
      }),
    });
  return { gateway, ask };
}
