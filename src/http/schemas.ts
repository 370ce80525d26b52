// Shared response and request schemas. Their names are the API's public ones (clients generate
// types from /openapi.json), so they do not change. They are registered once (app.addSchema) and
// referenced by $id, so Fastify's serializer only ever emits the declared fields.
import { Type } from 'typebox';
import { CREDIT_SCHEMAS } from './credit-schemas.ts';

export const UserSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid', description: 'Identifier of the user' }),
    idp_id: Type.String({ description: 'Identifier of the user at the identity provider' }),
    email: Type.String({ format: 'email', description: 'E-mail address of the user' }),
    tier: Type.String({ description: 'Subscription tier: "free" or a tier of BILLING_PRICES' }),
    created_at: Type.String({ format: 'date-time', description: 'Creation time of the user' }),
  },
  { $id: 'User', additionalProperties: false },
);

export const CheckoutRequestSchema = Type.Object(
  {
    success_url: Type.Optional(
      Type.String({ description: 'Where the provider sends the user after a completed checkout' }),
    ),
    cancel_url: Type.Optional(
      Type.String({ description: 'Where the provider sends the user after a cancelled checkout' }),
    ),
  },
  { $id: 'CheckoutRequest' },
);

export const CheckoutResponseSchema = Type.Object(
  { url: Type.String({ description: 'Address of the checkout session' }) },
  { $id: 'CheckoutResponse', additionalProperties: false },
);

export const PortalRequestSchema = Type.Object(
  {
    return_url: Type.Optional(
      Type.String({
        description: 'Where the portal\'s "Return" link leads; default APP_URL/billing',
      }),
    ),
  },
  { $id: 'PortalRequest' },
);

export const PortalResponseSchema = Type.Object(
  { url: Type.String({ description: 'Address of the billing portal session' }) },
  { $id: 'PortalResponse', additionalProperties: false },
);

