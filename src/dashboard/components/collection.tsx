/**
 * What every list page shares: the list loaded from the API, the row opened under its table (which
 * part of it: edit, assignments, …), the create form shown or not, state-changing calls with the API's
 * refusal of the last one, and the list's error and loading notices.
 */
import { useState } from "preact/hooks";
import { useAction } from "./forms.ts";
import { ErrorNotice, Loading } from "./notice.tsx";
import { useApi } from "./use-api.ts";

export interface Collection<T, Answer extends { data: T[] }> {
  /** The list's answer once loaded (with its totals, when it has them). */
  answer: Answer | undefined;
  /** Its items; none until loaded. */
  items: T[];
  error: Error | undefined;
  /** Loading for the first time (a reload keeps the old list shown). */
  loading: boolean;
  reload: () => void;
  /** Whether row `id` is open (at `part`, when given). */
  isOpen: (id: string, part?: string) => boolean;
  /** Which part of which row is open. */
  open: { id: string; part: string } | undefined;
  /** Opens `part` of row `id`, or closes it when it is the one open. */
  toggle: (id: string, part?: string) => void;
  /** Whether the create form is shown. */
  creating: boolean;
  setCreating: (creating: boolean) => void;
  /** After a row's form saved: closes the row and loads the list again. */
  saved: () => void;
  /** After the create form saved: closes it and loads the list again. */
  created: () => void;
  /** Runs a state-changing call, keeping its refusal, and loads the list again; answers whether it succeeded. */
  act: (call: () => Promise<unknown>) => Promise<boolean>;
  /** `act` once the person confirmed `question`. */
  confirmed: (question: string, call: () => Promise<unknown>) => void;
}

/** The shared state of a list page whose API answers `{data: T[]}` (plus whatever else `Answer` carries). */
export function useCollection<T, Answer extends { data: T[] } = { data: T[] }>(load: () => Promise<Answer>, deps: unknown[] = []): Collection<T, Answer> {
  const list = useApi(load, deps);
  const action = useAction();
  const [open, setOpen] = useState<{ id: string; part: string } | undefined>(undefined);
  const [creating, setCreating] = useState(false);
  const act = async (call: () => Promise<unknown>) => {
    const succeeded = await action.run(call);
    list.reload();
    return succeeded;
  };
  return {
    answer: list.data,
    items: list.data?.data ?? [],
    error: list.error ?? action.error,
    loading: list.loading && !list.data,
    reload: list.reload,
    open,
    isOpen: (id, part) => open?.id === id && (part === undefined || open.part === part),
    toggle: (id, part = "edit") => setOpen(open?.id === id && open.part === part ? undefined : { id, part }),
    creating,
    setCreating,
    saved: () => (setOpen(undefined), list.reload()),
    created: () => (setCreating(false), list.reload()),
    act,
    confirmed: (question, call) => {
      if (confirm(question)) void act(call);
    },
  };
}

/** A collection's error (of loading it, or of its last change) and its first load in flight. */
export function CollectionStatus({ collection }: { collection: { error: Error | undefined; loading: boolean } }) {
  return (
    <>
      <ErrorNotice error={collection.error} />
      <Loading loading={collection.loading} />
    </>
  );
}
