// Stripe objects as JSON documents in sim_objects (text, so their key order stays Stripe's), with
// the columns lists filter on, and Stripe-style pagination over sim_objects and sim_events.
import type { SqlClient, SqlParam } from './sql-client.ts';
import { nowSeconds } from './clock.ts';
import { invalidParam, noSuch } from './errors.ts';

export type SimType =
  | 'customer'
  | 'product'
  | 'price'
  | 'checkout.session'
  | 'subscription'
  | 'invoice'
  | 'invoiceitem'
  | 'billing_portal.session'
  | 'billing_portal.configuration'
  | 'subscription_schedule'
  | 'payment_method'
  | 'coupon'
  | 'promotion_code'
  | 'discount'
  | 'payment_intent'
  | 'charge'
  | 'refund'
  | 'simulator_clock';
export type Extra = Record<string, unknown>;
export interface Stored<T> {
  data: T;
  extra: Extra;
}

type Doc = { id: string; created?: number; start?: number } & Record<string, unknown>;
const field = (doc: Doc, name: string): string | null =>
  typeof doc[name] === 'string' ? (doc[name] as string) : null;

/** The subscription an invoice or invoice item belongs to (its `parent`). */
const subscriptionOf = (doc: Doc): string | null =>
  (doc.parent as { subscription_details?: { subscription?: string } } | null)?.subscription_details
    ?.subscription ?? null;

// Columns the lists filter on: the customer, the status, and one reference per type.
function indexOf(type: SimType, doc: Doc): [string | null, string | null, string | null] {
  switch (type) {
    case 'customer':
      return [doc.id, null, field(doc, 'email')];
    case 'checkout.session':
      // What it made: a subscription, or in payment mode a payment intent (one or the other).
      return [
        field(doc, 'customer'),
        field(doc, 'status'),
        field(doc, 'subscription') ?? field(doc, 'payment_intent'),
      ];
    case 'subscription':
    case 'billing_portal.session':
    case 'payment_method':
      return [field(doc, 'customer'), field(doc, 'status'), null];
    case 'invoice':
      return [field(doc, 'customer'), field(doc, 'status'), subscriptionOf(doc)];
    case 'invoiceitem':
      // Pending until an invoice bills it.
      return [
        field(doc, 'customer'),
        doc.invoice === null ? 'pending' : 'invoiced',
        subscriptionOf(doc),
      ];
    case 'price':
      return [null, doc.active === false ? 'inactive' : 'active', field(doc, 'product')];
    case 'product':
      return [null, doc.active === false ? 'inactive' : 'active', null];
    case 'billing_portal.configuration':
      return [
        null,
        doc.active === false ? 'inactive' : 'active',
        doc.is_default ? 'default' : 'other',
      ];
    case 'subscription_schedule':
      // The subscription it manages, or once released the one it managed.
      return [
        field(doc, 'customer'),
        field(doc, 'status'),
        field(doc, 'subscription') ?? field(doc, 'released_subscription'),
      ];
    case 'promotion_code':
      // Codes are matched without regard to case: the reference is the code in capitals.
      return [
        field(doc, 'customer'),
        doc.active === false ? 'inactive' : 'active',
        field(doc, 'code')?.toUpperCase() ?? null,
      ];
    case 'coupon':
    case 'discount':
      return [field(doc, 'customer'), null, field(doc, 'subscription')];
    case 'payment_intent':
      return [field(doc, 'customer'), field(doc, 'status'), null];
    case 'charge':
      return [field(doc, 'customer'), field(doc, 'status'), field(doc, 'payment_intent')];
    case 'refund':
      return [field(doc, 'customer'), field(doc, 'status'), field(doc, 'charge')];
    case 'simulator_clock':
      return [null, null, null];
  }
}

export interface Filter {
  customer?: string;
  status?: readonly string[];
  ref?: string;
}

export interface Page {
  limit: number;
  startingAfter?: string;
  endingBefore?: string;
}

export interface PageRows<Row> {
  rows: Row[];
  hasMore: boolean;
}

/** What pageOf reads. */
export interface PagedQuery {
  table: 'sim_objects' | 'sim_events';
  /** The SELECT list. */
  columns: string;
  /** Conditions ANDed together, with $n placeholders for `params`. */
  where: string[];
  params: SqlParam[];
}

