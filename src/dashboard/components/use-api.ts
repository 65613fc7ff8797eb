import { useCallback, useEffect, useState } from "preact/hooks";

/** What a loading call shows: its data once loaded, its error, and a way to load again. */
export interface Loaded<T> {
  data: T | undefined;
  error: Error | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` whenever `deps` change (a stale answer is dropped) and tracks its result. */
export function useApi<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => current && (setData(value), setError(undefined), setLoading(false)),
      (failure: unknown) => current && (setError(failure instanceof Error ? failure : new Error(String(failure))), setLoading(false)),
    );
    return () => {
      current = false;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [...deps, round]);
  const reload = useCallback(() => setRound((value) => value + 1), []);
  return { data, error, loading, reload };
}
