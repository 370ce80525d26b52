// The customer object, as POST /v1/customers and a checkout without a customer create it.
import type Stripe from 'stripe';
import { newId } from '../ids.ts';
import { nowSeconds } from '../time.ts';

export interface CustomerInput {
  email?: string;
  name?: string;
  description?: string;
  phone?: string;
  metadata?: Record<string, string>;
}

export function buildCustomer(input: CustomerInput): Stripe.Customer {
  return {
    id: newId('cus_', 14),
    object: 'customer',
    address: null,
    balance: 0,
    created: nowSeconds(),
    currency: null,
    default_source: null,
    delinquent: false,
    description: input.description ?? null,
    discount: null,
    email: input.email ?? null,
    invoice_prefix: newId('', 8).toUpperCase(),
    invoice_settings: {
      custom_fields: null,
      default_payment_method: null,
      footer: null,
      rendering_options: null,
    },
    livemode: false,
    metadata: input.metadata ?? {},
    name: input.name ?? null,
    next_invoice_sequence: 1,
    phone: input.phone ?? null,
    preferred_locales: [],
    shipping: null,
    tax_exempt: 'none',
    test_clock: null,
  };
}

/** The customer's next invoice number (PREFIX-0001, -0002, ...) and the customer moved past it. */
export function takeInvoiceNumber(customer: Stripe.Customer): {
  number: string;
  customer: Stripe.Customer;
} {
  const sequence = customer.next_invoice_sequence ?? 1;
  return {
    number: `${customer.invoice_prefix ?? 'SIM'}-${String(sequence).padStart(4, '0')}`,
    customer: { ...customer, next_invoice_sequence: sequence + 1 },
  };
}
