/**
 * A real local HTTP server speaking OpenAI's images and videos wires, for tests of the adapters and
 * the engine together: `POST /v1/images/generations`, `POST /v1/videos`, `GET /v1/videos/{id}` and
 * `GET /v1/videos/{id}/content`. It records every request and answers from a small script.
 */
import { type RecordingServer, requestHead, startRecordingServer } from "./recording-server.ts";

type Json = Record<string, any>;

/** An 8×8 red PNG, base64 (a real one: the adapter sniffs its type). */
export const RED_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEklEQVR4nGP4z8CAFWEXHbQSACj/P8Fu7N9hAAAAAElFTkSuQmCC";

export interface MediaBehaviour {
  /** The `data` entries of an images answer (default: one RED_PNG as b64_json per image asked for). */
  images?: Json[];
  /** The `usage` of an images answer (default none). */
  imageUsage?: Json;
  /** Answer every request with this status and an OpenAI error body instead. */
  status?: number;
  /** The statuses successive polls of a job report (default in_progress, then completed; the last one repeats). */
  pollStatuses?: string[];
  /** The `error` of a job whose poll reports `failed`. */
  jobError?: Json;
  /** Leave `seconds` out of job objects (some servers do). */
  withoutSeconds?: boolean;
}

export interface MediaRequest {
  method: string;
  path: string;
  search: string;
  headers: Record<string, string>;
  /** The JSON body, or null for a request without one. */
  body: Json | null;
}

/** The images and videos server; its `baseUrl` ends in `/v1`. */
export interface MediaUpstream extends Omit<RecordingServer<MediaRequest, MediaBehaviour>, "url"> {
  /** The base URL to configure (`…/v1`). */
  baseUrl: string;
  /** The content every completed job serves. */
  readonly video: Uint8Array<ArrayBuffer>;
}

const VIDEO = new Uint8Array([0, 0, 0, 24, ...new TextEncoder().encode("ftypmp42"), 0, 0, 0, 0, ...new TextEncoder().encode("mp42isom")]);

interface Job {
  model: string;
  seconds: string;
  size: string;
  polls: number;
}

/** Starts an images and videos server. */
export function startMediaUpstream(): MediaUpstream {
  const jobs = new Map<string, Job>();

  const jobObject = (id: string, job: Job, status: string, behaviour: MediaBehaviour): Json => ({
    id,
    object: "video",
    model: job.model,
    status,
    progress: status === "completed" ? 100 : 0,
    created_at: 1_762_000_000,
    size: job.size,
    ...(behaviour.withoutSeconds ? {} : { seconds: job.seconds }),
    ...(status === "failed" ? { error: behaviour.jobError ?? { code: "generation_failed", message: "the render crashed" } } : {}),
  });

  const { url, requests, behave, stop } = startRecordingServer<MediaRequest, MediaBehaviour>(async (request, recorder) => {
    const url = new URL(request.url);
    const text = request.method === "GET" ? "" : await request.text();
    const body = text === "" ? null : (JSON.parse(text) as Json);
    const { headers } = requestHead(request);
    recorder.record({ method: request.method, path: url.pathname, search: url.search, headers, body });
    const behaviour = recorder.behaviour();
    if (behaviour.status) {
      return Response.json({ error: { message: `upstream failure ${behaviour.status}`, type: "server_error" } }, { status: behaviour.status });
    }
    if (request.method === "POST" && url.pathname === "/v1/images/generations") {
      const count = typeof body?.n === "number" ? body.n : 1;
      const data = behaviour.images ?? Array.from({ length: count }, () => ({ b64_json: RED_PNG }));
      return Response.json({ created: 1_762_000_000, data, ...(behaviour.imageUsage ? { usage: behaviour.imageUsage } : {}) });
    }
    if (request.method === "POST" && url.pathname === "/v1/videos") {
      const id = `video_${jobs.size + 1}`;
      const job: Job = { model: String(body?.model), seconds: String(body?.seconds ?? "4"), size: String(body?.size ?? "720x1280"), polls: 0 };
      jobs.set(id, job);
      return Response.json(jobObject(id, job, "queued", behaviour));
    }
    const match = /^\/v1\/videos\/([^/]+)(\/content)?$/.exec(url.pathname);
    const id = match ? decodeURIComponent(match[1]!) : "";
    const job = jobs.get(id);
    if (request.method === "GET" && job) {
      if (match![2]) return new Response(VIDEO, { headers: { "content-type": "video/mp4" } });
      const statuses = behaviour.pollStatuses ?? ["in_progress", "completed"];
      job.polls++;
      return Response.json(jobObject(id, job, statuses[Math.min(job.polls, statuses.length) - 1]!, behaviour));
    }
    return Response.json({ error: { message: "not found", type: "invalid_request_error" } }, { status: 404 });
  });

  return { baseUrl: `${url}/v1`, requests, video: VIDEO, behave, stop };
}
