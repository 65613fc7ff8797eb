import type { InternSetting, SettingsControl } from "./intern-connection-settings.tsx";
import { settingText } from "./intern-connection-settings.tsx";

/** A workspace connection the intern cannot use (not a card: the cards are exactly the ones it can use). */
export interface OtherConnection {
  key: string;
  enabled: boolean;
  /** The intern's setting for it, as the API answered when the tab loaded. */
  setting?: InternSetting;
}

/** Why the intern cannot use it, as far as the dashboard knows. */
function why(connection: OtherConnection, setting: InternSetting | undefined): string {
  if (!connection.enabled) return `disabled for the whole workspace${setting && (setting.turned_off || setting.hidden) ? `; also ${settingText(setting)}` : ""}`;
  return setting ? settingText(setting) : "turned off or hidden for this intern";
}

/** The buttons that make a connection usable again: the one for what this tab turned off or hid, or one clearing both. */
function Undo({ connection, control }: { connection: OtherConnection; control: SettingsControl }) {
  const { key } = connection;
  const setting = control.known[key] ?? connection.setting;
  const disabled = control.busy !== undefined;
  if (!setting) {
    return (
      <button type="button" aria-label={`Make ${key} available to this intern`} disabled={disabled} onClick={() => control.change(key, { turned_off: false, hidden: false })}>
        Make available
      </button>
    );
  }
  return (
    <>
      {setting.turned_off ? (
        <button type="button" aria-label={`Turn on ${key} for this intern`} disabled={disabled} onClick={() => control.change(key, { turned_off: false })}>
          Turn on
        </button>
      ) : null}{" "}
      {setting.hidden ? (
        <button type="button" aria-label={`Show ${key} to this intern`} disabled={disabled} onClick={() => control.change(key, { hidden: false })}>
          Show
        </button>
      ) : null}
    </>
  );
}

/**
 * The workspace's other connections: the ones turned off or hidden for this intern, with a way back,
 * and the ones disabled for the workspace.
 */
export function OtherConnections({ others, control }: { others: OtherConnection[]; control: SettingsControl }) {
  if (others.length === 0) return null;
  return (
    <section aria-labelledby="other-connections-title">
      <h3 id="other-connections-title">Other connections of the workspace</h3>
      <p class="subtitle">
        {others.length} other {others.length === 1 ? "connection" : "connections"} of the workspace {others.length === 1 ? "is" : "are"} disabled, turned off or hidden for this
        intern.
      </p>
      <ul class="plain-list" aria-label="Connections this intern cannot use">
        {others.map((connection) => (
          <li key={connection.key}>
            <code>{connection.key}</code> — <span>{why(connection, control.known[connection.key] ?? connection.setting)}</span>{" "}
            {connection.enabled ? <Undo connection={connection} control={control} /> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
