// One log line per request, written when it is answered, with what an access log carries: the
// request id, method, url, status and duration. Fastify's separate "incoming request" line is at
// debug: at info it would double the log volume, and its cost would be paid on every request.
import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

export class AccessLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    const entry = {
      method: request.method,
      url: request.url,
      res: reply,
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...entry, err: error }, 'request errored');
    else reply.log.info(entry, 'request completed');
  }
}
