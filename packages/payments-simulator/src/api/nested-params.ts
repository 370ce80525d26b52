// Readers of nested form parameters (`features[subscription_update][products][0][prices][]`): each
// knows the full name of what it reads, for Stripe's 400 that names it, and whether the request
// creates the object (where Stripe requires some of them).
import { invalidParam } from '../errors.ts';
import type { FormObject, FormValue } from '../form.ts';
import { array, flag, hash, oneOf, text } from '../params.ts';

/** Reads one hash parameter: its name in full for errors, and whether this is the create. */
export interface Place {
  param: string;
  creating: boolean;
}

/** The place of `name` inside `place` (at the top when `place.param` is ''). */
export const at = (place: Place, name: string): Place => ({
  ...place,
  param: place.param === '' ? name : `${place.param}[${name}]`,
});

/** Stripe's 400 for a parameter left out: "Missing required param: features[invoice_history]." */
export const missing = (place: Place, name?: string) => {
  const param = name === undefined ? place.param : at(place, name).param;
  return invalidParam(`Missing required param: ${param}.`, param);
};

/** `name` if one of `allowed`; with `required`, a 400 when absent. */
export function choice<T extends string>(
  params: FormObject,
  name: string,
  allowed: readonly T[],
  place: Place,
  required = false,
): T | undefined {
  const value = oneOf(params, name, allowed, at(place, name).param);
  if (value === undefined && required) throw missing(place, name);
  return value;
}

/** `name` of `params` with its reader, when given; `required` makes it a 400 when absent. */
export function nested<T>(
  params: FormObject,
  name: string,
  place: Place,
  read: (value: FormObject, place: Place) => T,
  required = false,
): T | undefined {
  const here = at(place, name);
  const value = hash(params, name, here.param);
  if (value === undefined && required) throw missing(here);
  return value === undefined ? undefined : read(value, here);
}

export const enabled = (
  value: FormObject,
  place: Place,
  required = place.creating,
): boolean | undefined => {
  if (required && value.enabled === undefined) throw missing(place, 'enabled');
  return flag(value, 'enabled', at(place, 'enabled').param);
};

/** A list of enum values; '' is the empty list where Stripe allows it. */
export function values<T extends string>(
  params: FormObject,
  name: string,
  allowed: readonly T[],
  place: Place,
): T[] | undefined {
  if (params[name] === '') return [];
  const param = at(place, name).param;
  return array(params, name, param)?.map((value: FormValue, index) =>
    oneOf({ value }, 'value', allowed, `${param}[${index}]`)!,
  );
}

/** Each hash of the list `name`, read; '' is the empty list where Stripe allows it. */
export function hashes<T>(
  params: FormObject,
  name: string,
  place: Place,
  read: (value: FormObject, place: Place) => T,
): T[] | undefined {
  if (params[name] === '') return [];
  const param = at(place, name).param;
  return array(params, name, param)?.map((entry, index) => {
    const here = { ...place, param: `${param}[${index}]` };
    const value = hash({ entry }, 'entry', here.param);
    if (value === undefined)
      throw invalidParam(`Missing required param: ${here.param}.`, here.param);
    return read(value, here);
  });
}

/** '' clears to null; else a string (of at most `max` characters). */
export function emptyable(params: FormObject, name: string, place: Place, max?: number) {
  if (params[name] === '') return null;
  return text(params, name, { param: at(place, name).param, max });
}

export function url(params: FormObject, name: string, place: Place): string | null | undefined {
  const value = emptyable(params, name, place);
  if (typeof value === 'string' && !/^https?:\/\/[^\s]+$/.test(value))
    throw invalidParam('Not a valid URL', at(place, name).param, 'url_invalid');
  return value;
}
