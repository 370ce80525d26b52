// Renders request validation failures the way FastAPI/Pydantic v2 does, so clients written for
// that shape work unchanged: {"detail":[{"type","loc","msg","input","ctx"?}]}.
import type { FastifySchemaValidationError } from 'fastify';
import { pathOf, valueAt, type Path } from './json-pointer.ts';

export interface ValidationErrorItem {
  type: string;
  loc: (string | number)[];
  msg: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

// An input is echoed only when it nests no deeper than this: the 10,000 nested arrays a 64 KiB body
// can hold overflow the serializer's stack and leave the 422 as `{}`. FastAPI's `input` is optional.
const MAX_ECHOED_DEPTH = 32;

function nestsDeeper(value: unknown, levels: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (levels === 0) return true;
  return Object.values(value).some((child) => nestsDeeper(child, levels - 1));
}

const echoed = (input: unknown): { input?: unknown } =>
  nestsDeeper(input, MAX_ECHOED_DEPTH) ? {} : { input };

const TYPE_ERRORS: Record<string, [type: string, msg: string]> = {
  string: ['string_type', 'Input should be a valid string'],
  integer: ['int_type', 'Input should be a valid integer'],
  number: ['float_type', 'Input should be a valid number'],
  boolean: ['bool_type', 'Input should be a valid boolean'],
  array: ['list_type', 'Input should be a valid list'],
  object: ['dict_type', 'Input should be a valid dictionary'],
};

// Fastify's names for the request parts, as FastAPI names them in `loc`.
const PART_NAMES: Record<string, string> = {
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** An item, at `at` within the request part, before its `loc` is made. */
type ItemAt = Omit<ValidationErrorItem, 'loc'> & { at: Path };

/** A value of the wrong type; a body that is not an object is missing or not a model, as in Pydantic. */
function typeMismatch(path: Path, input: unknown, expected: string): ItemAt {
  if (path.length === 0 && expected === 'object') {
    return input === undefined || input === null
      ? { at: path, type: 'missing', msg: 'Field required', input: null }
      : {
          at: path,
          type: 'model_attributes_type',
          msg: 'Input should be a valid dictionary or object to extract attributes from',
          input,
        };
  }
  const [type, msg] = TYPE_ERRORS[expected] ?? [
    'value_error',
    `Input should be of type ${expected}`,
  ];
  return { at: path, type, msg, input };
}

/** The FastAPI item for one of ajv's errors, at `path` within the request part. */
function pydanticItem(error: FastifySchemaValidationError, root: unknown, path: Path): ItemAt {
  const input = valueAt(root, path);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        at: [...path, String(params.missingProperty)],
        type: 'missing',
        msg: 'Field required',
        input: input ?? null,
      };
    case 'type':
      return typeMismatch(path, input, String(params.type));
    case 'maxLength':
      return {
        at: path,
        type: 'string_too_long',
        msg: `String should have at most ${String(params.limit)} characters`,
        input,
        ctx: { max_length: params.limit },
      };
    case 'minLength':
      return {
        at: path,
        type: 'string_too_short',
        msg: `String should have at least ${String(params.limit)} characters`,
        input,
        ctx: { min_length: params.limit },
      };
    default:
      return { at: path, type: 'value_error', msg: error.message ?? 'Invalid value', input };
  }
}

/** Maps Fastify's (ajv's) errors for one part of the request ("body", "query", ...) to FastAPI items. */
export function toValidationErrors(
  errors: FastifySchemaValidationError[],
  part: string,
  root: unknown,
): ValidationErrorItem[] {
  return errors.map((error) => {
    const { at, ...item } = pydanticItem(error, root, pathOf(error.instancePath, root));
    return {
      type: item.type,
      loc: [PART_NAMES[part] ?? part, ...at],
      msg: item.msg,
      ...echoed(item.input),
      ...(item.ctx ? { ctx: item.ctx } : {}),
    };
  });
}

/** FastAPI's answer to a body that is not JSON at all. */
export function jsonDecodeError(position: number, reason: string): ValidationErrorItem {
  return {
    type: 'json_invalid',
    loc: ['body', position],
    msg: 'JSON decode error',
    input: {},
    ctx: { error: reason },
  };
}

/** One item for a field the domain rejected (a redirect URL, say). */
export function fieldError(
  field: string,
  type: string,
  msg: string,
  input: unknown,
): ValidationErrorItem {
  return { type, loc: ['body', ...field.split('.')], msg, ...echoed(input) };
}
