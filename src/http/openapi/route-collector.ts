import type { FastifyInstance } from 'fastify';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';
import type { RouteDescription } from './describe-route.ts';
import type { RouteBucket } from './route-bucket.ts';

/** A registered route as the document needs it: what the scope check reads and how it is described. */
export interface CollectedRoute {
  method: string;
  /** Fastify's URL, prefix included (`/api/v1/workspaces/:workspaceSlug/models`). */
  url: string;
  /** `config.scopes`: what the scope check enforces for access tokens. */
  scopes: readonly OAuthScope[] | undefined;
  /** `config.bucket`: where the rate-limit hook counts the route's requests. */
  bucket: RouteBucket | undefined;
  description: RouteDescription | undefined;
}

/**
 * Records every route registered on `app` from now on, in child plugins too (call it before any
 * route is registered). Costs nothing per request: it runs as routes are registered. The HEAD
 * routes Fastify adds beside GET routes are left out, and a trailing slash is not a route of its own.
 */
export function collectRoutes(app: FastifyInstance): readonly CollectedRoute[] {
  const routes: CollectedRoute[] = [];
  const getUrls = new Set<string>();
  app.addHook('onRoute', (options) => {
    const methods = (Array.isArray(options.method) ? options.method : [options.method]).map((method) =>
      String(method).toUpperCase(),
    );
    // A plugin's `/` route under a prefix also answers with a trailing slash; its HEAD twin says so.
    const url = options.url.length > 1 ? options.url.replace(/\/$/, '') : options.url;
    for (const method of methods) {
      if (method === 'HEAD' && getUrls.has(url)) continue;
      if (method === 'GET') getUrls.add(url);
      routes.push({
        method,
        url,
        scopes: options.config?.scopes,
        bucket: options.config?.bucket,
        description: options.config?.openapi,
      });
    }
  });
  return routes;
}
