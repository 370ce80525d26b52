// Every page and API answers only to names of this machine: a page on another site whose name was
// rebound to 127.0.0.1 (DNS rebinding) would otherwise read the dashboard (every customer's
// e-mail) and press its buttons. Rebinding needs a name, so IP addresses and `localhost` pass,
// and the names given (`allowedHosts`: a container's service name, say); anything else gets 421.
import { isIP } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

function hostname(host: string | undefined): string {
  if (host === undefined) return '';
  if (host.startsWith('[')) return /^\[([^\]]+)\](?::\d*)?$/.exec(host)?.[1]?.toLowerCase() ?? '';
  return host.replace(/:\d*$/, '').toLowerCase();
}

export function onlyNamesOfThisMachine(allowedHosts: readonly string[]) {
  const allowed = new Set(['localhost', ...allowedHosts.map((name) => name.toLowerCase())]);
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const name = hostname(request.headers.host);
    if (isIP(name) !== 0 || allowed.has(name)) return;
    return reply
      .status(421)
      .header('connection', 'close')
      .send({
        error: {
          type: 'invalid_request_error',
          message: `Misdirected request: this simulator answers to its own names, not ${JSON.stringify(name.slice(0, 100))} (see allowedHosts)`,
        },
      });
  };
}
