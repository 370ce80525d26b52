// The credits operations' schemas (contract section 14), registered with the others (schemas.ts).
import { Type } from 'typebox';

const credits = (description: string) =>
  Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

const Subject = Type.Object(
  {
    type: Type.Union([Type.Literal('user'), Type.Literal('organization')]),
    id: Type.String({ format: 'uuid', description: 'Our own id of the user or organisation' }),
  },
  { additionalProperties: false },
);

export const CreditsSchema = Type.Object(
  {
    subject: Subject,
    balance: credits('What may be spent now: what is left of the grant, and purchased credits'),
    grant: Type.Union([
      Type.Object(
        {
          amount: credits('Credits granted for the period'),
          remaining: credits('What is left of them'),
          expires_at: Type.String({
            format: 'date-time',
            description: 'When what is left expires',
          }),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    purchased: credits('Purchased credits left; they never expire'),
    packs: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          credits: credits('Credits the pack adds'),
          price: Type.Union([
            Type.Object(
              {
                amount: Type.Integer({ description: "In the currency's smallest unit" }),
                currency: Type.String(),
              },
              { additionalProperties: false },
            ),
            Type.Null(),
          ]),
        },
        { additionalProperties: false },
      ),
      { description: 'BILLING_CREDIT_PACKS in order; a price is null until the provider told it' },
    ),
  },
  { $id: 'Credits', additionalProperties: false },
);

export const CreditLedgerSchema = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          at: Type.String({ format: 'date-time' }),
          kind: Type.Union(
            ['grant', 'purchase', 'spend', 'expiry', 'refund', 'adjustment'].map((kind) =>
              Type.Literal(kind),
            ),
          ),
          amount: Type.Integer({ description: 'Credits added (positive) or taken (negative)' }),
          balance_after: credits('The balance after it'),
          reason: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      { description: 'Newest first' },
    ),
    next: Type.Union([Type.String(), Type.Null()], {
      description: 'Pass as `before` for the next page; null after the oldest entry',
    }),
  },
  { $id: 'CreditLedger', additionalProperties: false },
);

export const CreditCheckoutRequestSchema = Type.Object(
  {
    pack: Type.String({ maxLength: 32, description: 'The name of a pack of BILLING_CREDIT_PACKS' }),
    success_url: Type.Optional(Type.String()),
    cancel_url: Type.Optional(Type.String()),
  },
  { $id: 'CreditCheckoutRequest' },
);

export const CreditSpendRequestSchema = Type.Object(
  {
    subject: Type.Object(
      {
        type: Type.Union([Type.Literal('user'), Type.Literal('organization')]),
        idp_id: Type.String({
          minLength: 1,
          maxLength: 255,
          pattern: '^[^\\u0000-\\u001f\\u007f]+$',
          description: "The identity provider's id of the user, or of the organisation",
        }),
      },
      { additionalProperties: false },
    ),
    amount: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
    idempotency_key: Type.String({
      minLength: 1,
      maxLength: 255,
      pattern: '^[\\x20-\\x7e]+$',
      description: 'The same key again gets the first answer; printable ASCII',
    }),
    reason: Type.Optional(Type.String({ maxLength: 200 })),
  },
  { $id: 'CreditSpendRequest', additionalProperties: false },
);

export const CreditSpendSchema = Type.Object(
  { balance: credits('The balance after the spend') },
  { $id: 'CreditSpend', additionalProperties: false },
);

export const CreditSpendRefusedSchema = Type.Object(
  { detail: Type.String(), balance: credits('The balance, below the amount asked') },
  { $id: 'CreditSpendRefused', additionalProperties: false },
);

export const CREDIT_SCHEMAS = [
  CreditsSchema,
  CreditLedgerSchema,
  CreditCheckoutRequestSchema,
  CreditSpendRequestSchema,
  CreditSpendSchema,
  CreditSpendRefusedSchema,
];
