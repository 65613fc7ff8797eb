import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { tempDir } from "./helpers/gateway.ts";
import { type MediaUpstream, RED_PNG, startMediaUpstream } from "./helpers/media-upstreams.ts";
import { fallbackConfig, operationsGatewayForTests, refusal, startOperationsGateway, usd } from "./helpers/operations-gateway.ts";

/**
 * Video generation end to end with the `openai` SDK: a job submitted (202), polled by the gateway every
 * two seconds against a real local OpenAI-wire video server, read until completed, and its content
 * downloaded; fallback at submission, the job's errors, and a job that outlives its gateway.
 */
const VIDEO_SECOND = 0.1;

const [film, filmBackup] = [startMediaUpstream(), startMediaUpstream()];
const config = fallbackConfig(
  [{ name: "film", urls: [film.baseUrl, filmBackup.baseUrl], model: "test/filmmaker", upstreamModel: "film", operation: "video", rate: `video_second: ${VIDEO_SECOND}` }],
  {
    models: `  - id: test/painter
    endpoints:
      - { provider: film-main, model: painter, operations: [images], pricing: { image_output: 0.04 } }`,
  },
);
const rig = operationsGatewayForTests(config, [film, filmBackup]);

/** Reads the job until it leaves pending and in_progress (the gateway polls the upstream every 2 s). */
async function settled(videos: OpenAI, id: string, timeoutMs = 15_000): Promise<Record<string, any>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = (await videos.videos.retrieve(id)) as unknown as Record<string, any>;
    if (job.status !== "pending" && job.status !== "in_progress") return job;
    if (Date.now() > deadline) throw new Error(`video job ${id} still ${job.status}`);
    await Bun.sleep(200);
  }
}

/** The requests an upstream received, as `METHOD path` (submissions, polls, content). */
const upstreamCalls = (upstream: MediaUpstream) => upstream.requests.map((request) => `${request.method} ${request.path}`);

