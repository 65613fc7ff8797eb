import type { CanonicalRequest } from "../core/canonical.ts";
import { GatewayError } from "../core/errors.ts";
import type { FileStore } from "../db/files.ts";

/**
 * Fills in the `file_id` content parts of a request with the workspace's stored file, as a data URL
 * with its sniffed media type and name, so plugins (file-parser) and upstreams read it like any file
 * part. A file of another workspace, or none, is a 400 naming the id.
 */
export async function resolveFileParts(files: Pick<FileStore, "get" | "content">, workspaceId: string, request: CanonicalRequest): Promise<void> {
  for (const message of request.messages) {
    for (const part of message.content) {
      if (part.type !== "file" || part.fileId === undefined) continue;
      const row = await files.get(workspaceId, part.fileId);
      const bytes = row && (await files.content(workspaceId, part.fileId));
      if (!row || !bytes) throw new GatewayError("bad_request", `file_id: no file ${JSON.stringify(part.fileId)} in this workspace; upload it with POST /api/v1/files`);
      part.url = `data:${row.mimeType};base64,${Buffer.from(bytes).toString("base64")}`;
      part.mediaType = row.mimeType;
      part.filename ??= row.filename;
      delete part.fileId;
    }
  }
}
