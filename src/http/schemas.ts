// Shared response and request schemas. Their names are the API's public ones (clients generate
// types from /openapi.json), so they do not change. They are registered once (app.addSchema) and
// referenced by $id, so Fastify's serializer only ever emits the declared fields.
import { Type } from 'typebox';

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
    trial_end: dateTimeOrNull('When its trial ends (or ended); null without a trial'),
    current_period_end: dateTimeOrNull('When its current period ends'),
    cancel_at: dateTimeOrNull(
      "When it is scheduled to end (either of the provider's ways); null when it is not",
    ),
    cancel_at_period_end: Type.Boolean({
      description: 'Whether that scheduled end is the end of the current period',
    }),
  },
  { $id: 'SubscriptionDetails', additionalProperties: false },
);

export const BillingSubscriptionSchema = Type.Object(
  {
    tier: Type.String({
      description: 'The tier, as in users/me: "free" or a tier of BILLING_PRICES',
    }),
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
    subscription: Type.Union([Type.Ref('SubscriptionDetails'), Type.Null()], {
      description: 'The subscription the tier is computed from; null when there is none',
    }),
  },
  { $id: 'BillingSubscription', additionalProperties: false },
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
  ValidationErrorSchema,
  HTTPValidationErrorSchema,
  ErrorDetailSchema,
  WebhookResponseSchema,
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
        description: '`Bearer` without a token; `Bearer error="invalid_token"` for a refused one',
      },
    },
  ),
};
