// The parameters of POST /v1/billing_portal/configurations (create) and .../:id (update), read into
// the change they make (objects/portal-configurations.ts), refused as Stripe refuses them: unknown
// names, values outside the pinned version's enums, and at create a missing `features` or a sent
// feature without `enabled`. An empty value clears what Stripe lets clear (`Emptyable`). What needs
// the catalogue, or the whole configuration once merged, is checked by portal-configurations.ts.
import { invalidParam } from '../errors.ts';
import type { FormObject } from '../form.ts';
import type { ConfigurationChanges } from '../objects/portal-configurations.ts';
import { allowOnly, flag, metadata } from '../params.ts';
import { emptyable, enabled, nested, url, values, type Place } from './nested-params.ts';
import {
  subscriptionCancel,
  subscriptionPause,
  subscriptionUpdate,
} from './portal-feature-params.ts';

export interface ConfigurationRequest {
  changes: ConfigurationChanges;
  /** The metadata given (to set, or to merge into the existing); undefined when not given. */
  metadata: Record<string, string> | undefined;
}

function businessProfile(value: FormObject, place: Place) {
  allowOnly(value, ['headline', 'privacy_policy_url', 'terms_of_service_url'], place.param);
  return {
    headline: emptyable(value, 'headline', place, 60),
    privacy_policy_url: url(value, 'privacy_policy_url', place),
    terms_of_service_url: url(value, 'terms_of_service_url', place),
  };
}

function features(value: FormObject, place: Place): ConfigurationChanges['features'] {
  allowOnly(
    value,
    [
      'customer_update',
      'invoice_history',
      'payment_method_update',
      'subscription_cancel',
      'subscription_pause',
      'subscription_update',
    ],
    place.param,
  );
  return {
    customer_update: nested(value, 'customer_update', place, (update, here) => {
      allowOnly(update, ['allowed_updates', 'enabled'], here.param);
      const allowed = ['address', 'email', 'name', 'phone', 'shipping', 'tax_id'] as const;
      return {
        enabled: enabled(update, here),
        allowed_updates: values(update, 'allowed_updates', allowed, here),
      };
    }),
    invoice_history: nested(value, 'invoice_history', place, (history, here) => {
      allowOnly(history, ['enabled'], here.param);
      return { enabled: enabled(history, here, true) };
    }),
    payment_method_update: nested(value, 'payment_method_update', place, (update, here) => {
      allowOnly(update, ['enabled', 'payment_method_configuration'], here.param);
      return {
        enabled: enabled(update, here, true),
        payment_method_configuration: emptyable(update, 'payment_method_configuration', here),
      };
    }),
    subscription_cancel: nested(value, 'subscription_cancel', place, subscriptionCancel),
    subscription_pause: nested(value, 'subscription_pause', place, subscriptionPause),
    subscription_update: nested(value, 'subscription_update', place, subscriptionUpdate),
  };
}

const CREATE_PARAMS = [
  'business_profile',
  'default_return_url',
  'expand',
  'features',
  'login_page',
  'metadata',
  'name',
];

/** The change a create (`creating`) or an update asks for. */
export function readConfiguration(params: FormObject, creating: boolean): ConfigurationRequest {
  allowOnly(params, creating ? CREATE_PARAMS : [...CREATE_PARAMS, 'active']);
  const place: Place = { param: '', creating };
  const login = nested(params, 'login_page', place, (page, here) => {
    allowOnly(page, ['enabled'], here.param);
    if (enabled(page, here, true))
      throw invalidParam(
        'The payments simulator does not serve a portal login page; login_page[enabled] can only be false.',
        'login_page[enabled]',
      );
    return { enabled: false, url: null };
  });
  return {
    changes: {
      active: creating ? undefined : flag(params, 'active'),
      business_profile: nested(params, 'business_profile', place, businessProfile),
      default_return_url: url(params, 'default_return_url', place),
      features: nested(params, 'features', place, features, creating),
      login_page: login,
      name: emptyable(params, 'name', place, 256),
    },
    metadata: metadata(params),
  };
}
