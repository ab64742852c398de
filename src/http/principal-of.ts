import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';

/** The principal the workspace-auth hook established; routes under it can rely on one being there. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new Error('workspace route reached without a principal');
  return request.principal;
}