/**
 * One page of `table`, newest first, as Stripe lists: `starting_after` continues after that
 * object, `ending_before` gives the page just before it. An unknown cursor is a 400.
 */
export async function pageOf<Row>(
  db: SqlClient,
  { table, columns, where, params }: PagedQuery,
  page: Page,
): Promise<PageRows<Row>> {
  const conditions = [...where];
  const values = [...params];
  const cursor = page.startingAfter ?? page.endingBefore;
  if (cursor !== undefined) {
    const found = await db.query(`SELECT 1 FROM ${table} WHERE id = $1`, [cursor]);
    const param = page.startingAfter !== undefined ? 'starting_after' : 'ending_before';
    if (found.length === 0)
      throw invalidParam(`No such object: '${cursor}'`, param, 'resource_missing');
    values.push(cursor);
    conditions.push(
      `seq ${page.startingAfter !== undefined ? '<' : '>'} (SELECT seq FROM ${table} WHERE id = $${values.length})`,
    );
  }
  const order =
    page.startingAfter === undefined && page.endingBefore !== undefined ? 'ASC' : 'DESC';
  const sql = `SELECT ${columns} FROM ${table} ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY seq ${order} LIMIT ${page.limit + 1}`;
  const rows = await db.query<Row>(sql, values);
  const hasMore = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  return { rows: order === 'ASC' ? kept.reverse() : kept, hasMore };
}

/** The documents, bound to the database or to one transaction. */
export class Documents {
  constructor(private readonly db: SqlClient) {}

  async get<T>(
    type: SimType,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<Stored<T> | null> {
    const [row] = await this.db.query<{ data: string; extra: string }>(
      `SELECT data, extra FROM sim_objects WHERE id = $1 AND type = $2${options.lock ? ' FOR UPDATE' : ''}`,
      [id, type],
    );
    return row ? { data: JSON.parse(row.data) as T, extra: JSON.parse(row.extra) as Extra } : null;
  }

  /** Like get, but an unknown id is Stripe's "No such <kind>" (404, or 400 naming `param`). */
  async require<T>(
    type: SimType,
    id: string,
    options: { lock?: boolean; param?: string } = {},
  ): Promise<Stored<T>> {
    const found = await this.get<T>(type, id, options);
    if (found === null) throw noSuch(type, id, options.param);
    return found;
  }

  /** Inserts or replaces a document; `extra` (simulator-only data) is kept when not given. */
  async save(type: SimType, doc: object, extra?: Extra): Promise<void> {
    const data = doc as Doc;
    const [customer, status, ref] = indexOf(type, data);
    await this.db.query(
      `INSERT INTO sim_objects (id, type, customer, status, ref, created, data, extra)
       VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8, '{}'))
       ON CONFLICT (id) DO UPDATE SET customer = $3, status = $4, ref = $5, data = $7, extra = COALESCE($8, sim_objects.extra)`,
      [
        data.id,
        type,
        customer,
        status,
        ref,
        // A discount has no `created`, only when it starts.
        data.created ?? data.start ?? nowSeconds(),
        JSON.stringify(data),
        extra === undefined ? null : JSON.stringify(extra),
      ],
    );
  }

  async list<T>(
    type: SimType,
    filter: Filter,
    page: Page,
  ): Promise<{ data: Stored<T>[]; hasMore: boolean }> {
    const where = ['type = $1'];
    const params: SqlParam[] = [type];
    if (filter.customer !== undefined) where.push(`customer = $${params.push(filter.customer)}`);
    if (filter.ref !== undefined) where.push(`ref = $${params.push(filter.ref)}`);
    if (filter.status !== undefined)
      where.push(`status = ANY($${params.push([...filter.status])})`);
    const { rows, hasMore } = await pageOf<{ data: string; extra: string }>(
      this.db,
      { table: 'sim_objects', columns: 'data, extra', where, params },
      page,
    );
    return {
      data: rows.map((row) => ({
        data: JSON.parse(row.data) as T,
        extra: JSON.parse(row.extra) as Extra,
      })),
      hasMore,
    };
  }
}
