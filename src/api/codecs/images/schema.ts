import { type Static, Type as T } from "@sinclair/typebox";
import { IMAGE_ASPECT_RATIOS, IMAGE_RESOLUTIONS } from "../../../core/image-size.ts";
import { literals, nullable } from "../../../core/schema-builders.ts";
import { ProviderSort, SessionId, Trace, User } from "../../schemas/common.ts";

/** The most reference images an image-to-image request may carry. */
export const MAX_INPUT_REFERENCES = 16;

/** `{type: "image_url", image_url: {url}}` with an http(s) URL or an image data URL. */
export const ImageUrlPart = T.Object(
  {
    type: T.Literal("image_url"),
    image_url: T.Object({
      url: T.String({ pattern: "^(?:https?://|data:image/)", expected: "an http(s) URL or a data:image/ URL" }),
    }),
  },
  { expected: '{type: "image_url", image_url: {url}}' },
);

/** `provider.options`: per provider slug, the parameters passed through to that provider only. */
export const ProviderOptions = T.Record(T.String(), T.Record(T.String(), T.Unknown()), {
  expected: "an object of provider slugs to objects of parameters",
});

const ProviderList = nullable(T.Array(T.String()), "an array of provider slugs or null");

/** The image endpoint's `provider`: the routing subset (only, order, ignore, sort, allow_fallbacks) plus options. */
export const ImagesProvider = nullable(
  T.Object(
    {
      only: T.Optional(ProviderList),
      order: T.Optional(ProviderList),
      ignore: T.Optional(ProviderList),
      sort: T.Optional(ProviderSort),
      allow_fallbacks: T.Optional(nullable(T.Boolean())),
      options: T.Optional(ProviderOptions),
    },
    { additionalProperties: false },
  ),
  "a provider object {only, order, ignore, sort, allow_fallbacks, options} or null",
);

/** The body of POST /images. */
export const ImagesRequestBody = T.Object(
  {
    model: T.Optional(T.String()),
    models: T.Optional(T.Array(T.String())),
    prompt: T.String({ minLength: 1 }),
    n: T.Optional(T.Integer({ minimum: 1, maximum: 10 })),
    size: T.Optional(
      T.String({
        pattern: `^(?:[1-9][0-9]{0,4}x[1-9][0-9]{0,4}|${IMAGE_RESOLUTIONS.join("|")})$`,
        expected: `a tier (${IMAGE_RESOLUTIONS.map((tier) => JSON.stringify(tier)).join(", ")}) or pixels as WIDTHxHEIGHT ("1024x1024")`,
      }),
    ),
    resolution: T.Optional(literals([...IMAGE_RESOLUTIONS])),
    aspect_ratio: T.Optional(literals([...IMAGE_ASPECT_RATIOS])),
    quality: T.Optional(literals(["auto", "low", "medium", "high"])),
    output_format: T.Optional(literals(["png", "jpeg", "webp", "svg"])),
    background: T.Optional(literals(["auto", "transparent", "opaque"])),
    output_compression: T.Optional(T.Integer({ minimum: 0, maximum: 100 })),
    seed: T.Optional(T.Integer()),
    stream: T.Optional(T.Boolean()),
    input_references: T.Optional(T.Array(ImageUrlPart, { maxItems: MAX_INPUT_REFERENCES })),
    provider: T.Optional(ImagesProvider),
    session_id: T.Optional(SessionId),
    user: T.Optional(User),
    trace: T.Optional(Trace),
  },
  { additionalProperties: true },
);
export type ImagesRequestBody = Static<typeof ImagesRequestBody>;
