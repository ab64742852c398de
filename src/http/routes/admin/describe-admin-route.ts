import { describeRoute, type RouteDocumentation } from '../../openapi/describe-route.ts';

/** `describeRoute` for the admin API: tag `admin`, the admin token, no rate limit. */
export function describeAdminRoute(documentation: Omit<RouteDocumentation, 'tags'>) {
  return describeRoute({
    ...documentation,
    tags: ['admin'],
    auth: 'admin',
    bucket: {
      unmetered:
        "the operator's admin API, called with the admin token: the buckets meter workspace credentials",
    },
  });
}
