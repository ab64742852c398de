/** Answers of the admin API (`/admin/v1`). Secrets appear only in the creating answers. */
import { z } from 'zod';
import type { ApiKey } from '../../../domain/api-key.ts';
import type { OauthApp, OauthGrant, User } from '../../../domain/identity.ts';
import { PROVIDER_APIS } from '../../../domain/model.ts';
import type { Offering, WorkspaceProvider } from '../../../domain/offering.ts';
import { OAUTH_SCOPE_NAMES } from '../../../domain/oauth-scopes.ts';
import type { Workspace } from '../../../domain/workspace.ts';
import { pricingSchema } from './models.ts';
import { openObject } from './open-object.ts';
import type { Admits } from './schema-agreement.ts';

const isoDate = z.string().describe('ISO 8601 date-time.');
const perMinute = z.number().int().min(1);

export const createdIdSchema = z.object({ id: z.string() }).meta({ id: 'CreatedId' });

export const createdWithSlugSchema = z
  .object({ id: z.string(), slug: z.string() })
  .meta({ id: 'CreatedWithSlug' });

export const workspaceSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    features: z.object({ apiKeys: z.boolean(), oauthApps: z.boolean() }),
    rateLimits: z
      .object({
        runStart: perMinute.optional(),
        lifecycle: perMinute.optional(),
        otherMutations: perMinute.optional(),
        transport: perMinute.optional(),
      })
      .describe("Per-minute maxima; an absent bucket has the spec's default."),
    maxConcurrentRuns: z.number().int().min(1),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'Workspace' });

export const workspaceListSchema = z
  .object({ workspaces: z.array(workspaceSchema) })
  .meta({ id: 'WorkspaceList' });

export const apiKeyCreatedSchema = z
  .object({ id: z.string(), key: z.string().describe('`svc_…`: shown once.') })
  .meta({ id: 'ApiKeyCreated' });

const apiKeySchema = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    keyPrefix: z.string().describe('Enough to recognise the key, never to use it.'),
    usage: z.enum(['developer_api', 'internal']),
    agentIds: z.array(z.string()).describe('Empty: every non-system agent.'),
    createdAt: isoDate,
    expiresAt: isoDate.nullable(),
    revokedAt: isoDate.nullable(),
    lastUsedAt: isoDate.nullable(),
  })
  .meta({ id: 'ApiKey' });

export const apiKeyListSchema = z.object({ apiKeys: z.array(apiKeySchema) }).meta({ id: 'ApiKeyList' });

const connectionFields = {
  id: z.string(),
  provider: z.string(),
  api: z.enum(PROVIDER_APIS),
  baseUrl: z.string().nullable(),
  hasApiKey: z.boolean().describe('The key itself is never shown.'),
  createdAt: isoDate,
};

const offeringSchema = z
  .object({
    ...connectionFields,
    vendorModelId: z.string(),
    label: z.string(),
    contextWindowTokens: z.number().int(),
    pricing: pricingSchema.nullable(),
    isDefault: z.boolean(),
    origin: z.enum(['stored', 'builtin']),
  })
  .meta({ id: 'Offering' });

export const offeringListSchema = z
  .object({ offerings: z.array(offeringSchema) })
  .meta({ id: 'OfferingList' });

const providerSchema = z
  .object({
    ...connectionFields,
    workspaceId: z.string(),
    models: z.array(
      z.object({
        vendorModelId: z.string(),
        label: z.string(),
        contextWindowTokens: z.number().int(),
        pricing: pricingSchema.nullable(),
      }),
    ),
    defaultModel: z.string(),
    isDefault: z.boolean(),
  })
  .meta({ id: 'WorkspaceProvider' });

export const providerListSchema = z
  .object({ providers: z.array(providerSchema) })
  .meta({ id: 'WorkspaceProviderList' });

const agentSchema = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    slug: z.string(),
    name: z.string(),
    systemPrompt: z.string(),
    modelId: z.string().nullable(),
    useWorkspaceDefaultModel: z.boolean(),
    reasoningLevel: z.union([z.enum(['off', 'low', 'medium', 'high']), z.number().int()]).nullable(),
    tools: z
      .array(openObject({ kind: z.string() }))
      .describe('Tool refs; their `headers` as a list of names, never values.'),
    isSystem: z.boolean(),
    description: z.string().nullable(),
    outputSchema: z
      .object({
        name: z.string(),
        schema: z.record(z.string(), z.unknown()),
        enforcement: z.enum(['best_effort', 'strict']),
      })
      .nullable()
      .describe("The default outputSchema of the agent's runs."),
    createdAt: isoDate,
    updatedAt: isoDate,
  })
  .meta({ id: 'Agent' });

export const agentListSchema = z.object({ agents: z.array(agentSchema) }).meta({ id: 'AgentList' });

const workspaceToolSchema = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    description: z.string(),
    parameters: z.record(z.string(), z.unknown()),
    http: z.object({
      url: z.string(),
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
      headers: z.array(z.string()).describe('Header names only: their values are never listed.'),
    }),
    createdAt: isoDate,
  })
  .meta({ id: 'WorkspaceTool' });

export const workspaceToolListSchema = z
  .object({ tools: z.array(workspaceToolSchema) })
  .meta({ id: 'WorkspaceToolList' });

const userSchema = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    email: z.string(),
    name: z.string().nullable(),
    createdAt: isoDate,
  })
  .meta({ id: 'User' });

export const userListSchema = z.object({ users: z.array(userSchema) }).meta({ id: 'UserList' });

export const oauthAppCreatedSchema = z
  .object({ clientId: z.string(), clientSecret: z.string().describe('Shown once.') })
  .meta({ id: 'OAuthAppCreated' });

const oauthAppSchema = z
  .object({
    clientId: z.string(),
    id: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    redirectUris: z.array(z.string()),
    createdAt: isoDate,
  })
  .meta({ id: 'OAuthApp' });

export const oauthAppListSchema = z
  .object({ oauthApps: z.array(oauthAppSchema) })
  .meta({ id: 'OAuthAppList' });

const oauthGrantSchema = z
  .object({
    id: z.string(),
    workspaceId: z.string(),
    appId: z.string(),
    userId: z.string(),
    scopes: z.array(z.enum(OAUTH_SCOPE_NAMES)),
    agentIds: z.array(z.string()),
    createdAt: isoDate,
    revokedAt: isoDate.nullable(),
  })
  .meta({ id: 'OAuthGrant', description: 'What a user allowed an app at consent.' });

export const oauthGrantListSchema = z
  .object({ oauthGrants: z.array(oauthGrantSchema) })
  .meta({ id: 'OAuthGrantList' });

export type _AdminAnswersAgreeWithDomain = [
  Admits<z.output<typeof workspaceSchema>, Workspace>,
  Admits<z.output<typeof apiKeySchema>, ApiKey>,
  Admits<z.output<typeof offeringSchema>, Omit<Offering, 'apiKeySealed'> & { hasApiKey: boolean }>,
  Admits<z.output<typeof providerSchema>, Omit<WorkspaceProvider, 'apiKeySealed'> & { hasApiKey: boolean }>,
  Admits<z.output<typeof userSchema>, User>,
  Admits<z.output<typeof oauthAppSchema>, OauthApp & { clientId: string }>,
  Admits<z.output<typeof oauthGrantSchema>, OauthGrant>,
];
