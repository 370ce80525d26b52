// Typed readers over decoded form parameters, failing the way Stripe does: a 400 that names the
// parameter ("Missing required param: mode.", "Invalid boolean: yes", "Received unknown parameter: x").
import { invalidParam } from './errors.ts';
import type { FormObject, FormValue } from './form.ts';

const show = (value: FormValue): string =>
  typeof value === 'string' ? value : JSON.stringify(value);

/** Rejects names Stripe does not know for this call; `prefix` names the enclosing hash. */
export function allowOnly(params: FormObject, allowed: readonly string[], prefix?: string): void {
  for (const name of Object.keys(params)) {
    if (!allowed.includes(name)) {
      const full = prefix === undefined ? name : `${prefix}[${name}]`;
      throw invalidParam(`Received unknown parameter: ${full}`, full, 'parameter_unknown');
    }
  }
}

export function text(
  params: FormObject,
  name: string,
  options: { required?: boolean; max?: number; param?: string } = {},
): string | undefined {
  const param = options.param ?? name;
  const value = params[name];
  if (value === undefined || value === '') {
    if (options.required) throw invalidParam(`Missing required param: ${param}.`, param);
    return undefined;
  }
  if (typeof value !== 'string') throw invalidParam(`Invalid string: ${show(value)}`, param);
  if (options.max !== undefined && value.length > options.max) {
    throw invalidParam(
      `Invalid string: must be at most ${options.max} characters long, got ${value.length}.`,
      param,
    );
  }
  return value;
}

export function oneOf<T extends string>(
  params: FormObject,
  name: string,
  values: readonly T[],
  param = name,
): T | undefined {
  const value = text(params, name, { param });
  if (value !== undefined && !(values as readonly string[]).includes(value)) {
    throw invalidParam(`Invalid ${name}: must be one of ${values.join(', ')}`, param);
  }
  return value as T | undefined;
}

export function flag(params: FormObject, name: string, param = name): boolean | undefined {
  const value = text(params, name, { param });
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw invalidParam(`Invalid boolean: ${value}`, param);
  return value === 'true';
}

export function whole(
  params: FormObject,
  name: string,
  range: { min: number; max: number },
  param = name,
): number | undefined {
  const value = text(params, name, { param });
  if (value === undefined) return undefined;
  if (!/^-?\d+$/.test(value)) throw invalidParam(`Invalid integer: ${value}`, param);
  const number = Number(value);
  if (number < range.min || number > range.max) {
    throw invalidParam(`Invalid ${param}: must be between ${range.min} and ${range.max}`, param);
  }
  return number;
}

export function hash(params: FormObject, name: string, param = name): FormObject | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'string') throw invalidParam('Invalid hash', param);
  return Array.isArray(value) ? Object.assign(Object.create(null) as FormObject, value) : value;
}

export function array(params: FormObject, name: string, param = name): FormValue[] | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (!Array.isArray(value)) throw invalidParam('Invalid array', param);
  return value;
}

/** Stripe metadata: at most 50 string values, keys up to 40 characters, values up to 500. */
export function metadata(
  params: FormObject,
  name = 'metadata',
  param = name,
): Record<string, string> | undefined {
  const value = hash(params, name, param);
  if (value === undefined) return params[name] === '' ? {} : undefined;
  const out: Record<string, string> = {};
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== 'string')
      throw invalidParam(
        `Invalid ${param}[${key}]: metadata values must be strings`,
        `${param}[${key}]`,
      );
    if (key.length > 40)
      throw invalidParam(
        `Metadata keys can be at most 40 characters long; ${key} is longer.`,
        `${param}[${key}]`,
      );
    if (entry.length > 500)
      throw invalidParam(`Metadata values can be at most 500 characters long.`, `${param}[${key}]`);
    out[key] = entry;
  }
  if (Object.keys(out).length > 50)
    throw invalidParam('You can specify up to 50 metadata keys.', param);
  return out;
}

/** `expand[]=a&expand[]=b.c`: the dotted paths to expand, at most four levels deep. */
export function expansions(params: FormObject): string[] {
  const list = array(params, 'expand') ?? [];
  return list.map((entry, index) => {
    if (typeof entry !== 'string') throw invalidParam('Invalid array', `expand[${index}]`);
    if (entry.split('.').length > 4)
      throw invalidParam(
        `You cannot expand more than 4 levels of a property. Property: ${entry}`,
        `expand[${index}]`,
      );
    return entry;
  });
}

/** Stripe's metadata update: given keys are set, keys given an empty value are removed. */
export function mergeMetadata(
  current: Record<string, string>,
  update: Record<string, string> | undefined,
): Record<string, string> {
  if (update === undefined) return current;
  if (Object.keys(update).length === 0) return {};
  const merged = { ...current, ...update };
  for (const [key, value] of Object.entries(update)) if (value === '') delete merged[key];
  return merged;
}
