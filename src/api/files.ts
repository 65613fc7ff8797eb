import { t } from "elysia";
import { GatewayError } from "../core/errors.ts";
import type { FileRow } from "../db/schema-groups.ts";
import type { Services } from "./services.ts";
import type { Principal } from "./auth.ts";
import { parseIntegerParam } from "./http.ts";
import { readForm } from "./multipart.ts";
import { ANY_WORKSPACE_KEY, checkWorkspace, workspaceRoutes } from "./workspace-routes.ts";

/** A stored file as the API shows it (the reference's `openrouter` shape). */
export const FileObject = t.Object({
  _shape: t.Literal("openrouter"),
  id: t.String(),
  type: t.Literal("file"),
  filename: t.String(),
  mime_type: t.String(),
  size_bytes: t.Integer(),
  created_at: t.String(),
  downloadable: t.Boolean(),
});

const FileList = t.Object({
  _shape: t.Literal("openrouter"),
  data: t.Array(FileObject),
  cursor: t.Union([t.String(), t.Null()]),
  has_more: t.Boolean(),
  first_id: t.Union([t.String(), t.Null()]),
  last_id: t.Union([t.String(), t.Null()]),
});

/** The API shape of a stored file. */
export function fileJson(row: FileRow): typeof FileObject.static {
  return {
    _shape: "openrouter",
    id: row.id,
    type: "file",
    filename: row.filename,
    mime_type: row.mimeType,
    size_bytes: row.sizeBytes,
    created_at: row.createdAt,
    downloadable: true,
  };
}

/** What an upload's body may hold beyond its file: the multipart framing and a few small fields. */
const FORM_OVERHEAD_BYTES = 64 * 1024;

function checkQuery(principal: Principal, query: Record<string, string | undefined>): void {
  checkWorkspace(principal, query.workspace_id);
  if (query.provider !== undefined) throw new GatewayError("bad_request", "provider: files are stored by this gateway only; leave provider out");
}

/**
 * `/files`: a workspace's uploaded files (any key of the workspace), stored in the database so every
 * replica serves them; `file_id` content parts of inference requests read them (file-parts.ts). An
 * upload streams into the database as it arrives, within `server.max_upload_bytes` for the file.
 */
export function filesApi(services: Services) {
  const maxBytes = services.config.server.max_upload_bytes;
  const notFound = () => new GatewayError("not_found", "File not found");
  return workspaceRoutes(services, { name: "files-api", prefix: "/files" }, ANY_WORKSPACE_KEY)
    .post(
      "/",
      async ({ principal, request, query, set }) => {
        checkQuery(principal, query);
        const { file } = await readForm(request, { maxBytes: maxBytes + FORM_OVERHEAD_BYTES, fileField: "file" }, (bytes, filename) =>
          services.files.upload(principal.workspace.id, { filename: filename || "upload", bytes, maxBytes }),
        );
        if (!file) throw new GatewayError("bad_request", "file: a multipart part named file is required");
        set.status = 201;
        return fileJson(file);
      },
      {
        response: { 201: FileObject },
        detail: { requestBody: { required: true, content: { "multipart/form-data": { schema: t.Object({ file: t.String({ format: "binary", description: "The file's bytes" }) }) as object } } } },
      },
    )
    .get(
      "/",
      async ({ principal, query }) => {
        checkQuery(principal, query);
        if (query.order !== undefined && query.order !== "asc") throw new GatewayError("bad_request", 'order: only "asc" is supported');
        if (query.before_id !== undefined) throw new GatewayError("bad_request", "before_id: not supported; page forward with cursor, after or after_id");
        const limit = parseIntegerParam(query, "limit", 100, 1, 1000);
        const after = query.cursor ?? query.after ?? query.after_id;
        const { rows, hasMore } = await services.files.list(principal.workspace.id, { after, limit });
        const last = rows.at(-1)?.id ?? null;
        return { _shape: "openrouter" as const, data: rows.map(fileJson), cursor: hasMore ? last : null, has_more: hasMore, first_id: rows[0]?.id ?? null, last_id: last };
      },
      { response: { 200: FileList } },
    )
    .get(
      "/:id",
      async ({ principal, params, query }) => {
        checkQuery(principal, query);
        const row = await services.files.get(principal.workspace.id, params.id);
        if (!row) throw notFound();
        return fileJson(row);
      },
      { response: { 200: FileObject } },
    )
    .get("/:id/content", async ({ principal, params, query }) => {
      checkQuery(principal, query);
      const row = await services.files.get(principal.workspace.id, params.id);
      const chunks = row && (await services.files.chunks(principal.workspace.id, params.id));
      if (!row || !chunks) throw notFound();
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(next.value);
        },
      });
      return new Response(body, {
        headers: {
          "content-type": row.mimeType,
          "content-length": String(row.sizeBytes),
          "content-disposition": `attachment; filename="${row.filename.replace(/["\\\r\n]/g, "_")}"`,
        },
      });
    }, { detail: { responses: { 200: { description: "The file's bytes, of its sniffed media type", content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } } } } } })
    .delete(
      "/:id",
      async ({ principal, params, query }) => {
        checkQuery(principal, query);
        if (!(await services.files.delete(principal.workspace.id, params.id))) throw notFound();
        return { _shape: "openrouter" as const, id: params.id, type: "file_deleted" as const };
      },
      { response: { 200: t.Object({ _shape: t.Literal("openrouter"), id: t.String(), type: t.Literal("file_deleted") }) } },
    );
}
