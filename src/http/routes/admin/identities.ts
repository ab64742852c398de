import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { hashPassword } from '../../../auth/password-hash.ts';
import { generateClientSecret, hashSecret } from '../../../auth/oauth/token-secrets.ts';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { httpUrlSchema } from '../../schemas/common.ts';
import { notFoundUnless, workspaceBySlug } from './admin-workspace.ts';

/** The body of `POST …/users` (also read by the admin CLI to type its flags). */
export const createUserSchema = z.strictObject({
  email: z.email({ error: 'must be an email address' }),
  password: z.string().min(8, 'must be at least 8 characters').max(1024),
  name: z.string().trim().min(1).max(200).optional(),
});

/** The body of `POST …/oauth-apps` (also read by the admin CLI to type its flags). */
export const createOAuthAppSchema = z.strictObject({
  name: z.string().trim().min(1).max(200),
  redirectUris: z.array(httpUrlSchema).min(1, 'must list at least one redirect URI').max(20),
});

type Params = { slug: string };

/** End users (who sign in for OAuth) and OAuth apps (confidential clients) of a workspace. */
export function adminIdentityRoutes(app: FastifyInstance, { repos }: AppResources): void {
  app.post<{ Params: Params }>('/workspaces/:slug/users', async (request, reply) => {
    const body = parseInput(createUserSchema, request.body);
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    const user = await repos.users.create({
      workspaceId: workspace.id,
      email: body.email,
      passwordHash: await hashPassword(body.password),
      name: body.name ?? null,
    });
    return reply.status(201).send({ id: user.id });
  });

  app.get<{ Params: Params }>('/workspaces/:slug/users', async (request) => {
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    return { users: await repos.users.listByWorkspace(workspace.id) };
  });

  app.delete<{ Params: Params & { id: string } }>('/workspaces/:slug/users/:id', async (request, reply) => {
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    notFoundUnless(await repos.users.delete(workspace.id, request.params.id), `user '${request.params.id}'`);
    return reply.status(204).send();
  });

  app.post<{ Params: Params }>('/workspaces/:slug/oauth-apps', async (request, reply) => {
    const body = parseInput(createOAuthAppSchema, request.body);
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    const clientSecret = generateClientSecret();
    const oauthApp = await repos.oauthApps.create({
      workspaceId: workspace.id,
      name: body.name,
      redirectUris: body.redirectUris,
      clientSecretHash: hashSecret(clientSecret),
    });
    return reply.status(201).send({ clientId: oauthApp.id, clientSecret });
  });

  app.get<{ Params: Params }>('/workspaces/:slug/oauth-apps', async (request) => {
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    const apps = await repos.oauthApps.listByWorkspace(workspace.id);
    return { oauthApps: apps.map((oauthApp) => ({ clientId: oauthApp.id, ...oauthApp })) };
  });

  app.get<{ Params: Params }>('/workspaces/:slug/oauth-grants', async (request) => {
    const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
    return { oauthGrants: await repos.oauth.listGrants(workspace.id) };
  });

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/oauth-grants/:id',
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(
        await repos.oauth.deleteGrant(workspace.id, request.params.id),
        `OAuth grant '${request.params.id}'`,
      );
      return reply.status(204).send();
    },
  );

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/oauth-apps/:id',
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(
        await repos.oauthApps.delete(workspace.id, request.params.id),
        `OAuth app '${request.params.id}'`,
      );
      return reply.status(204).send();
    },
  );
}
