import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { describeRoute } from '../openapi/describe-route.ts';
import { pageSecurityHeaders } from '../pages/security-headers.ts';
import { collectRoutes, type CollectedRoute } from '../openapi/route-collector.ts';
import type { AppResources } from '../resources.ts';

interface Published {
  body: string;
  etag: string;
}

/** Public and the same for every client until the server restarts: caches may keep it a while. */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * `GET /openapi.json` and `GET /docs`: the OpenAPI 3.1 document of every route the app registers and
 * its readable page. Both are built at the first request for either (every route is registered by
 * then), with their builder loaded only then: a process that never serves them (a CLI command, a
 * worker) pays nothing at start. Later requests send the prepared bytes. Call before registering
 * any other route: it records them as they are registered.
 */
export function apiReferenceRoutes(app: FastifyInstance, { config }: AppResources): void {
  const routes = collectRoutes(app);
  let reference: Promise<Reference> | undefined;
  const built = () => (reference ??= publishedReference(routes, config.publicUrl));

  app.get(
    '/openapi.json',
    describeRoute({
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI 3.1 document',
      description: 'Built from the schemas that validate requests; cacheable (`ETag`).',
      tags: ['reference'],
      auth: 'none',
      bucket: { unmetered: 'public, cacheable document built once' },
      responses: {
        200: {
          description: 'The document.',
          body: z.record(z.string(), z.unknown()).describe('An OpenAPI 3.1 document.'),
          headers: { ETag: 'Changes when the document does.' },
        },
        304: { description: 'Unchanged since the `If-None-Match` ETag.' },
      },
    }),
    async (request, reply) =>
      send(request, reply, (await built()).document, 'application/json; charset=utf-8'),
  );

  app.get(
    '/docs',
    describeRoute({
      operationId: 'getApiReferencePage',
      summary: 'The API reference page',
      description: 'This document as one HTML page, grouped by tag; no scripts.',
      tags: ['reference'],
      auth: 'none',
      bucket: { unmetered: 'public, cacheable page built once' },
      responses: {
        200: {
          description: 'The page.',
          contentType: 'text/html',
          headers: { ETag: 'Changes when the page does.' },
        },
        304: { description: 'Unchanged since the `If-None-Match` ETag.' },
      },
    }),
    async (request, reply) => {
      const { page } = await built();
      pageSecurityHeaders(reply, { formAction: "'none'" });
      return send(request, reply, page, 'text/html; charset=utf-8');
    },
  );
}

interface Reference {
  document: Published;
  page: Published;
}

/** Apps of one process with the same routes share one build (a test run starts many servers). */
const builds = new Map<string, Reference>();

async function publishedReference(
  routes: readonly CollectedRoute[],
  publicUrl: string | undefined,
): Promise<Reference> {
  const key = JSON.stringify([
    publicUrl ?? null,
    routes.map((route) => [
      route.method,
      route.url,
      route.scopes ?? null,
      route.description?.operationId ?? null,
    ]),
  ]);
  let build = builds.get(key);
  if (!build) {
    const [{ buildOpenApiDocument }, { referencePage }] = await Promise.all([
      import('../openapi/build-document.ts'),
      import('../openapi/reference/reference-page.ts'),
    ]);
    const built = buildOpenApiDocument(routes, { publicUrl });
    build = { document: published(JSON.stringify(built)), page: published(referencePage(built)) };
    if (builds.size >= 8) builds.clear();
    builds.set(key, build);
  }
  return build;
}

function published(body: string): Published {
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"` };
}

function send(
  request: FastifyRequest,
  reply: FastifyReply,
  content: Published,
  contentType: string,
): FastifyReply {
  reply.header('cache-control', CACHE_CONTROL).header('etag', content.etag);
  if (request.headers['if-none-match'] === content.etag) return reply.status(304).send();
  return reply.header('content-type', contentType).send(content.body);
}