describe("openai SDK: videos.create, retrieve, downloadContent", () => {
  test("a job is accepted (202), completes, and its content is the upstream's bytes; the record meters its seconds", async () => {
    const { data: created, response } = await rig.client.videos.create({ model: "test/filmmaker", prompt: "a fox in the snow", seconds: "4", size: "1280x720" }).withResponse();
    expect(response.status).toBe(202);
    const job = created as unknown as Record<string, any>;
    expect(job).toMatchObject({ status: "pending", polling_url: `${rig.api}/videos/${job.id}` });
    expect(job.generation_id).toBe(response.headers.get("x-generation-id"));
    const submitted = film.requests[0]!;
    expect(submitted).toMatchObject({ method: "POST", path: "/v1/videos", body: { model: "film-large", prompt: "a fox in the snow", seconds: "4", size: "1280x720" } });
    expect(submitted.headers.authorization).toBe("Bearer film-key");

    const done = await settled(rig.client, job.id);
    expect(done).toMatchObject({ id: job.id, status: "completed", generation_id: job.generation_id, usage: { cost: usd(4 * VIDEO_SECOND), is_byok: false } });
    expect(done.unsigned_urls).toEqual([`${rig.api}/videos/${job.id}/content?index=0`]);
    const record = await rig.generation(job.generation_id);
    const upstreamJob = `/v1/videos/${record.upstream_id}`;
    // Polled until completed: an in_progress answer first, then completed.
    expect(upstreamCalls(film).filter((call) => call === `GET ${upstreamJob}`)).toHaveLength(2);

    const content = await rig.client.videos.downloadContent(job.id);
    expect(content.headers.get("content-type")).toBe("video/mp4");
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(film.video);
    expect(upstreamCalls(film).at(-1)).toBe(`GET ${upstreamJob}/content`);

    expect(record).toMatchObject({ api_type: "video", model: "test/filmmaker", status: 200, provider_name: "film-main" });
    expect(record.meters).toEqual({ videoSeconds: 4 });
    expect(record.cost_details).toEqual({ video_second: usd(4 * VIDEO_SECOND) });
    expect(record.total_cost).toBe(usd(4 * VIDEO_SECOND));
  });

  test("an input_reference image is taken with the multipart form", async () => {
    const image = new File([Buffer.from(RED_PNG, "base64")], "first.png", { type: "image/png" });
    const created = (await rig.client.videos.create({ model: "test/filmmaker", prompt: "the square melts", input_reference: image })) as unknown as Record<string, any>;
    expect(created.status).toBe("pending");
    // OpenAI's JSON video wire takes no frame image: the reference is not sent on.
    expect(film.requests[0]!.body).toEqual({ model: "film-large", prompt: "the square melts" });
  });

  test("fallback: the main video server answers 503 at submission; the backup's job is polled and downloaded", async () => {
    film.behave({ status: 503 });
    filmBackup.behave({ pollStatuses: ["completed"] });
    const created = (await rig.client.videos.create({ model: "test/filmmaker", prompt: "waves", seconds: "8" })) as unknown as Record<string, any>;
    film.behave({});
    expect(upstreamCalls(film).filter((call) => call.startsWith("POST"))).toEqual(["POST /v1/videos"]);
    expect(filmBackup.requests[0]!.body).toMatchObject({ model: "film-small", prompt: "waves", seconds: "8" });
    const done = await settled(rig.client, created.id);
    expect(done.status).toBe("completed");
    const content = await rig.client.videos.downloadContent(created.id);
    expect(new Uint8Array(await content.arrayBuffer())).toEqual(filmBackup.video);
    const record = await rig.generation(created.generation_id);
    // The job lives on the backup: polled and downloaded there, never on the main server.
    const upstreamJob = `/v1/videos/${record.upstream_id}`;
    expect(upstreamCalls(filmBackup)).toEqual(["POST /v1/videos", `GET ${upstreamJob}`, `GET ${upstreamJob}/content`]);
    expect(upstreamCalls(film).filter((call) => call.endsWith("/content"))).toEqual([]);
    expect(record).toMatchObject({ api_type: "video", provider_name: "film-backup", status: 200 });
    expect(record.meters).toEqual({ videoSeconds: 8 });
    expect(record.cost_details).toEqual({ video_second: usd(8 * VIDEO_SECOND) });
  });

  test("the record of a job that failed over lists the submission's attempts", async () => {
    film.behave({ status: 503 });
    filmBackup.behave({ pollStatuses: ["completed"] });
    const created = (await rig.client.videos.create({ model: "test/filmmaker", prompt: "tides" })) as unknown as Record<string, any>;
    film.behave({});
    await settled(rig.client, created.id);
    const record = await rig.generation(created.generation_id);
    expect(record.provider_responses.map((attempt: any) => [attempt.provider_name, attempt.status])).toEqual([
      ["film-main", 503],
      ["film-backup", 200],
    ]);
  });

  test("a job the upstream fails: status failed with its reason, no content, nothing charged", async () => {
    film.behave({ pollStatuses: ["failed"], jobError: { code: "generation_failed", message: "out of memory" } });
    const created = (await rig.client.videos.create({ model: "test/filmmaker", prompt: "a storm" })) as unknown as Record<string, any>;
    const done = await settled(rig.client, created.id);
    expect(done.status).toBe("failed");
    expect(JSON.stringify(done.error)).toContain("out of memory");
    expect(await refusal(await rig.send("GET", `/videos/${created.id}/content`), 400)).toContain("failed");
    const record = await rig.generation(created.generation_id);
    expect(record).toMatchObject({ api_type: "video", status: 502, total_cost: 0 });
  });

  test("a model that does not make videos: 400 wrong_endpoint", async () => {
    const failure = await rig.client.videos.create({ model: "test/painter", prompt: "a fox" }).catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect(failure.error.availability).toMatchObject({ code: "wrong_endpoint", retryable: false });
    expect(film.requests).toHaveLength(0);
  });
});

