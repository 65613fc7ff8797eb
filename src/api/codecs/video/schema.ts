import { type Static, Type as T } from "@sinclair/typebox";
import { literals, nullable, union } from "../../../core/schema-builders.ts";
import { SessionId, Trace, User } from "../../schemas/common.ts";
import { ImageUrlPart, ProviderOptions } from "../images/schema.ts";

export const VIDEO_RESOLUTIONS = ["480p", "720p", "768p", "1080p", "1K", "2K", "4K"] as const;
export const VIDEO_ASPECT_RATIOS = ["16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3", "21:9", "9:21"] as const;

const MediaUrl = T.Object({ url: T.String({ minLength: 1 }) });

/** `{type: "image_url", image_url: {url}, frame_type}`: the first or last frame of an image-to-video job. */
export const FrameImage = T.Object(
  {
    type: T.Literal("image_url"),
    image_url: ImageUrlPart.properties.image_url,
    frame_type: literals(["first_frame", "last_frame"]),
  },
  { expected: '{type: "image_url", image_url: {url}, frame_type: "first_frame" or "last_frame"}' },
);

/** A reference for reference-to-video: an image, audio or video part. */
export const VideoReference = union(
  [
    ImageUrlPart,
    T.Object({ type: T.Literal("audio_url"), audio_url: MediaUrl }),
    T.Object({ type: T.Literal("video_url"), video_url: MediaUrl }),
  ],
  '{type: "image_url", image_url: {url}}, {type: "audio_url", audio_url: {url}}, or {type: "video_url", video_url: {url}}',
);

/** The body of POST /videos. */
export const VideoRequestBody = T.Object(
  {
    model: T.Optional(T.String()),
    models: T.Optional(T.Array(T.String())),
    prompt: T.Optional(T.String({ minLength: 1 })),
    duration: T.Optional(T.Integer({ minimum: 1 })),
    resolution: T.Optional(literals([...VIDEO_RESOLUTIONS])),
    aspect_ratio: T.Optional(literals([...VIDEO_ASPECT_RATIOS])),
    size: T.Optional(T.String({ pattern: "^[1-9][0-9]{0,4}x[1-9][0-9]{0,4}$", expected: 'pixels as WIDTHxHEIGHT ("1280x720")' })),
    frame_images: T.Optional(T.Array(FrameImage, { maxItems: 2 })),
    input_references: T.Optional(T.Array(VideoReference)),
    generate_audio: T.Optional(T.Boolean()),
    seed: T.Optional(T.Integer()),
    callback_url: T.Optional(T.String({ pattern: "^https://", expected: "an https:// URL" })),
    provider: T.Optional(
      nullable(T.Object({ options: T.Optional(ProviderOptions) }, { additionalProperties: false }), "a provider object {options} or null"),
    ),
    session_id: T.Optional(SessionId),
    user: T.Optional(User),
    trace: T.Optional(Trace),
  },
  { additionalProperties: true },
);
export type VideoRequestBody = Static<typeof VideoRequestBody>;
