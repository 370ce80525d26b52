// Development only: how /billing's sentences address the reader (their own account or their
// organisation's) and say a time.
/** Whose account the words are about: the person's own, or their organisation's. */
export interface Voice {
  /** Whose subscription it is, at the start of a sentence. */
  whose: string;
  /** Who keeps the tier (a plural verb follows). */
  who: string;
  none: string;
  /** Who may cancel, with its verb. */
  cancels: string;
  /** Who may update the card, with its verb. */
  updatesCard: string;
}

export const PERSONAL: Voice = {
  whose: 'Your',
  who: 'you',
  none: 'You have no subscription yet.',
  cancels: 'you cancel',
  updatesCard: 'update your card',
};

export const ORGANIZATION: Voice = {
  whose: "Your organisation's",
  who: 'its members',
  none: 'Your organisation has no subscription yet.',
  cancels: 'a manager cancels',
  updatesCard: 'a manager can update the card',
};

export const capitalized = (text: string) => `${text[0]!.toUpperCase()}${text.slice(1)}`;

/** A time as a person reads it on the page: `2027-06-01 00:00 UTC`. */
export const when = (date: Date | null): string =>
  date === null
    ? 'the end of the period'
    : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
