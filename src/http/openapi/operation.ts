import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import type { DocumentedResponse, RouteDescription } from './describe-route.ts';
import {
  adminReasons,
  credentialReasons,
  jsonBodyReasons,
  METERED_HEADERS,
  reasonOf,
  type ErrorReason,
} from './error-reasons.ts';
import { pathParameters } from './path-parameters.ts';
import type { CollectedRoute } from './route-collector.ts';
import { securityRequirements, type RouteSecurity } from './security.ts';

/** How the route is called: the scopes come from `config.scopes`, which the scope check enforces. */
function securityOf(route: CollectedRoute, description: RouteDescription): RouteSecurity {
  if (description.auth !== undefined) return { kind: description.auth };
  return { kind: 'credential', scopes: route.scopes ?? [] };
}

/** The OpenAPI operation of a described route (zod schemas still in; `createDocument` converts them). */
export function operationOf(route: CollectedRoute, description: RouteDescription): ZodOpenApiOperationObject {
  const security = securityOf(route, description);
  const metered = security.kind === 'credential';
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, response] of Object.entries(description.responses)) {
    responses[status] = documented(response, metered && Number(status) < 300 ? METERED_HEADERS : {});
  }
  for (const [status, reasons] of groupByStatus(errorReasonsOf(route, description, security))) {
    responses[String(status)] ??= errorResponse(reasons);
  }
  const parameters = pathParameters(route.url);
  const headers = headersOf(description);
  return {
    operationId: description.operationId,
    summary: description.summary,
    ...(description.description !== undefined && { description: description.description }),
    tags: [...description.tags],
    security: securityRequirements(security),
    ...(security.kind === 'credential' && { 'x-required-scopes': [...security.scopes] }),
    ...(route.bucket !== undefined && { 'x-rate-limit-bucket': route.bucket }),
    ...(parameters.length > 0 && { parameters }),
    ...((description.query ?? headers) && {
      requestParams: {
        ...(description.query && { query: objectOf(description.query) }),
        ...(headers && { header: headers }),
      },
    }),
    ...(description.body && {
      requestBody: {
        // The handlers read a missing body as `{}`: the body is required when `{}` is refused.
        required: !description.body.safeParse({}).success,
        content: { 'application/json': { schema: description.body } },
      },
    }),
    ...(description.form && {
      requestBody: {
        required: true,
        content: { 'application/x-www-form-urlencoded': { schema: description.form } },
      },
    }),
    responses,
  };
}

/**
 * A placeholder for a route registered without `describeRoute`, so the document still lists it; its
 * security is known only when it declares scopes (`config.scopes`: a workspace credential).
 */
export function undescribedOperation(route: CollectedRoute): ZodOpenApiOperationObject {
  const parameters = pathParameters(route.url);
  return {
    summary: `${route.method} ${route.url} (not described yet)`,
    'x-undescribed': true,
    ...(route.scopes && { security: securityRequirements({ kind: 'credential', scopes: route.scopes }) }),
    ...(parameters.length > 0 && { parameters }),
    responses: { default: { description: 'Not described yet.' } },
  };
}

function errorReasonsOf(
  route: CollectedRoute,
  description: RouteDescription,
  security: RouteSecurity,
): ErrorReason[] {
  const reasons: ErrorReason[] = [];
  if (security.kind === 'credential') {
    reasons.push(
      ...credentialReasons({
        scoped: security.scopes.length > 0,
        slugInPath: route.url.includes(':workspaceSlug'),
      }),
    );
  }
  if (security.kind === 'admin') reasons.push(...adminReasons());
  if (description.body) {
    reasons.push(...(description.bodyRefusals?.map(reasonOf) ?? jsonBodyReasons()));
  }
  if (description.query || description.headers || description.idempotent) {
    reasons.push(reasonOf('invalid_request'));
  }
  reasons.push(...(description.errors ?? []).map(reasonOf));
  if (description.idempotent) {
    reasons.push(reasonOf('idempotency_key_in_use'), reasonOf('idempotency_key_reused'));
  }
  return reasons;
}

function groupByStatus(reasons: readonly ErrorReason[]): Map<number, ErrorReason[]> {
  const groups = new Map<number, ErrorReason[]>();
  for (const reason of reasons) {
    const group = groups.get(reason.status) ?? [];
    if (!group.some((seen) => seen.error === reason.error && seen.when === reason.when)) group.push(reason);
    groups.set(reason.status, group);
  }
  return new Map([...groups].sort(([a], [b]) => a - b));
}

function errorResponse(reasons: readonly ErrorReason[]): ZodOpenApiResponseObject {
  const bodies = [...new Set(reasons.map((reason) => reason.body))];
  const headers = Object.assign({}, ...reasons.map((reason) => reason.headers ?? {})) as Record<
    string,
    string
  >;
  return documented(
    {
      description: reasons.map((reason) => `- \`${reason.error}\`: ${reason.when}`).join('\n'),
      body: bodies.length === 1 ? (bodies[0] as z.ZodType) : z.union(bodies),
    },
    headers,
  );
}

const idempotencyKeyHeaderSchema = z.object({
  'Idempotency-Key': z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/)
    .optional()
    .describe(
      '1 to 255 visible ASCII characters, scoped to the workspace and the route. A repeat with the same key and an equal JSON body (within 24 hours) gets the first answer again with the response header `Idempotent-Replayed: true`, and creates nothing; a first answer other than 2xx is not kept.',
    ),
});

/** The route's header parameters: those it reads, plus `Idempotency-Key` where it is honored. */
function headersOf(description: RouteDescription): z.ZodObject | undefined {
  const declared = description.headers && objectOf(description.headers);
  if (!description.idempotent) return declared;
  return declared ? declared.extend(idempotencyKeyHeaderSchema.shape) : idempotencyKeyHeaderSchema;
}

const INTEGER_HEADERS = new Set([
  'Retry-After',
  'X-RateLimit-Limit',
  'X-RateLimit-Remaining',
  'X-RateLimit-Reset',
]);

function documented(
  response: DocumentedResponse,
  extraHeaders: Readonly<Record<string, string>>,
): ZodOpenApiResponseObject {
  const headers = { ...extraHeaders, ...response.headers };
  const contentTypes = [response.contentType ?? 'application/json'].flat();
  const { body } = response;
  return {
    description: response.description,
    ...(Object.keys(headers).length > 0 && {
      headers: Object.fromEntries(
        Object.entries(headers).map(([name, text]) => [
          name,
          { description: text, schema: { type: INTEGER_HEADERS.has(name) ? 'integer' : 'string' } },
        ]),
      ),
    }),
    ...(body
      ? { content: Object.fromEntries(contentTypes.map((type) => [type, { schema: body }])) }
      : contentTypes.some(isPlainText) && {
          content: Object.fromEntries(
            contentTypes.filter(isPlainText).map((type) => [type, { schema: { type: 'string' } }]),
          ),
        }),
  };
}

/** A text body documented as a string: a page, a script, a stylesheet (not an event stream). */
function isPlainText(type: string): boolean {
  return type.startsWith('text/') && type !== 'text/event-stream';
}

/** The object schema whose fields are parameters (zod-openapi reads a pipe's input object the same way). */
export function objectOf(schema: z.ZodType): z.ZodObject {
  if (schema instanceof z.ZodObject) return schema;
  if (schema instanceof z.ZodPipe) return objectOf(schema.in as z.ZodType);
  throw new Error('query and header schemas must be zod objects');
}
