import type { FastifyInstance } from 'fastify';
import type { AppResources } from '../../resources.ts';
import { principalOf } from '../../principal-of.ts';

export function modelRoutes(app: FastifyInstance, { catalog }: AppResources): void {
  app.get('/models', async (request) => catalog.list(principalOf(request).workspace.id));
}
