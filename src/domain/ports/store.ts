// The database, as the domain needs it: repositories, bound to a transaction when one is asked for.
import type {
  CheckoutSessionRecord,
  Organization,
  PendingChange,
  SubjectRef,
  SubscriptionState,
  User,
} from '../model.ts';
import type { CreditsRepository } from './credits.ts';
import type { OutboxRepository } from './outbox.ts';

export interface UsersRepository {
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

/** An organisation a member's token names, with when that member was last recorded there. */
export interface SeenOrganization {
  organization: Organization;
  /** Null: the member is not recorded yet (or is not a user yet). */
  memberSeenAt: Date | null;
}

export interface OrganizationsRepository {
  /** The organisation, and when the user with `memberIdpId` was last recorded as its member; one read. */
  findSeenBy(
    issuer: string,
    idpOrgId: string,
    memberIdpId: string,
  ): Promise<SeenOrganization | null>;
  /** Creates it on first sight; concurrent first sights on any instance make one. */
  upsert(issuer: string, idpOrgId: string): Promise<Organization>;
  findById(id: string): Promise<Organization | null>;
  findByIdpOrgId(issuer: string, idpOrgId: string): Promise<Organization | null>;
  findByCustomerId(customerId: string): Promise<Organization | null>;
  /** As UsersRepository.linkCustomer, for an organisation; never a customer a user holds. */
  linkCustomer(organizationId: string, customerId: string): Promise<string | null>;
  setPlan(issuer: string, idpOrgId: string, plan: string): Promise<Organization | null>;
  /**
   * Records the user as a member seen now, in one statement. A member seen less than
   * `refreshAfterMs` ago is left as it is; a new member, or one back after `activeDays` away,
   * marks the organisation's seats as changed when `countsSeats`. Answers what it found.
   */
  recordMember(
    organizationId: string,
    userId: string,
    options: { refreshAfterMs: number; activeDays: number; countsSeats: boolean },
  ): Promise<'new' | 'returning' | 'seen' | 'recent'>;
  /** Members seen within the last `activeDays`. */
  countActiveMembers(organizationId: string, activeDays: number): Promise<number>;
}

/** A seat count the organisation's application reported, and as of when. */
export interface SeatReport {
  count: number;
  asOf: Date;
}

/** An organisation whose seats a worker took to look at, under its lease. */
export interface SeatWork {
  organizationId: string;
  /** The changes counted when it was taken: a change after it leaves the organisation pending. */
  changes: number;
  /** Failed attempts in a row before this one. */
  failures: number;
}

/** What the provider should bill, and what it was last asked to. */
export interface SeatTarget {
  /** Null: never decided. */
  desired: number | null;
  revision: number;
  /** The revision whose push the provider accepted last; null: none. */
  pushedRevision: number | null;
}

export interface SeatClaim {
  holder: string;
  leaseMs: number;
  limit: number;
  /** Taken once no change came for this long (a burst settles first)... */
  quietMs: number;
  /** ...or once a change has waited this long, whatever keeps coming... */
  maxWaitMs: number;
  /** ...or, once pushed while changes kept coming (a stream), this long. */
  streamWaitMs: number;
}

/** The seat engine's state per organisation (see seats/). */
export interface SeatsRepository {
  reported(organizationId: string): Promise<SeatReport | null>;
  /**
   * Stores the report unless one as of a later time is stored (then false, nothing changed), and
   * marks the organisation's seats as changed; one statement.
   */
  report(organizationId: string, report: SeatReport): Promise<boolean>;
  /**
   * Takes the lease of up to `limit` organisations with something to look at, whose lease is free
   * and whose back-off has passed: one statement, so two instances never take the same one.
   */
  claim(options: SeatClaim): Promise<SeatWork[]>;
  target(organizationId: string): Promise<SeatTarget>;
  /**
   * Under the holder's lease: stores `desired`, bumping the revision when it changed or when
   * `again` (the same quantity must be pushed anew); the revision after, null when the lease is lost.
   */
  setDesired(
    organizationId: string,
    holder: string,
    desired: number,
    again: boolean,
  ): Promise<number | null>;
  /** Under the holder's lease: the provider accepted the push of `revision`. */
  pushed(organizationId: string, holder: string, revision: number): Promise<void>;
  /**
   * Gives the lease up. Done: nothing is left to look at unless a change came after `changes`
   * (then a push, `pushed`, counts as one of a stream). Failed: looked at again after
   * `retryAfterMs`, one more failure counted.
   */
  release(
    organizationId: string,
    holder: string,
    outcome:
      { done: true; changes: number; pushed: boolean } | { done: false; retryAfterMs: number },
  ): Promise<void>;
  /** Marks the organisation's seats as changed: it is looked at again. */
  mark(organizationId: string): Promise<void>;
  /** Marks as changed each organisation whose active members (over `activeDays`, at least `minimum`) are no longer its desired quantity. */
  markLapsed(activeDays: number, minimum: number): Promise<number>;
  /** Organisations with a live subscription whose quantity is not (or not known to be) the desired one. */
  outOfSync(): Promise<number>;
}

export interface CheckoutSessionsRepository {
  /** The subject's session still marked open, if its time has not run out. */
  findOpen(owner: SubjectRef, now: Date): Promise<CheckoutSessionRecord | null>;
  /**
   * In a transaction: takes the subject's lock until it ends, marks its open session `expired` if
   * its time ran out, and returns the one still open: who records a session next decides alone.
   */
  lockOpen(owner: SubjectRef, now: Date): Promise<CheckoutSessionRecord | null>;
  /** How many of the subject's sessions are closed: the count moves only when one closes. */
  closedCount(owner: SubjectRef, now: Date): Promise<number>;
  /** The subject's sessions replaced by a newer one and not yet known to be expired at the provider. */
  replacedOf(owner: SubjectRef): Promise<string[]>;
  /** The sessions of the same subject as this one that may still be open at the provider. */
  othersOf(sessionId: string): Promise<string[]>;
  /** Records a session (again: no change); `open` fails while another of the subject's is open. */
  insert(session: CheckoutSessionRecord, status?: 'open' | 'replaced'): Promise<void>;
  markStatus(id: string, status: CheckoutSessionStatus): Promise<void>;
  /** The id of the user who opened the session, if it is one of ours. */
  userOf(sessionId: string): Promise<string | null>;
}

/** The provider's statuses, and `replaced`: superseded by a newer session, to expire at the provider. */
export type CheckoutSessionStatus = 'open' | 'complete' | 'expired' | 'replaced';

export interface SubscriptionsRepository {
  /** The stored state, without a lock (to decide what to read from the provider before a transaction). */
  find(id: string): Promise<SubscriptionState | null>;
  /** The stored state, locked until the transaction ends: two writers of one subscription take turns. */
  findForUpdate(id: string): Promise<SubscriptionState | null>;
  /** The stored states of these subscriptions (those stored), locked in the order of their ids when `lock`. */
  findMany(ids: readonly string[], options?: { lock?: boolean }): Promise<SubscriptionState[]>;
  /**
   * Records that the provider confirmed these stored states (found for update in the same
   * transaction) as of `asOf`: their `asOf` moves up to it, and their revision is bumped.
   */
  confirm(ids: readonly string[], asOf: number): Promise<void>;
  /** The subjects other than `except` holding stored subscriptions of the customer. */
  holdersOf(customerId: string, except: SubjectRef): Promise<SubjectRef[]>;
  /** Stores a subscription seen for the first time; false when another writer stored it first. */
  insert(state: Omit<SubscriptionState, 'revision'>): Promise<boolean>;
  /** Overwrites a stored state (found for update in the same transaction) and bumps its revision. */
  update(state: Omit<SubscriptionState, 'revision'>): Promise<void>;
  /**
   * A conditional write, in one statement: overwrites the provider's terms of a stored
   * subscription of the same customer (its user kept) only while its stored `asOf` is below
   * `state.asOf`, and bumps its revision; a failure time already stored is kept while
   * `state.paymentFailedAt` is set. Says what it replaced and what it wrote; otherwise writes
   * nothing and says the stored `asOf` (null: none stored), for the caller to decide.
   */
  updateIfAsOfBelow(
    state: Omit<SubscriptionState, 'revision' | 'owner'>,
  ): Promise<ConditionalWrite>;
}

export type ConditionalWrite =
  | { written: true; before: SubscriptionState; after: SubscriptionState }
  | { written: false; storedAsOf: number | null };

/** A subscription's pending change, as its schedule's events say it (migrations/013). */
export interface PendingChangesRepository {
  /**
   * Stores what the schedule's event as of `asOf` says (`change` null: none pending; `ended`: the
   * schedule released, canceled or completed), unless a newer event's is stored. Says who pays
   * for the subscription when it wrote (null: nothing written, or the subscription is not stored).
   */
  record(input: {
    subscriptionId: string;
    scheduleId: string;
    change: PendingChange | null;
    ended: boolean;
    asOf: number;
  }): Promise<SubjectRef | null>;
  /**
   * Whether an active schedule's event of that very second, stored already, says otherwise: a tie
   * the ordering cannot settle.
   */
  tiesWith(input: Parameters<PendingChangesRepository['record']>[0]): Promise<boolean>;
  /**
   * No schedule manages the subscription as of `asOf`: none pending, unless a newer event's is
   * stored. Says who pays for it when it wrote, as `record`.
   */
  clear(subscriptionId: string, asOf: number): Promise<SubjectRef | null>;
  /** The change pending for the subscription; null when none is. */
  of(subscriptionId: string): Promise<PendingChange | null>;
}

export interface Repositories {
  pendingChanges: PendingChangesRepository;
  users: UsersRepository;
  organizations: OrganizationsRepository;
  seats: SeatsRepository;
  checkoutSessions: CheckoutSessionsRepository;
  subscriptions: SubscriptionsRepository;
  outbox: OutboxRepository;
  credits: CreditsRepository;
}

export interface Store extends Repositories {
  /** Runs `work` in one transaction, on the repositories bound to it. */
  transaction<T>(work: (tx: Repositories) => Promise<T>): Promise<T>;
}
