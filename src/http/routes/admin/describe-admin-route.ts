import { describeRoute, type RouteDocumentation } from '../../openapi/describe-route.ts';

/** `describeRoute` for the admin API: tag `admin`, the admin token. */
export function describeAdminRoute(documentation: Omit<RouteDocumentation, 'tags'>) {
  return describeRoute({ ...documentation, tags: ['admin'], auth: 'admin' });
}
