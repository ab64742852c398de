import type { FastifyInstance } from 'fastify';

/** `METHOD path` of every route the app registered, read from Fastify's route tree. */
export function registeredRoutes(app: FastifyInstance): string[] {
  const table = app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const routes: string[] = [];
  for (const line of table.split('\n')) {
    const match = /^([│ ├└─]*?)[├└]── (\S+)(?: \(([^)]*)\))?$/.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? '').length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + match[2];
    stack.push(path);
    for (const method of (match[3] ?? '').split(', ')) if (method) routes.push(`${method} ${path}`);
  }
  return routes;
}

/**
 * `METHOD /path/{param}` of every route the app registered, as the OpenAPI document writes them:
 * Fastify's `:param` as `{param}`, without the HEAD twins of GET routes and the trailing-slash twins
 * of a plugin's `/` route (the same handler under the same path).
 */
export function documentedRouteKeys(app: FastifyInstance): string[] {
  const routes = registeredRoutes(app).map((route) => {
    const [method = '', path = ''] = route.split(' ');
    const bare = path.length > 1 ? path.replace(/\/$/, '') : path;
    return `${method} ${bare.replace(/:([A-Za-z0-9_]+)/g, '{$1}')}`;
  });
  const unique = [...new Set(routes)];
  return unique.filter((route) => !route.startsWith('HEAD ') || !unique.includes(`GET ${route.slice(5)}`));
}