const dateTimeOrNull = (description: string) =>
  Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const SubscriptionDetailsSchema = Type.Object(
  {
    status: Type.String({
      description:
        "The provider's status: active, trialing, past_due, incomplete, incomplete_expired, unpaid, canceled or paused",
    }),
    plan: Type.Union([Type.String(), Type.Null()], {
      description: 'The tier of its price; null for a price not in BILLING_PRICES',
    }),
    interval: Type.Union([Type.Literal('month'), Type.Literal('year'), Type.Null()], {
      description:
        'How often its price recurs, as BILLING_PRICES gives it (@year: year); null for a price not in BILLING_PRICES',
    }),
    trial_end: dateTimeOrNull('When its trial ends (or ended); null without a trial'),
    current_period_end: dateTimeOrNull('When its current period ends'),
    cancel_at: dateTimeOrNull(
      "When it is scheduled to end (either of the provider's ways); null when it is not",
    ),
    cancel_at_period_end: Type.Boolean({
      description: 'Whether that scheduled end is the end of the current period',
    }),
    pending_change: Type.Union(
      [
        Type.Object(
          {
            plan: Type.Union([Type.String(), Type.Null()], {
              description: 'The tier it moves to; null for a price not in BILLING_PRICES',
            }),
            interval: Type.Union([Type.Literal('month'), Type.Literal('year'), Type.Null()], {
              description: 'The interval of the price it moves to',
            }),
            effective_at: Type.String({
              format: 'date-time',
              description: "When the provider makes it (the current period's end)",
            }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      {
        description:
          'A change the provider makes later (a downgrade in the portal waits for the period end); the tier changes only then. Null when none is pending',
      },
    ),
  },
  { $id: 'SubscriptionDetails', additionalProperties: false },
);

/** What the next checkout sells and what the tier allows: the same for a user and an organisation. */
const offerAndEntitlements = {
  plan: Type.String({ description: 'The plan the next checkout sells' }),
  trial_eligible: Type.Boolean({ description: 'Whether the next checkout would carry a trial' }),
  features: Type.Array(Type.String(), { description: 'The features of the tier' }),
  limits: Type.Object(
    {},
    {
      description: 'The limits of the tier: a non-negative integer, or null for unlimited',
      additionalProperties: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
    },
  ),
};

export const BillingSubscriptionSchema = Type.Object(
  {
    tier: Type.String({
      description:
        'The tier, as in users/me: "free" or a tier of BILLING_PRICES; the higher of the user\'s own and their organisation\'s when the token names one',
    }),
    tier_source: Type.Optional(
      Type.Union([Type.Literal('organization'), Type.Literal('user'), Type.Null()], {
        description:
          'Only when the token names an organisation: "organization" when its tier is paid and at least the user\'s own, "user" when the user\'s own paid tier is higher, null when the tier is free',
      }),
    ),
    ...offerAndEntitlements,
    subscription: Type.Union([Type.Ref('SubscriptionDetails'), Type.Null()], {
      description:
        "The user's own subscription (the tier is computed from it unless it comes from the organisation); null when there is none",
    }),
  },
  { $id: 'BillingSubscription', additionalProperties: false },
);

const count = (description: string) => Type.Integer({ minimum: 0, description });
const countOrNull = (description: string) =>
  Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

export const OrganizationBillingSchema = Type.Object(
  {
    org: Type.Object(
      {
        id: Type.String({ format: 'uuid', description: 'Identifier of the organisation' }),
        idp_org_id: Type.String({
          description:
            'Identifier of the organisation at the identity provider, as the token names it',
        }),
        created_at: Type.String({
          format: 'date-time',
          description: 'When the service first saw it',
        }),
      },
      { additionalProperties: false },
    ),
    role: Type.Union([Type.String(), Type.Array(Type.String()), Type.Null()], {
      description: "The caller's role claim as the token gives it: a string, a list, or null",
    }),
    can_manage: Type.Boolean({
      description:
        'Whether that role may buy and manage the subscription (BILLING_ORG_MANAGER_ROLES)',
    }),
    tier: Type.String({
      description: 'The organisation\'s tier: "free" or a tier of BILLING_PRICES',
    }),
    ...offerAndEntitlements,
    seats: Type.Object(
      {
        active: count('Members seen with a token naming it within BILLING_SEAT_ACTIVE_DAYS'),
        reported: countOrNull('The last count its application reported; null: none'),
        billed: countOrNull("The live subscription's quantity; null without one"),
      },
      { additionalProperties: false },
    ),
    subscription: Type.Union([Type.Ref('SubscriptionDetails'), Type.Null()], {
      description: "The organisation's subscription; null when there is none",
    }),
  },
  { $id: 'OrganizationBilling', additionalProperties: false },
);

export const SeatReportRequestSchema = Type.Object(
  {
    count: Type.Integer({
      minimum: 0,
      maximum: 1_000_000,
      description: 'Seats the organisation uses now',
    }),
    as_of: Type.String({
      format: 'date-time',
      description: 'When the count was taken; a report older than the stored one changes nothing',
    }),
  },
  { $id: 'SeatReportRequest' },
);

export const SeatReportSchema = Type.Object(
  {
    applied: Type.Boolean({
      description: 'False when a report as of a later time was stored already',
    }),
    reported: count('The count stored now'),
    as_of: Type.String({ format: 'date-time', description: 'As of when' }),
  },
  { $id: 'SeatReport', additionalProperties: false },
);

export const ValidationErrorSchema = Type.Object(
  {
    loc: Type.Array(Type.Union([Type.String(), Type.Integer()])),
    msg: Type.String(),
    type: Type.String(),
    input: Type.Optional(Type.Unknown()),
    ctx: Type.Optional(Type.Object({}, { additionalProperties: true })),
  },
  { $id: 'ValidationError' },
);

export const HTTPValidationErrorSchema = Type.Object(
  { detail: Type.Optional(Type.Array(Type.Ref('ValidationError'))) },
  { $id: 'HTTPValidationError' },
);

export const ErrorDetailSchema = Type.Object({ detail: Type.String() }, { $id: 'ErrorDetail' });

export const WebhookResponseSchema = Type.Object(
  {},
  { $id: 'WebhookResponse', additionalProperties: Type.String() },
);

export const NAMED_SCHEMAS = [
  UserSchema,
  CheckoutRequestSchema,
  CheckoutResponseSchema,
  PortalRequestSchema,
  PortalResponseSchema,
  SubscriptionDetailsSchema,
  BillingSubscriptionSchema,
  OrganizationBillingSchema,
  SeatReportRequestSchema,
  SeatReportSchema,
  ValidationErrorSchema,
  HTTPValidationErrorSchema,
  ErrorDetailSchema,
  WebhookResponseSchema,
  ...CREDIT_SCHEMAS,
];

export const ref = (id: string) => ({ $ref: `${id}#` });

type Headers = Record<string, { type: 'string' | 'integer'; description: string }>;

/** A response as /openapi.json shows it: its schema by name, what it means, the headers it carries. */
export const described = (id: string, description: string, headers?: Headers) => ({
  ...ref(id),
  description,
  ...(headers ? { headers } : {}),
});

/** The 401 answers every authenticated operation can give. */
export const AUTH_RESPONSES = {
  401: described(
    'ErrorDetail',
    'No bearer token ("Not authenticated"), or one that is malformed, expired, badly signed, or for another issuer or audience ("Invalid token")',
    {
      'WWW-Authenticate': {
        type: 'string',
        description:
          '`Bearer` without a token; `Bearer error="invalid_token", error_description="…"` (why) for a refused one',
      },
    },
  ),
};
