// Closing checkout sessions at the provider so they can no longer be paid: one the database
// replaced by a newer session of its subject, or one still open once its subject has a
// subscription (paying it would start a second subscription, and a second trial). A session
// already paid or expired is stored as the provider says.
import type { PaymentsProvider } from '../ports/payments-provider.ts';
import type { CheckoutSessionsRepository } from '../ports/store.ts';

export async function expireAtProvider(
  ids: readonly string[],
  payments: Pick<PaymentsProvider, 'expireCheckoutSession'>,
  sessions: Pick<CheckoutSessionsRepository, 'markStatus'>,
): Promise<void> {
  for (const id of ids) {
    const { status } = await payments.expireCheckoutSession(id);
    await sessions.markStatus(id, status);
  }
}
