/** An intern's own settings of the workspace's connections: turned off or hidden for it, and saying so in words. */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api.ts";
import { type Action, useAction } from "./forms.ts";

/** A connection's setting for one intern, as `PUT /vault/interns/{id}/connections/{key}` answers it. */
export interface InternSetting {
  turned_off: boolean;
  hidden: boolean;
}

/** How a setting stands, in words. */
export function settingText(setting: InternSetting): string {
  if (setting.turned_off && setting.hidden) return "turned off and hidden for this intern";
  if (setting.turned_off) return "turned off for this intern";
  if (setting.hidden) return "hidden from this intern";
  return "available to this intern";
}

/** What the Connections tab needs to change settings and show what it changed. */
export interface SettingsControl {
  /** The settings changed on this page, by key (what the tab loaded is on each connection). */
  known: Record<string, InternSetting>;
  /** Which key's change is in flight. */
  busy: string | undefined;
  action: Action;
  /** The last change, in words, for a polite live region that takes focus (the clicked button has gone). */
  message: string | undefined;
  messageRef: { current: HTMLParagraphElement | null };
  change(key: string, patch: Partial<InternSetting>): void;
}

/**
 * Settings changed in this browser tab, by intern and key: the API answers an intern's settings only to a
 * change, so what was changed here is remembered while the dashboard stays open (switching tabs included).
 */
const remembered = new Map<string, Record<string, InternSetting>>();

/** Changes an intern's settings of connections through the vault API, then calls `changed` (to reload the cards). */
export function useSettingsControl(internId: string, changed: () => void): SettingsControl {
  const [, setChanges] = useState(0);
  const known = remembered.get(internId) ?? {};
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [message, setMessage] = useState<string | undefined>(undefined);
  const messageRef = useRef<HTMLParagraphElement | null>(null);
  const action = useAction();
  useEffect(() => {
    if (message) messageRef.current?.focus();
  }, [message]);
  const change = (key: string, patch: Partial<InternSetting>) => {
    if (busy) return;
    setBusy(key);
    setMessage(undefined);
    void action
      .run(async () => {
        const answer = await api<{ data: { key: string } & InternSetting }>(
          "PUT",
          `/api/v1/vault/interns/${encodeURIComponent(internId)}/connections/${encodeURIComponent(key)}`,
          patch,
        );
        const setting = { turned_off: answer.data.turned_off, hidden: answer.data.hidden };
        remembered.set(internId, { ...remembered.get(internId), [key]: setting });
        setChanges((count) => count + 1);
        setMessage(`${key} is now ${settingText(setting)}.`);
      })
      .then(() => {
        setBusy(undefined);
        changed();
      });
  };
  return { known, busy, action, message, messageRef, change };
}
