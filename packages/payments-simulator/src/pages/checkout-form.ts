// What the hosted checkout page's Pay form says besides the click: the e-mail typed (asked for when
// the session names no one) and, in payment mode, which button was pressed: card or bank debit.
import type { FormObject } from '../form.ts';
import { PAYMENT_METHOD_TYPES, type PaymentMethodType } from '../objects/payment-intents.ts';

/** The payment method of the button pressed: a card unless it was the bank debit's. */
export function chosenMethod(form: FormObject | undefined): PaymentMethodType {
  const chosen = form?.payment_method_type;
  return PAYMENT_METHOD_TYPES.find((type) => type === chosen) ?? 'card';
}

/** The e-mail typed on the page (asked for when the session has none), if it looks like one. */
export function typedEmail(form: FormObject | undefined): string | undefined {
  const typed = form?.email;
  return typeof typed === 'string' && /^[^\s@]+@[^\s@]+$/.test(typed.trim())
    ? typed.trim()
    : undefined;
}
