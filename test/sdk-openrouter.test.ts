import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { OpenRouter } from "@openrouter/sdk";
import { ADMIN_KEY, listening } from "./helpers/gateway.ts";

/** The real @openrouter/sdk against a listening gateway: every management call it can make here. */
let gateway: Awaited<ReturnType<typeof listening>>;
let sdk: OpenRouter;

function client(apiKey: string): OpenRouter {
  return new OpenRouter({ apiKey, serverURL: `${gateway.url}/api/v1`, retryConfig: { strategy: "none" } });
}

beforeAll(async () => {
  gateway = await listening();
  sdk = client(ADMIN_KEY);
});

afterAll(async () => {
  await gateway.stop();
});

describe("@openrouter/sdk: keys", () => {
  test("getCurrentKeyMetadata, create, list, get, update, delete", async () => {
    const current = await sdk.apiKeys.getCurrentKeyMetadata();
    expect(current.data.isManagementKey).toBe(true);
    expect(current.data.workspaceId).toBeString();

    const expiresAt = new Date(Date.now() + 86_400_000);
    const created = await sdk.apiKeys.create({
      requestBody: { name: "sdk key", limit: 25, limitReset: "monthly", expiresAt, includeByokInLimit: true },
    });
    expect(created.key).toStartWith("sk-rh-v1-");
    expect(created.data).toMatchObject({ name: "sdk key", limit: 25, limitReset: "monthly", includeByokInLimit: true, disabled: false });
    expect(created.data.expiresAt?.getTime()).toBe(expiresAt.getTime());
    const hash = created.data.hash;

    const listed = await sdk.apiKeys.list();
    expect(listed.data.map((key) => key.hash)).toContain(hash);
    expect((await sdk.apiKeys.get({ hash })).data.name).toBe("sdk key");

    const updated = await sdk.apiKeys.update({ hash, requestBody: { name: "renamed", disabled: true, limit: null } });
    expect(updated.data).toMatchObject({ name: "renamed", disabled: true, limit: null });
    expect((await sdk.apiKeys.list()).data.map((key) => key.hash)).not.toContain(hash);
    expect((await sdk.apiKeys.list({ includeDisabled: true })).data.map((key) => key.hash)).toContain(hash);

    expect(await sdk.apiKeys.delete({ hash })).toEqual({ deleted: true });
    await expect(sdk.apiKeys.get({ hash })).rejects.toMatchObject({ statusCode: 404 });
  });

  test("a bad key is a typed 401; a wrong kind a typed 403", async () => {
    await expect(client("sk-rh-v1-nobody-nobody-nobody").apiKeys.list()).rejects.toMatchObject({
      statusCode: 401,
      name: "UnauthorizedResponseError",
    });
    const { key } = await sdk.apiKeys.create({ requestBody: { name: "inference only" } });
    await expect(client(key).apiKeys.create({ requestBody: { name: "x" } })).rejects.toMatchObject({
      statusCode: 403,
      name: "ForbiddenResponseError",
    });
  });
});

describe("@openrouter/sdk: workspaces", () => {
  test("list, create, get, update, delete", async () => {
    const before = await sdk.workspaces.list({});
    const created = await sdk.workspaces.create({
      createWorkspaceRequest: { name: "Research", slug: "research", description: "R&D", disabledServerTools: ["openrouter:bash"] },
    });
    expect(created.data).toMatchObject({ name: "Research", slug: "research", description: "R&D", disabledServerTools: ["openrouter:bash"] });
    const id = created.data.id;
    const after = await sdk.workspaces.list({});
    expect(after.result.totalCount).toBe(before.result.totalCount + 1);
    expect((await sdk.workspaces.get({ id })).data.slug).toBe("research");
    const updated = await sdk.workspaces.update({ id, updateWorkspaceRequest: { description: null, defaultTextModel: "m/x" } });
    expect(updated.data).toMatchObject({ description: null, defaultTextModel: "m/x" });
    await expect(sdk.workspaces.create({ createWorkspaceRequest: { name: "Dup", slug: "research" } })).rejects.toMatchObject({
      statusCode: 409,
    });
    expect(await sdk.workspaces.delete({ id })).toEqual({ deleted: true });
    await expect(sdk.workspaces.get({ id })).rejects.toMatchObject({ statusCode: 404 });
  });
});

