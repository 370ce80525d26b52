// Pages and endpoints meant for this machine only (the development pages, /metrics without a
// token) answer 421 to a Host that is not a name of this machine. A page on another site whose
// name was rebound to 127.0.0.1 (DNS rebinding) reaches our port with its own name as Host, and
// rebinding needs a name: so IP addresses, `localhost` and the names given (APP_URL's host) pass.
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

function hostname(host: string | undefined): string {
  if (host === undefined) return '';
  if (host.startsWith('[')) return /^\[([^\]]+)\](?::\d*)?$/.exec(host)?.[1]?.toLowerCase() ?? '';
  return host.replace(/:\d*$/, '').toLowerCase();
}

export function isLocalHost(host: string | undefined, names: readonly string[]): boolean {
  const name = hostname(host);
  return isIP(name) !== 0 || name === 'localhost' || names.includes(name);
}

export function onlyLocalHosts(names: readonly string[]) {
  const allowed = names.map((name) => name.toLowerCase());
  return async (request: FastifyRequest, reply: FastifyReply) => {
    if (isLocalHost(request.headers.host, allowed)) return;
    request.log.warn(
      { host: request.headers.host?.slice(0, 100) },
      'refused: Host is not a name of this machine (DNS rebinding?)',
    );
    return reply
      .status(421)
      .header('connection', 'close')
      .send({ detail: 'Misdirected request: this address serves this machine only' });
  };
}
