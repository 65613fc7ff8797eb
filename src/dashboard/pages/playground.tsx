import { useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { streamChat, type StreamResult } from "../components/chat-stream.ts";
import { formatCost, formatTime } from "../components/format.ts";
import { ErrorNotice } from "../components/notice.tsx";
import { managesWorkspace, type PageDefinition, type Viewer } from "../components/page.ts";
import { useApi } from "../components/use-api.ts";

/** The inference key the playground sends with, and where it came from. */
interface PlaygroundKey {
  secret: string;
  source: "pasted" | "created";
  name?: string;
  expiresAt?: string;
}

/** Kept in this tab's memory only (a reload forgets it): never written to storage. */
let remembered: PlaygroundKey | undefined;

/** How long a key the playground creates lives. */
const KEY_LIFETIME_MS = 60 * 60_000;

interface Message {
  role: "user" | "assistant";
  content: string;
}

/** The key to send with: pasted, or (for those who may create keys) a short-lived one created here. */
function KeyPanel({ current, onChange, canCreate }: { current: PlaygroundKey | undefined; onChange: (key: PlaygroundKey | undefined) => void; canCreate: boolean }) {
  const [pasted, setPasted] = useState("");
  const [error, setError] = useState<Error | undefined>(undefined);
  const create = async () => {
    const expiresAt = new Date(Date.now() + KEY_LIFETIME_MS).toISOString();
    const name = `Playground ${new Date().toLocaleString()}`;
    try {
      const answer = await api<{ key: string }>("POST", "/api/v1/keys", { name, kind: "inference", expires_at: expiresAt });
      setError(undefined);
      onChange({ secret: answer.key, source: "created", name, expiresAt });
    } catch (failure) {
      setError(failure as Error);
    }
  };
  if (current) {
    return (
      <section class="card" aria-labelledby="key-title">
        <h2 id="key-title">Inference key</h2>
        <p role="status" class="key-source">
          {current.source === "pasted"
            ? "Using the inference key you pasted. It is kept in this tab's memory only and never stored."
            : `Using the short-lived key "${current.name}" created at your request; it expires at ${formatTime(current.expiresAt)}. Its secret is kept in this tab's memory only; the key is listed on the Keys page, where you can revoke it.`}
        </p>
        <button type="button" onClick={() => onChange(undefined)}>
          Forget the key
        </button>
      </section>
    );
  }
  return (
    <section class="card" aria-labelledby="key-title">
      <h2 id="key-title">Inference key</h2>
      <p>The playground calls the inference API, which takes an inference key (not your session). Choose one:</p>
      <form
        class="inline-form"
        aria-label="Paste an inference key"
        onSubmit={(event) => {
          event.preventDefault();
          if (pasted.trim()) onChange({ secret: pasted.trim(), source: "pasted" });
          setPasted("");
        }}
      >
        <label>
          Inference key <input type="password" autoComplete="off" required value={pasted} onInput={(event) => setPasted((event.target as HTMLInputElement).value)} />
        </label>
        <button type="submit">Use this key</button>
      </form>
      <p class="muted">Pasted keys are kept in this tab's memory only and never stored.</p>
      {canCreate ? (
        <p>
          Or create a new inference key in this workspace that expires in one hour (it shows on the Keys page):{" "}
          <button type="button" onClick={() => void create()}>
            Create a key that expires in one hour
          </button>
        </p>
      ) : null}
      <ErrorNotice error={error} />
    </section>
  );
}

function Transcript({ messages, streaming }: { messages: Message[]; streaming: boolean }) {
  if (messages.length === 0) return null;
  return (
    <div role="log" aria-label="Conversation" aria-busy={streaming}>
      <ol class="transcript">
        {messages.map((message, index) => (
          <li key={index} class={`turn ${message.role}`}>
            <span class="speaker">{message.role === "user" ? "You" : "Model"}</span>
            <div class="said">{message.content || (streaming && index === messages.length - 1 ? "…" : "")}</div>
          </li>
        ))}
      </ol>
    </div>
  );
}

function Playground({ viewer }: { viewer: Viewer }) {
  const manages = managesWorkspace(viewer);
  const [key, setKey] = useState(remembered);
  const [target, setTarget] = useState("");
  const [draft, setDraft] = useState("");
  const [messages, setMessages] = useState<Message[]>([]);
  const [streaming, setStreaming] = useState(false);
  const [result, setResult] = useState<StreamResult | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const abort = useRef<AbortController | undefined>(undefined);
  const models = useApi(() => api<{ data: Array<{ id: string; name: string }> }>("GET", "/api/v1/models/user"), []);
  // Presets need a management principal: a plain member is not refused them, it simply sees none.
  const presets = useApi(() => (manages ? api<{ data: Array<{ slug: string; name: string }> }>("GET", "/api/v1/presets?limit=100").catch(() => ({ data: [] })) : Promise.resolve({ data: [] })), [manages]);
  const chosen = target || models.data?.data[0]?.id || "";
  const useKey = (next: PlaygroundKey | undefined) => ((remembered = next), setKey(next));

  const send = async (event: Event) => {
    event.preventDefault();
    if (!key || !draft.trim() || !chosen) return;
    const history: Message[] = [...messages, { role: "user", content: draft.trim() }];
    setMessages([...history, { role: "assistant", content: "" }]);
    setDraft("");
    setError(undefined);
    setResult(undefined);
    setStreaming(true);
    const controller = new AbortController();
    abort.current = controller;
    let answer = "";
    try {
      const done = await streamChat(
        key.secret,
        { model: chosen, messages: history },
        (text) => {
          answer += text;
          setMessages([...history, { role: "assistant", content: answer }]);
        },
        controller.signal,
      );
      setResult(done);
    } catch (failure) {
      if (!controller.signal.aborted) setError(failure as Error);
    } finally {
      setStreaming(false);
      abort.current = undefined;
    }
  };

  return (
    <section aria-labelledby="playground-title">
      <header class="page-header">
        <h1 id="playground-title">Playground</h1>
      </header>
      <KeyPanel current={key} onChange={useKey} canCreate={manages} />
      <form class="chat-form" aria-label="Chat" onSubmit={send}>
        <label>
          Model or preset{" "}
          <select value={chosen} onChange={(event) => setTarget((event.target as HTMLSelectElement).value)}>
            <optgroup label="Models">
              {(models.data?.data ?? []).map((model) => (
                <option key={model.id} value={model.id}>
                  {model.id}
                </option>
              ))}
            </optgroup>
            {(presets.data?.data.length ?? 0) > 0 ? (
              <optgroup label="Presets">
                {presets.data!.data.map((preset) => (
                  <option key={preset.slug} value={`@preset/${preset.slug}`}>
                    {preset.name} (@preset/{preset.slug})
                  </option>
                ))}
              </optgroup>
            ) : null}
          </select>
        </label>
        <label class="message">
          Message
          <textarea rows={3} value={draft} onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)} />
        </label>
        <div class="chat-actions">
          <button type="submit" disabled={!key || streaming || !draft.trim() || !chosen}>
            Send
          </button>
          {streaming ? (
            <button type="button" onClick={() => abort.current?.abort()}>
              Stop
            </button>
          ) : null}
          <button type="button" disabled={streaming || messages.length === 0} onClick={() => (setMessages([]), setResult(undefined), setError(undefined))}>
            Clear the conversation
          </button>
        </div>
        {key ? null : <p class="muted">Choose an inference key above to send.</p>}
      </form>
      <ErrorNotice error={models.error ?? error} />
      <Transcript messages={messages} streaming={streaming} />
      {result ? (
        <p class="muted" role="status">
          Answered by {result.model ?? chosen}
          {result.provider ? ` on ${result.provider}` : ""}
          {result.usage ? `, ${result.usage.prompt_tokens} + ${result.usage.completion_tokens} tokens` : ""}
          {result.usage?.cost !== undefined ? `, ${formatCost(result.usage.cost)}` : ""}
          {result.id ? (
            <>
              {" "}
              (<a href={`#/generations/${encodeURIComponent(result.id)}`}>generation</a>)
            </>
          ) : null}
        </p>
      ) : null}
    </section>
  );
}

/** The playground: a streamed chat with a model or preset, through an inference key pasted or created for it. */
export const playgroundPage: PageDefinition = { path: "playground", title: "Playground", view: Playground };
