// Something that keeps rows only for a while (the per-user limits' windows): retention asks it to
// delete what expired, in small batches, stopping between batches once `signal` is aborted.
export interface Expiring {
  forgetExpired(signal: AbortSignal): Promise<number>;
}
