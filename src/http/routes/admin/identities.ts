import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseInput } from '../../parse.ts';
import type { AppResources } from '../../resources.ts';
import { describeAdminRoute } from './describe-admin-route.ts';
import {
  createdIdSchema,
  oauthAppCreatedSchema,
  oauthAppListSchema,
  oauthGrantListSchema,
  userListSchema,
} from '../../schemas/responses/admin.ts';
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
export function adminIdentityRoutes(app: FastifyInstance, { repos, credentials }: AppResources): void {
  app.post<{ Params: Params }>(
    '/workspaces/:slug/users',
    describeAdminRoute({
      operationId: 'createUser',
      summary: 'Create a user',
      description: 'An end user who can sign in to authorize OAuth apps.',
      body: createUserSchema,
      responses: { 201: { description: 'The user was created.', body: createdIdSchema } },
      errors: ['not_found', 'conflict'],
    }),
    async (request, reply) => {
      const body = parseInput(createUserSchema, request.body);
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      const user = await credentials.createUser(workspace, body);
      return reply.status(201).send({ id: user.id });
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:slug/users',
    describeAdminRoute({
      operationId: 'listUsers',
      summary: 'List users',
      responses: { 200: { description: 'The users.', body: userListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      return { users: await repos.users.listByWorkspace(workspace.id) };
    },
  );

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/users/:id',
    describeAdminRoute({
      operationId: 'deleteUser',
      summary: 'Delete a user',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      notFoundUnless(
        await repos.users.delete(workspace.id, request.params.id),
        `user '${request.params.id}'`,
      );
      return reply.status(204).send();
    },
  );

  app.post<{ Params: Params }>(
    '/workspaces/:slug/oauth-apps',
    describeAdminRoute({
      operationId: 'createOAuthApp',
      summary: 'Register an OAuth app',
      description: 'A confidential client; its secret is shown once, in this answer.',
      body: createOAuthAppSchema,
      responses: { 201: { description: 'The app was registered.', body: oauthAppCreatedSchema } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      const body = parseInput(createOAuthAppSchema, request.body);
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      const { oauthApp, clientSecret } = await credentials.createOAuthApp(workspace, body);
      return reply.status(201).send({ clientId: oauthApp.id, clientSecret });
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:slug/oauth-apps',
    describeAdminRoute({
      operationId: 'listOAuthApps',
      summary: 'List OAuth apps',
      responses: { 200: { description: 'The apps (never their secrets).', body: oauthAppListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      const apps = await repos.oauthApps.listByWorkspace(workspace.id);
      return { oauthApps: apps.map((oauthApp) => ({ clientId: oauthApp.id, ...oauthApp })) };
    },
  );

  app.get<{ Params: Params }>(
    '/workspaces/:slug/oauth-grants',
    describeAdminRoute({
      operationId: 'listOAuthGrants',
      summary: 'List OAuth grants',
      description: 'What users allowed apps.',
      responses: { 200: { description: 'The grants.', body: oauthGrantListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const workspace = await workspaceBySlug(repos.workspaces, request.params.slug);
      return { oauthGrants: await repos.oauth.listGrants(workspace.id) };
    },
  );

  app.delete<{ Params: Params & { id: string } }>(
    '/workspaces/:slug/oauth-grants/:id',
    describeAdminRoute({
      operationId: 'deleteOAuthGrant',
      summary: "End an app's access for a user",
      description: 'Deletes the grant: its refresh token and access tokens stop working.',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
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
    describeAdminRoute({
      operationId: 'deleteOAuthApp',
      summary: 'Delete an OAuth app',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
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
