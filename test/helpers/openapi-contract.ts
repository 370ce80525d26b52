// The OpenAPI document cannot drift from the code: buildTestApp wraps app.inject so that every
// response a test receives for an operation of /openapi.json is checked against the document.
// Its status must be listed for that operation, and a JSON body must validate against the listed
// schema (ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses, with formats). A mismatch throws, naming
// the operation, the status and ajv's errors, so the test that made the request fails.
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

interface MediaType {
  schema?: object;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  operationId?: string;
  responses?: Record<string, ResponseObject>;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
  components?: object;
}

interface Route {
  method: string;
  path: string;
  pattern: RegExp;
  operation: Operation;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const DOCUMENT_ID = 'https://contract.test/openapi.json';
const pointer = (...parts: string[]) =>
  parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiDocument) {
    addFormats.default(this.ajv);
    this.ajv.addSchema(document as object, DOCUMENT_ID);
    this.routes = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([method]) => METHODS.includes(method))
        .map(([method, operation]) => ({
          method: method.toUpperCase(),
          path,
          // A templated segment such as {id} matches one path segment.
          pattern: new RegExp(
            `^${path
              .split(/\{[^}]+\}/)
              .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
              .join('[^/]+')}$`,
          ),
          operation,
        })),
    );
  }

  /** Throws when the response is not one the document describes for this request's operation. */
  check(method: string, url: string, response: LightMyRequestResponse): void {
    const pathname = new URL(url, 'http://contract.test').pathname;
    const route = this.routes.find(
      (r) => r.method === method.toUpperCase() && r.pattern.test(pathname),
    );
    if (route === undefined) return;
    const name = `${route.operation.operationId ?? '(no operationId)'} (${route.method} ${route.path})`;
    const responses = route.operation.responses ?? {};
    const status = String(response.statusCode);
    const key = [status, `${status[0]}XX`, 'default'].find((candidate) => candidate in responses);
    if (key === undefined) {
      throw new Error(
        `OpenAPI contract: ${name} answered ${status}, which the document does not list (it lists ${Object.keys(responses).join(', ')}); body: ${response.body.slice(0, 300)}`,
      );
    }
    const content = responses[key]!.content;
    if (content === undefined) return;
    const mediaType = String(response.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    const documented = content[mediaType];
    if (documented === undefined) {
      throw new Error(
        `OpenAPI contract: ${name} answered ${status} with content-type "${mediaType}", but the document lists ${Object.keys(content).join(', ')}`,
      );
    }
    if (documented.schema === undefined || !/[/+]json$/.test(mediaType)) return;
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      throw new Error(
        `OpenAPI contract: ${name} answered ${status} with a body that is not JSON: ${response.body.slice(0, 300)}`,
      );
    }
    const validate = this.validator(route, key, mediaType);
    if (!validate(body)) {
      const errors = (validate.errors ?? [])
        .map(
          (e) =>
            `${e.instancePath || '/'} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
        )
        .join('; ');
      throw new Error(
        `OpenAPI contract: ${name} answered ${status} with a body its schema rejects: ${errors}; body: ${response.body.slice(0, 300)}`,
      );
    }
  }

  private validator(route: Route, status: string, mediaType: string): ValidateFunction {
    const ref = `${DOCUMENT_ID}#/${pointer('paths', route.path, route.method.toLowerCase(), 'responses', status, 'content', mediaType, 'schema')}`;
    let validate = this.validators.get(ref);
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

function requestOf(options: string | InjectOptions): { method: string; url: string } {
  if (typeof options === 'string') return { method: 'GET', url: options };
  const target = options.url ?? options.path ?? '/';
  return {
    method: options.method ?? 'GET',
    url: typeof target === 'string' ? target : target.pathname,
  };
}

/** Makes app.inject check every response against the app's own /openapi.json. */
export async function checkInjectedResponses(app: FastifyInstance): Promise<OpenApiContract> {
  await app.ready();
  const contract = new OpenApiContract(app.swagger() as unknown as OpenApiDocument);
  const inject = app.inject.bind(app) as (
    options?: string | InjectOptions,
    callback?: (error: Error | null, response?: LightMyRequestResponse) => void,
  ) => unknown;
  const checked = (
    options?: string | InjectOptions,
    callback?: (error: Error | null, response?: LightMyRequestResponse) => void,
  ): unknown => {
    // The chained form (app.inject().get(...)) is passed through unchecked; the tests do not use it.
    if (options === undefined) return inject();
    const { method, url } = requestOf(options);
    if (callback !== undefined) {
      return inject(options, (error, response) => {
        if (error !== null || response === undefined) return callback(error, response);
        try {
          contract.check(method, url, response);
        } catch (mismatch) {
          return callback(mismatch as Error, response);
        }
        callback(null, response);
      });
    }
    return (inject(options) as Promise<LightMyRequestResponse>).then((response) => {
      contract.check(method, url, response);
      return response;
    });
  };
  app.inject = checked as FastifyInstance['inject'];
  return contract;
}
