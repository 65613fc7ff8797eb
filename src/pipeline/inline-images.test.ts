import { expect, test } from "bun:test";
import { withoutFetchedImages } from "./inline-images.ts";

test("the echo replaces fetched bytes in either wire's shape: a data URL, or its base64 payload on its own", () => {
  const placeholder = "[fetched image: 3 bytes from http://images.example/a.png]";
  const fetched = new Map([
    ["data:image/png;base64,AAEC", placeholder],
    ["AAEC", placeholder],
  ]);
  const chat = { model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "data:image/png;base64,AAEC" } }] }] };
  const messages = { model: "m", messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: "AAEC" } }] }], max_tokens: 5 };
  expect(withoutFetchedImages(chat, fetched)).toEqual({ model: "m", messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: placeholder } }] }] });
  expect(withoutFetchedImages(messages, fetched)).toEqual({
    model: "m",
    messages: [{ role: "user", content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: placeholder } }] }],
    max_tokens: 5,
  });
});
