// The users the service knows, each read with the subscription that decides its tier.
import type { User } from '../model/accounts.ts';

export interface UsersRepository {
  /** Records when the user first subscribed, unless one is stored already (webhooks/subscription-written.ts). */
  markSubscribed(id: string, at: Date): Promise<void>;
  /** Creates the user on first sight, keeps the e-mail in step; one round trip when nothing changed. */
  upsertByIdpId(idpId: string, email: string): Promise<User>;
  findById(id: string): Promise<User | null>;
  findByIdpId(idpId: string): Promise<User | null>;
  /**
   * The user, created on first sight by a backend that knows no e-mail (left empty until the
   * user's own first request); an existing user's e-mail is never touched.
   */
  ensureByIdpId(idpId: string): Promise<User>;
  findByCustomerId(customerId: string): Promise<User | null>;
  /**
   * Stores the provider customer unless the user has one, or the customer belongs to another
   * user; returns the user's customer afterwards (null when neither was possible).
   */
  linkCustomer(userId: string, customerId: string): Promise<string | null>;
  /** Sets the plan the user's next checkout is priced at; null when there is no such user. */
  setPlan(idpId: string, plan: string): Promise<User | null>;
}
