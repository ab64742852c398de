import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { credentialFrom } from '../../auth/authenticate.ts';

const digest = (value: string) => createHash('sha256').update(value).digest();

/** onRequest hook for `/admin/v1`: `Authorization: Bearer <AGENT_RUNS_ADMIN_TOKEN>`, compared in constant time. */
export function adminAuth(options: { token: string }): onRequestAsyncHookHandler {
  const expected = digest(options.token);
  return async function adminAuthHook(request: FastifyRequest, reply: FastifyReply) {
    const presented = credentialFrom(request.headers);
    if (presented === undefined) {
      return reply.status(401).send({
        error: 'unauthorized',
        message: 'missing admin token: send Authorization: Bearer <AGENT_RUNS_ADMIN_TOKEN>',
      });
    }
    if (!timingSafeEqual(digest(presented), expected)) {
      return reply.status(401).send({ error: 'unauthorized', message: 'invalid admin token' });
    }
  };
}
