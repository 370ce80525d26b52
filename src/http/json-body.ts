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

function decodeError(error: SyntaxError): JsonBodyError {
  const position = /at position (\d+)/.exec(error.message)?.[1];
  // V8 quotes the input in some messages; the client already has it, the log needs none of it.
  const reason = error.message.replace(/, ".*" is not valid JSON$/s, '').replace(/ in JSON at position \d+.*$/s, '');
  return new JsonBodyError(position === undefined ? 0 : Number(position), reason);
}

export function registerJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      done(decodeError(error as SyntaxError), undefined);
    }
  });
}
