import type { z } from 'zod';
import type { ErrorCode } from '../../domain/errors.ts';
import type { OAuthScope } from '../../domain/oauth-scopes.ts';
import type { ApiTag } from './api-tags.ts';
import type { RouteBucket } from './route-bucket.ts';
import type { IdempotentResource } from '../plugins/idempotent-creation.ts';

export type ResponseContentType =
  'application/json' | 'text/html' | 'text/plain' | 'text/javascript' | 'text/css' | 'text/event-stream';

/** One documented answer of a route. */
export interface DocumentedResponse {
  description: string;
  /** The body's schema; omitted for an empty body (and for HTML pages, which have none to give). */
  body?: z.ZodType;
  /** `application/json` unless given; several when the body comes in either (same schema). */
  contentType?: ResponseContentType | readonly ResponseContentType[];
  /** Response headers worth documenting: name → what it holds. */
  headers?: Readonly<Record<string, string>>;
}

/**
 * Who may call a route besides a workspace credential (described by `scopes`): nobody needs a
 * credential (`none`), the operator's admin token (`admin`), an OAuth client's id and secret
 * (`oauth_client`, the token and revocation endpoints).
 */
export type RouteAuth = 'none' | 'admin' | 'oauth_client';

export interface RouteDocumentation {
  /** Unique and stable: the client SDK names its calls after it. */
  operationId: string;
  summary: string;
  description?: string;
  tags: readonly [ApiTag, ...ApiTag[]];
  /** The query schema the handler parses (its object's fields become the query parameters). */
  query?: z.ZodType;
  /** Request headers the handler reads. */
  headers?: z.ZodType;
  /** The JSON body schema the handler parses (`.meta({ id })` names it in the document). */
  body?: z.ZodType;
  /**
   * How the body is refused before the handler runs; by default as the app's JSON parser and body
   * limit do (`invalid_request`, `payload_too_large`, `unsupported_media_type`).
   */
  bodyRefusals?: readonly ErrorCode[];
  /** The form body (`application/x-www-form-urlencoded`) the handler reads. */
  form?: z.ZodType;
  responses: Readonly<Record<number, DocumentedResponse>>;
  /**
   * The error codes the handler (or the engine behind it) can answer with. Those of the route's
   * authentication, body and query are added from what the route declares.
   */
  errors?: readonly ErrorCode[];
  /**
   * The route honors `Idempotency-Key` and creates this kind of resource (its id is reserved when the
   * key is claimed): the header, `409 idempotency_key_in_use` and `422 idempotency_key_reused` are documented.
   */
  idempotent?: IdempotentResource;
}

/**
 * A route's entry in the OpenAPI document. `scopes` marks a route taking a workspace credential (an
 * API key, or an OAuth access token holding every one of these scopes; an empty list closes it to
 * access tokens); other routes say who may call them with `auth`. Every route names its rate-limit
 * `bucket` beside them (`{ unmetered: why }` when no limit counts it).
 */
export type RouteDescription = RouteDocumentation & { bucket: RouteBucket } & (
    { scopes: readonly OAuthScope[]; auth?: never } | { auth: RouteAuth; scopes?: never }
  );

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route's entry in the OpenAPI document (`describeRoute`). */
    openapi?: RouteDescription;
    /** Where the route's requests are counted (`describeRoute`): what the rate-limit hook reads. */
    bucket?: RouteBucket;
  }
}

/**
 * Route options describing a route for the OpenAPI document; a route with `scopes` gets them as
 * `config.scopes` too, which the scope check enforces and the document reads, and its `bucket` as
 * `config.bucket`, which the rate-limit hook reads and the document publishes: neither pair can differ.
 */
export function describeRoute(description: RouteDescription): {
  config: {
    openapi: RouteDescription;
    bucket: RouteBucket;
    scopes?: readonly OAuthScope[];
    idempotent?: IdempotentResource;
  };
} {
  return {
    config: {
      openapi: description,
      bucket: description.bucket,
      ...(description.idempotent !== undefined && { idempotent: description.idempotent }),
      ...(description.scopes !== undefined && { scopes: description.scopes }),
    },
  };
}
