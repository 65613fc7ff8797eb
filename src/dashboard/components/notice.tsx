/** An error from the API, announced to screen readers. */
export function ErrorNotice({ error }: { error: Error | undefined }) {
  if (!error) return null;
  return (
    <p class="notice error" role="alert">
      {error.message}
    </p>
  );
}

/** A polite "Loading…" while a call is in flight. */
export function Loading({ loading }: { loading: boolean }) {
  return loading ? (
    <p class="loading" role="status">
      Loading…
    </p>
  ) : null;
}
