import type { FastifyInstance } from 'fastify';
import type { AppResources } from '../../resources.ts';
import { principalOf } from '../../principal-of.ts';
import { requiresScopes } from '../../plugins/required-scopes.ts';

export function modelRoutes(app: FastifyInstance, { catalog }: AppResources): void {
  app.get('/models', requiresScopes('models:read'), async (request) =>
    catalog.list(principalOf(request).workspace.id),
  );
}
