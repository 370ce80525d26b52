// State written straight into the sim_* tables, for a benchmark or a test that needs thousands of
// customers, subscriptions, invoices or undelivered events faster than the API makes them: the
// simulator's own object builders and document store, so what is written is what the simulator
// would have written. Run them inside `db.transaction` on the simulator's database.
export { AUTOMATIC, buildEvent, previousAttributes, type SimEvent } from './events.ts';
export { buildCustomer, takeInvoiceNumber } from './objects/customers.ts';
export { buildInvoice } from './objects/invoices.ts';
export { buildSubscription } from './objects/subscriptions.ts';
export { Documents } from './store.ts';
export { withCancelAtPeriodEnd } from './subscription-changes.ts';
