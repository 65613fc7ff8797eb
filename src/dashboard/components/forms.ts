/** What the administration forms share: the API refusal of their last call, and their fields' text as the API takes it. */
import { useState } from "preact/hooks";

/** A state-changing call and the API's refusal of the last one, to show next to its form. */
export interface Action {
  error: Error | undefined;
  run: (call: () => Promise<unknown>) => Promise<boolean>;
}

/** Runs calls one at a time, keeping the last refusal (cleared by a success); `run` answers whether it succeeded. */
export function useAction(): Action {
  const [error, setError] = useState<Error | undefined>(undefined);
  const run = async (call: () => Promise<unknown>) => {
    try {
      await call();
      setError(undefined);
      return true;
    } catch (failure) {
      setError(failure instanceof Error ? failure : new Error(String(failure)));
      return false;
    }
  };
  return { error, run };
}

/** A list as the text of its field: one item per line. */
export function listText(items: string[] | null | undefined): string {
  return (items ?? []).join("\n");
}

/** The items of a field's text (one per line or comma separated), or null when it names none. */
export function listOfText(text: string): string[] | null {
  const items = text.split(/[\n,]/).map((item) => item.trim()).filter((item) => item !== "");
  return items.length > 0 ? items : null;
}

/** A field's number, or null when empty (what is not a number goes as typed, for the API to refuse by name). */
export function numberOfText(text: string): number | string | null {
  if (text.trim() === "") return null;
  const value = Number(text);
  return Number.isFinite(value) ? value : text;
}

/** The value of the element an input event came from. */
export function valueOf(event: Event): string {
  return (event.target as HTMLInputElement).value;
}

/** Whether the checkbox an event came from is checked. */
export function checkedOf(event: Event): boolean {
  return (event.target as HTMLInputElement).checked;
}
