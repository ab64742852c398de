import { createDocument, type ZodOpenApiPathsObject } from 'zod-openapi';
import type { z } from 'zod';
import packageJson from '../../../package.json' with { type: 'json' };
import { API_TAGS, type ApiTag } from './api-tags.ts';
import { objectOf, operationOf, undescribedOperation } from './operation.ts';
import { openApiPath } from './path-parameters.ts';
import type { CollectedRoute } from './route-collector.ts';
import { overrideSchema } from './schema-override.ts';
import { securitySchemes } from './security.ts';

export type OpenApiDocument = ReturnType<typeof createDocument>;

export interface DocumentOptions {
  /** `AGENT_RUNS_PUBLIC_URL`: the server URL; without it URLs are relative to where the document is served. */
  publicUrl: string | undefined;
}

const INTRO = `Runs LLM agents on request. Create a run, read its resumable Server-Sent Events stream until a terminal event (\`result\`, \`error\` or \`cancelled\`), answer the tool calls only the client can execute, and get the result with its token usage.

Workspace routes live under \`/api/v1/workspaces/{workspaceSlug}\` and take a workspace credential: a Developer-API key (\`svc_…\`) or an OAuth access token (\`svc_at_…\`, which needs each route's scopes), as \`Authorization: Bearer …\` or \`X-API-Key\`. Bodies are JSON with camelCase keys; errors are \`{ error, message }\`.`;

/**
 * The OpenAPI 3.1 document of the routes the app registered, converted from the zod schemas the
 * handlers parse with and the response schemas of `schemas/responses/`. Built once; it holds no
 * per-request state.
 */
export function buildOpenApiDocument(
  routes: readonly CollectedRoute[],
  options: DocumentOptions,
): OpenApiDocument {
  const base = options.publicUrl?.replace(/\/+$/, '');
  const urlOf = (path: string) => `${base ?? ''}${path}`;
  const paths: ZodOpenApiPathsObject = {};
  const tags = new Set<ApiTag>();
  for (const route of routes) {
    const { description } = route;
    const pathItem = (paths[openApiPath(route.url)] ??= {}) as Record<string, unknown>;
    pathItem[route.method.toLowerCase()] = description
      ? operationOf(route, description)
      : undescribedOperation(route);
    for (const tag of description?.tags ?? []) tags.add(tag);
  }
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: { title: 'agent-runs', version: packageJson.version, description: INTRO },
      servers: [
        {
          url: base ?? '/',
          description: base ? 'AGENT_RUNS_PUBLIC_URL' : 'The origin this document was served from',
        },
      ],
      tags: (Object.keys(API_TAGS) as ApiTag[])
        .filter((tag) => tags.has(tag))
        .map((name) => ({ name, description: API_TAGS[name] })),
      paths,
      components: { securitySchemes: securitySchemes(urlOf) },
    },
    { override: overrideSchema, allowEmptySchema: { custom: true } },
  );
  finishParameters(document, routes);
  return document;
}

/**
 * Path parameters first. A query or header parameter is required when its schema refuses its
 * absence: defaults, optional fields and repeatable fields that read absence as none are not
 * (zod-openapi cannot see through the last).
 */
function finishParameters(document: OpenApiDocument, routes: readonly CollectedRoute[]): void {
  for (const route of routes) {
    const operation = document.paths?.[openApiPath(route.url)]?.[route.method.toLowerCase() as 'get'] as
      { parameters?: Parameter[] } | undefined;
    if (!operation?.parameters) continue;
    const { description } = route;
    const fields: Record<string, Record<string, z.ZodType>> = {
      query: description?.query ? objectOf(description.query).shape : {},
      header: description?.headers ? objectOf(description.headers).shape : {},
    };
    for (const parameter of operation.parameters) {
      const schema = fields[parameter.in]?.[parameter.name];
      if (!schema) continue;
      if (schema.safeParse(undefined).success) delete parameter.required;
      else parameter.required = true;
    }
    operation.parameters.sort((a, b) => LOCATION_ORDER.indexOf(a.in) - LOCATION_ORDER.indexOf(b.in));
  }
}

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}

const LOCATION_ORDER = ['path', 'query', 'header', 'cookie'];