describe("@openrouter/sdk: interns and vault", () => {
  let internId: string;

  beforeAll(async () => {
    const workspaceId = (await sdk.apiKeys.getCurrentKeyMetadata()).data.workspaceId!;
    // The programme switch is a Roundhouse extension of the workspace, set with plain HTTP.
    const response = await fetch(`${gateway.url}/api/v1/workspaces/${workspaceId}`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
      body: JSON.stringify({ intern_api_access: true }),
    });
    expect(response.status).toBe(200);
  });

  test("interns: create, get, list, update, delete", async () => {
    const created = await sdk.interns.createIntern({ idempotencyKey: "idem-1", createInternRequest: { name: "Ada", description: null } });
    expect(created).toMatchObject({ name: "Ada", status: "stopped", progress: null });
    internId = created.id;
    expect((await sdk.interns.getIntern({ internId })).name).toBe("Ada");
    const listed = await sdk.interns.listInterns({ limit: 10 });
    expect(listed.data.map((intern) => intern.id)).toContain(internId);
    expect(listed.hasMore).toBe(false);
    const updated = await sdk.interns.updateIntern({ internId, updateInternRequest: { model: "m/x", name: "Ada L." } });
    expect(updated).toMatchObject({ model: "m/x", name: "Ada L." });
    const doomed = await sdk.interns.createIntern({ createInternRequest: { name: "Doomed" } });
    expect(await sdk.interns.deleteIntern({ internId: doomed.id, deleteInternRequest: {} })).toEqual({ deleting: true });
    await expect(sdk.interns.getIntern({ internId: doomed.id })).rejects.toMatchObject({ statusCode: 404 });
  });

  test("vault secrets: store, list, delete, intern secrets, copy", async () => {
    const stored = await sdk.vault.storeVaultSecret({
      name: "github_token",
      vaultSecretWriteRequest: { hosts: ["api.github.com"], value: "ghp_sdk_secret" },
    });
    expect(stored.data.name).toBe("github_token");
    expect(stored.data.createdAt).toBeInstanceOf(Date);
    expect(stored.data.hosts).toEqual(["api.github.com"]);
    await sdk.vault.storeVaultSecret({ name: "other", vaultSecretWriteRequest: { hosts: ["x.example.com"], value: "o" } });
    const listed = await sdk.vault.listVaultSecrets({});
    expect(listed.data.map((secret) => secret.name)).toEqual(["github_token", "other"]);
    expect(listed.hasMore).toBe(false);
    expect(await sdk.vault.deleteVaultSecret({ name: "other" })).toBeUndefined();
    await expect(sdk.vault.deleteVaultSecret({ name: "other" })).rejects.toMatchObject({ statusCode: 404 });

    const own = await sdk.vault.storeInternVaultSecret({
      internId,
      name: "slack_token",
      vaultSecretWriteRequest: { hosts: ["slack.com"], value: "xoxb" },
    });
    expect(own.data.name).toBe("slack_token");
    const copied = await sdk.vault.copyVaultSecretsToIntern({ internId, vaultSecretCopyRequest: { names: ["github_token"] } });
    expect(copied.data.map((secret) => secret.name)).toEqual(["github_token"]);
    const internSecrets = await sdk.vault.listInternVaultSecrets({ internId });
    expect(internSecrets.data.map((secret) => secret.name)).toEqual(["github_token", "slack_token"]);
    expect(await sdk.vault.deleteInternVaultSecret({ internId, name: "slack_token" })).toBeUndefined();
    await expect(
      sdk.vault.storeVaultSecret({ name: "Bad Name", vaultSecretWriteRequest: { hosts: ["a.com"], value: "v" } }),
    ).rejects.toMatchObject({ statusCode: 400 });
    expect(JSON.stringify(internSecrets)).not.toContain("ghp_sdk_secret");
  });
});

describe("@openrouter/sdk: presets", () => {
  test("create from responses, chat and messages bodies; list; get; versions; one version", async () => {
    const first = await sdk.presets.createPresetsResponses({
      slug: "sdk-preset",
      responsesRequest: { model: "openai/gpt-4o", instructions: "Be kind.", temperature: 0.5, input: "ignored" },
    });
    expect(first.data).toMatchObject({ slug: "sdk-preset", name: "sdk-preset", status: "active" });
    expect(first.data.designatedVersion).toMatchObject({ version: 1, systemPrompt: "Be kind." });
    expect(first.data.designatedVersion?.config).toEqual({ model: "openai/gpt-4o", temperature: 0.5, service_tier: "auto" });

    const second = await sdk.presets.createPresetsChatCompletions({
      slug: "sdk-preset",
      chatRequest: { model: "openai/gpt-4o-mini", messages: [{ role: "system", content: "Be terse." }, { role: "user", content: "hi" }] },
    });
    expect(second.data.designatedVersion).toMatchObject({ version: 2, systemPrompt: "Be terse." });

    const third = await sdk.presets.createPresetsMessages({
      slug: "sdk-preset",
      messagesRequest: { model: "anthropic/claude", maxTokens: 10, system: "Be Claude.", messages: [{ role: "user", content: "hi" }] },
    });
    expect(third.data.designatedVersion).toMatchObject({ version: 3, systemPrompt: "Be Claude." });
    expect(third.data.designatedVersionId).toBe(third.data.designatedVersion!.id);

    const list = await sdk.presets.list({});
    expect(list.result.data.map((preset) => preset.slug)).toContain("sdk-preset");
    expect(list.result.totalCount).toBeGreaterThanOrEqual(1);
    const got = await sdk.presets.get({ slug: "sdk-preset" });
    expect(got.data.designatedVersion?.version).toBe(3);
    const versions = await sdk.presets.listVersions({ slug: "sdk-preset" });
    expect(versions.result.data.map((version) => version?.version)).toEqual([1, 2, 3]);
    const one = await sdk.presets.getVersion({ slug: "sdk-preset", version: "2" });
    expect(one.data?.config).toEqual({ model: "openai/gpt-4o-mini" });
  });

  test("validation and permission errors arrive as the SDK's typed errors", async () => {
    await expect(
      sdk.presets.createPresetsResponses({ slug: "bad", responsesRequest: { metadata: { "a[b]": "c" } } }),
    ).rejects.toMatchObject({ statusCode: 400, name: "BadRequestResponseError" });
    const { key } = await sdk.apiKeys.create({ requestBody: { name: "inference" } });
    const denied = await client(key)
      .presets.createPresetsResponses({ slug: "x", responsesRequest: { model: "a/b" } })
      .catch((error: unknown) => error);
    expect(denied).toMatchObject({ statusCode: 403, name: "ForbiddenResponseError" });
    expect((denied as { error: { message: string } }).error.message).toBe("Only management keys can perform this operation");
    await expect(sdk.presets.get({ slug: "missing" })).rejects.toMatchObject({ statusCode: 404, name: "NotFoundResponseError" });
  });
});
