import type { FastifyInstance } from 'fastify';
import { consoleAssets, type ConsoleAssets } from '../console/console-assets.ts';
import { describeRoute } from '../openapi/describe-route.ts';
import { escapeHtml } from '../pages/html.ts';
import { consoleSecurityHeaders } from '../pages/security-headers.ts';

/** Asset URLs change with their content: a browser may keep each for a year without asking again. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const NOT_FOUND = { error: 'not_found', message: 'No such console file.' } as const;

/**
 * `GET /console` (extensions §12): the web console's page, which loads the console's scripts and
 * styles from `GET /console/assets/{version}/{file}`. The page names the current version and is
 * revalidated on every load; an asset is served only under the version of its content, so a browser
 * never mixes files of two releases. The console calls the API with the credential the person types.
 */
export function consoleRoutes(app: FastifyInstance): void {
  const assets = consoleAssets();
  const shell = consolePage(assets);

  app.get(
    '/console',
    describeRoute({
      operationId: 'getConsolePage',
      summary: 'The web console',
      description:
        'Its page; sign in with a workspace API key or through OAuth (the workspace’s app for the console). Loads nothing from another origin.',
      tags: ['console'],
      auth: 'none',
      bucket: { unmetered: 'a static page, the same for every client' },
      responses: { 200: { description: 'The page.', contentType: 'text/html' } },
    }),
    async (_request, reply) =>
      consoleSecurityHeaders(reply)
        .header('cache-control', 'no-cache')
        .type('text/html; charset=utf-8')
        .send(shell),
  );

  app.get<{ Params: { version: string; file: string } }>(
    '/console/assets/:version/:file',
    describeRoute({
      operationId: 'getConsoleAsset',
      summary: 'A file of the web console',
      description: 'Served only under the current version; cacheable for a year.',
      tags: ['console'],
      auth: 'none',
      bucket: { unmetered: 'static files, the same for every client' },
      responses: {
        200: { description: 'The file.', contentType: ['text/javascript', 'text/css'] },
      },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const { version, file } = request.params;
      const asset = version === assets.version ? assets.files.get(file) : undefined;
      consoleSecurityHeaders(reply);
      if (!asset) return reply.status(404).header('cache-control', 'no-store').send(NOT_FOUND);
      return reply.header('cache-control', IMMUTABLE).type(asset.contentType).send(asset.body);
    },
  );
}

/**
 * The page: a mount point and the console's modules. Asset URLs are relative, so the console also
 * works behind a proxy that serves the service under a path prefix.
 */
function consolePage(assets: ConsoleAssets): string {
  const url = (file: string) => escapeHtml(`console/assets/${assets.version}/${file}`);
  const preloads = [...assets.files.keys()]
    .filter((file) => file.endsWith('.js') && file !== 'app.js')
    .map((file) => `<link rel="modulepreload" href="${url(file)}" />`)
    .join('\n    ');
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="referrer" content="no-referrer" />
    <meta name="color-scheme" content="light dark" />
    <title>agent-runs console</title>
    <link rel="stylesheet" href="${url('console.css')}" />
    <script type="module" src="${url('app.js')}"></script>
    ${preloads}
  </head>
  <body>
    <noscript><p>The console needs JavaScript.</p></noscript>
    <div id="app"></div>
  </body>
</html>
`;
}
