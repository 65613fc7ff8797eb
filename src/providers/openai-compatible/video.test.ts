import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../core/errors.ts";
import type { VideoJobState, VideoRequest } from "../../core/operations.ts";
import { startMediaUpstream } from "../../../test/helpers/media-upstreams.ts";
import { serverForTests } from "../../../test/helpers/recording-server.ts";
import { send, throughEngine } from "../test-support.ts";
import { openAiCompatibleAdapter as adapter } from "./adapter.ts";
import { makeEndpoint } from "./test-support.ts";

const upstream = serverForTests(startMediaUpstream);
const endpoint = makeEndpoint({ key: "sora:sora-2", upstreamModel: "sora-2", operations: new Set(["video"]) }, { slug: "openai", name: "OpenAI", baseUrl: upstream.baseUrl });
const request = (fields: Partial<VideoRequest> = {}): VideoRequest => ({ model: "openai/sora-2", operation: "video", prompt: "a fox in snow", ...fields });
const options = { stream: false, apiKey: "sk-vid" };

const submit = (fields: Partial<VideoRequest> = {}): Promise<VideoJobState> => throughEngine(adapter, adapter.video.submit, request(fields), endpoint, options.apiKey);

async function poll(upstreamId: string): Promise<VideoJobState> {
  return adapter.video.poll.parseResponse(await send(adapter.video.poll.buildRequest(upstreamId, endpoint, options), endpoint, adapter), endpoint);
}

describe("openai-compatible video: submit", () => {
  test("POST {base}/videos with model, prompt, seconds (a string, as OpenAI takes it) and size; queued is pending", async () => {
    const state = await submit({ duration: 8, size: "1280x720" });
    expect(state).toEqual({ upstreamId: expect.stringMatching(/^video_\d+$/), status: "pending" });
    const sent = upstream.requests[0]!;
    expect({ method: sent.method, path: sent.path, authorization: sent.headers.authorization }).toEqual({ method: "POST", path: "/v1/videos", authorization: "Bearer sk-vid" });
    expect(sent.body).toEqual({ model: "sora-2", prompt: "a fox in snow", seconds: "8", size: "1280x720" });
  });

  test("resolution and aspect ratio become pixels; with neither, the provider's default size", () => {
    const size = (fields: Partial<VideoRequest>) => adapter.video.submit.buildRequest(request(fields), endpoint, options).body!.size;
    expect(size({ resolution: "720p", aspectRatio: "9:16" })).toBe("720x1280");
    expect(size({ resolution: "1080p" })).toBe("1920x1080");
    expect(size({ aspectRatio: "1:1" })).toBe("720x720");
    expect(size({ resolution: "480p", aspectRatio: "16:9" })).toBe("854x480");
    expect(size({})).toBeUndefined();
  });

  test("what the JSON wire cannot carry is said in warnings; the provider's options pass through", () => {
    const built = adapter.video.submit.buildRequest(
      request({
        frameImages: [{ url: "https://img.example/f.png", frameType: "first_frame" }],
        generateAudio: true,
        seed: 1,
        providerOptions: { openai: { quality: "high" } },
      }),
      endpoint,
      options,
    );
    expect(built.body).toMatchObject({ quality: "high", model: "sora-2" });
    expect(built.warnings).toEqual([
      "frame_images: sora:sora-2 takes no frame images on its JSON wire; they were not sent",
      "generate_audio: sora:sora-2 takes no audio switch; it was not sent",
      "seed: sora:sora-2 takes no seed; it was not sent",
    ]);
  });
});

describe("openai-compatible video: poll and content", () => {
  test("in progress, then completed with one output, metered by the seconds the job reports", async () => {
    const { upstreamId } = await submit({ duration: 8 });
    expect(await poll(upstreamId)).toEqual({ upstreamId, status: "in_progress" });
    expect(await poll(upstreamId)).toMatchObject({ upstreamId, status: "completed", outputs: 1, usage: { videoSeconds: 8, inputTokens: 0 } });
    expect(upstream.requests.map((sent) => `${sent.method} ${sent.path}`)).toEqual(["POST /v1/videos", `GET /v1/videos/${upstreamId}`, `GET /v1/videos/${upstreamId}`]);
    expect(upstream.requests[1]!.body).toBeNull();
  });

  test("a job that reports no seconds: completed at submission, the seconds requested; at a poll, no meter (the caller knows the request)", async () => {
    upstream.behave({ withoutSeconds: true, pollStatuses: ["completed"] });
    const { upstreamId } = await submit({ duration: 5 });
    const polled = await poll(upstreamId);
    expect(polled.status).toBe("completed");
    expect(polled.usage).toBeUndefined();
    const video = request({ duration: 5 });
    const answer = { status: 200, headers: new Headers(), body: { id: "video_x", status: "completed" } };
    expect(adapter.video.submit.parseResponse(answer, endpoint, video).usage?.videoSeconds).toBe(5);
  });

  test("a failed job carries the upstream's message", async () => {
    upstream.behave({ pollStatuses: ["failed"], jobError: { code: "moderation_blocked", message: "blocked by moderation" } });
    const { upstreamId } = await submit();
    expect(await poll(upstreamId)).toEqual({ upstreamId, status: "failed", error: "blocked by moderation" });
  });

  test("an unknown status or a missing id is an invalid response", () => {
    const parse = (body: unknown) => () => adapter.video.poll.parseResponse({ status: 200, headers: new Headers(), body }, endpoint);
    expect(parse({ id: "v", status: "rendering" })).toThrow('OpenAI returned an invalid response: unknown video job status "rendering"');
    expect(parse({ status: "queued" })).toThrow("OpenAI returned an invalid response: the video job has no id");
  });

  test("content: GET {base}/videos/{id}/content, read as the upstream's bytes", async () => {
    const { upstreamId } = await submit();
    const built = adapter.video.content.buildRequest(upstreamId, 0, endpoint, options);
    expect(built).toMatchObject({ method: "GET", answer: "bytes", url: `${upstream.baseUrl}/videos/${upstreamId}/content` });
    const answer = await send(built, endpoint, adapter);
    expect(answer.headers.get("content-type")).toBe("video/mp4");
    expect(new Uint8Array(await new Response(answer.body as ReadableStream).arrayBuffer())).toEqual(upstream.video);
  });

  test("an id is escaped in the path; only output 0 exists", () => {
    expect(adapter.video.poll.buildRequest("a/b?c", endpoint, options).url).toBe(`${upstream.baseUrl}/videos/a%2Fb%3Fc`);
    expect(() => adapter.video.content.buildRequest("v", 1, endpoint, options)).toThrow(GatewayError);
  });
});
