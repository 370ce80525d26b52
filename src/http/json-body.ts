// The JSON body parser: an empty body reads as "no body" (FastAPI's `missing`), and malformed JSON
// becomes FastAPI's `json_invalid` item with the character position, instead of a bare 400.
import type { FastifyInstance } from 'fastify';

export class JsonBodyError extends Error {
  constructor(
    readonly position: number,
    readonly reason: string,
  ) {
    super(`JSON decode error at ${position}: ${reason}`);
    this.name = 'JsonBodyError';
  }
}

const END_OF_INPUT = 'Unexpected end of JSON input';
const statedPosition = (message: string): number | undefined => {
  const position = /at position (\d+)/.exec(message)?.[1];
  return position === undefined ? undefined : Number(position);
};

/** Whether `text` fails to parse for a reason other than ending too soon. */
function failsBeforeEnd(text: string): boolean {
  try {
    JSON.parse(text);
    return false;
  } catch (error) {
    const { message } = error as SyntaxError;
    return message !== END_OF_INPUT && (statedPosition(message) ?? 0) < text.length;
  }
}

/**
 * The position of the character JSON.parse stumbled on. V8 states it in some messages only
 * ("Unexpected token 'x', ..." has none); otherwise the shortest failing prefix ends with it, found
 * by bisection (at most 17 parses of a body under the 64 KiB limit). A body that merely ends too
 * soon fails at its length, as in Python.
 */
function errorPosition(text: string, message: string): number {
  const stated = statedPosition(message);
  if (stated !== undefined) return stated;
  let low = 1;
  let high = text.length + 1; // becomes the length of the shortest failing prefix; text.length + 1: none
  while (low < high) {
    const middle = (low + high) >> 1;
    if (failsBeforeEnd(text.slice(0, middle))) high = middle;
    else low = middle + 1;
  }
  return high - 1;
}

function decodeError(text: string, error: SyntaxError): JsonBodyError {
  // V8 quotes the input in some messages; the client already has it, the log needs none of it.
  const reason = error.message
    .replace(/, ".*" is not valid JSON$/s, '')
    .replace(/ in JSON at position \d+.*$/s, '');
  return new JsonBodyError(errorPosition(text, error.message), reason);
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(decodeError(text, error as SyntaxError), undefined);
    }
  });
}
