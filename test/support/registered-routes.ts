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
