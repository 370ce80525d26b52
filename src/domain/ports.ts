// What the domain needs from the outside world, as small interfaces. Adapters implement them;
// composition.ts chooses which. Nothing here knows about HTTP, SQL or an SDK.
import type { SubscriptionStatus } from './billing/tier.ts';

/** Who is calling, as proven by a verified access token. */
export interface Principal {
  idpId: string;
  email: string;
}

export interface TokenVerifier {
  /** Resolves the principal, or throws DomainError('invalid_token'). */
  verify(token: string): Promise<Principal>;
}

export interface SubscriptionState {
  id: string;
  userId: string;
  customerId: string;
  status: SubscriptionStatus;
  priceId: string | null;
  cancelAtPeriodEnd: boolean;
  currentPeriodEnd: Date | null;
  paymentFailedAt: Date | null;
  createdAt: Date;
  /** Unix seconds of the event (or provider read) this state came from. */
  eventCreated: number;
}

export interface User {
  id: string;
  idpId: string;
  email: string;
  plan: string | null;
  paymentsCustomerId: string | null;
  createdAt: Date;
  /** The subscription that decides the tier, if any. */
  subscription: SubscriptionState | null;
}

export interface UsersRepository {
  /** Creates the user on first sight, keeps the e-mail in step; one round trip when nothing changed. */
  upsertByIdpId(idpId: string, email: string): Promise<User>;
  findById(id: string): Promise<User | null>;
  findByCustomerId(customerId: string): Promise<User | null>;
}

export interface Repositories {
  users: UsersRepository;
}

export interface Store extends Repositories {
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Throws when the database does not answer. */
  ping(): Promise<void>;
}
