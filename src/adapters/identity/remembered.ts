// A lazily loaded value whose failure is remembered: callers share one load, a success is kept,
// and a failure is handed to every caller for `backoffMs` before the next attempt, so a failing
// identity provider is not asked again on every request (each forged token would cost a fetch).
export function remembered<T>(load: () => Promise<T>, backoffMs: number): () => Promise<T> {
  let current: Promise<T> | null = null;
  let failedAt: number | null = null;
  return () => {
    if (current === null || (failedAt !== null && Date.now() - failedAt >= backoffMs)) {
      failedAt = null;
      const attempt = load();
      attempt.catch(() => {
        if (current === attempt) failedAt = Date.now();
      });
      current = attempt;
    }
    return current;
  };
}