describe("errors of jobs", () => {
  test("an unknown job id is a 404", async () => {
    const failure = await rig.client.videos.retrieve("vid-does-not-exist").catch((error) => error);
    expect(failure).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await refusal(await rig.send("GET", "/videos/vid-does-not-exist/content"), 404)).toContain("vid-does-not-exist");
  });

  test("another workspace's job is a 404, its content too", async () => {
    film.behave({ pollStatuses: ["completed"] });
    const created = (await rig.client.videos.create({ model: "test/filmmaker", prompt: "a secret film" })) as unknown as Record<string, any>;
    await settled(rig.client, created.id);
    const stranger = new OpenAI({ baseURL: rig.api, apiKey: await rig.otherWorkspaceKey(), maxRetries: 0 });
    expect(await stranger.videos.retrieve(created.id).catch((error) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(await stranger.videos.downloadContent(created.id).catch((error) => error)).toBeInstanceOf(OpenAI.NotFoundError);
    expect(upstreamCalls(film).filter((call) => call.endsWith("/content"))).toEqual([]);
  });

  test("content before the job completed is a 400 saying its status", async () => {
    film.behave({ pollStatuses: ["in_progress"] });
    const created = (await rig.client.videos.create({ model: "test/filmmaker", prompt: "slowly" })) as unknown as Record<string, any>;
    const message = await refusal(await rig.send("GET", `/videos/${created.id}/content?index=0`), 400);
    expect(message).toContain("content exists only once it completed");
    expect(upstreamCalls(film).filter((call) => call.endsWith("/content"))).toEqual([]);
  });

  test("bad submissions name the field", async () => {
    expect(await refusal(await rig.send("POST", "/videos", { model: "test/filmmaker", prompt: "x", duration: 0 }), 400)).toBe("body.duration: must be at least 1");
    expect(await refusal(await rig.send("POST", "/videos", { model: "test/filmmaker" }), 400)).toBe("prompt: is required unless frame_images or input_references are given");
    const form = new FormData();
    form.append("model", "test/filmmaker");
    form.append("prompt", "x");
    form.append("seconds", "four");
    const response = await fetch(`${rig.api}/videos`, { method: "POST", headers: { authorization: `Bearer ${rig.key}` }, body: form });
    expect(await refusal(response, 400)).toBe("seconds: must be a whole number of seconds");
    expect(film.requests).toHaveLength(0);
  });
});

describe("restart", () => {
  test("a job submitted before a restart completes after it, and its content downloads", async () => {
    const data = tempDir();
    try {
      const first = await startOperationsGateway(config, { dataDir: data.path });
      let created: Record<string, any>;
      try {
        created = (await first.client.videos.create({ model: "test/filmmaker", prompt: "a long take", seconds: "4" })) as unknown as Record<string, any>;
        expect(created.status).toBe("pending");
      } finally {
        await first.stop();
      }
      const beforeRestart = upstreamCalls(film);
      const second = await startOperationsGateway(config, { dataDir: data.path, key: first.key });
      try {
        const done = await settled(second.client, created.id);
        expect(done).toMatchObject({ status: "completed", generation_id: created.generation_id, usage: { cost: usd(4 * VIDEO_SECOND) } });
        const content = await second.client.videos.downloadContent(created.id);
        expect(new Uint8Array(await content.arrayBuffer())).toEqual(film.video);
        const record = await second.generation(created.generation_id);
        expect(record).toMatchObject({ api_type: "video", status: 200, total_cost: usd(4 * VIDEO_SECOND) });
        // Stopped within the first poll interval: the first gateway never asked the upstream about the job.
        expect(beforeRestart.filter((call) => call.includes(`/${record.upstream_id}`))).toEqual([]);
        expect(upstreamCalls(film).filter((call) => call.startsWith("POST"))).toEqual(["POST /v1/videos"]);
      } finally {
        await second.stop();
      }
    } finally {
      data.remove();
    }
  });
});
