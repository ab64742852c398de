import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { InputMessage } from '../../../domain/run-spec.ts';
import type { Schedule, ScheduleInput } from '../../../domain/schedules.ts';
import { describeRoute } from '../../openapi/describe-route.ts';
import { parseInput } from '../../parse.ts';
import { principalOf } from '../../principal-of.ts';
import type { AppResources } from '../../resources.ts';
import { messagesSchema, runRequestSchema } from '../../schemas/agent-spec.ts';
import { metadataSchema } from '../../schemas/run-controls.ts';
import {
  scheduleListSchema,
  scheduleRunListSchema,
  scheduleSchema,
} from '../../schemas/responses/schedules.ts';

const scheduleFields = {
  cron: z
    .string({ error: 'must be a string' })
    .max(200, 'must be at most 200 characters')
    .describe('5 fields, or 6 with seconds first.'),
  timezone: z
    .string({ error: 'must be a string' })
    .max(64, 'must be at most 64 characters')
    .describe('An IANA time zone name; default UTC.'),
  prompt: runRequestSchema.shape.prompt,
  messages: messagesSchema.exactOptional(),
  metadata: metadataSchema.exactOptional(),
  enabled: z.boolean({ error: 'must be a boolean' }).exactOptional(),
};

const atMostOneInput = (body: { prompt?: unknown; messages?: unknown }) =>
  body.prompt === undefined || body.messages === undefined;

const createSchema = z
  .strictObject({
    ...scheduleFields,
    timezone: scheduleFields.timezone.exactOptional(),
    agentId: z.string({ error: 'must be a string' }).max(64, 'must be at most 64 characters'),
    sessionId: z
      .string({ error: 'must be a string' })
      .max(64, 'must be at most 64 characters')
      .exactOptional(),
  })
  .refine((body) => atMostOneInput(body) && (body.prompt !== undefined || body.messages !== undefined), {
    message: 'exactly one of prompt or messages is required',
  })
  .meta({ id: 'CreateSchedule' });

const patchSchema = z
  .strictObject({
    ...scheduleFields,
    cron: scheduleFields.cron.exactOptional(),
    timezone: scheduleFields.timezone.exactOptional(),
  })
  .refine(atMostOneInput, { message: 'at most one of prompt or messages' })
  .meta({ id: 'UpdateSchedule' });

const runsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(64).optional(),
});

/** Schedules are API keys only: an access token is refused with `403 insufficient_scope`, `required: "api_key"`. */
const API_KEYS_ONLY = { scopes: [], bucket: 'lifecycle', tags: ['schedules'] } as const;

function inputOf(body: { prompt?: string; messages?: InputMessage[] }): ScheduleInput | undefined {
  if (body.prompt !== undefined) return { prompt: body.prompt };
  if (body.messages !== undefined) return { messages: body.messages };
  return undefined;
}

function scheduleView(schedule: Schedule) {
  return {
    id: schedule.id,
    agentId: schedule.agentId,
    cron: schedule.cron,
    timezone: schedule.timezone,
    sessionId: schedule.sessionId,
    enabled: schedule.enabled,
    nextRunAt: schedule.nextRunAt,
    lastRunAt: schedule.lastRunAt,
    lastRunId: schedule.lastRunId,
    createdAt: schedule.createdAt,
    ...schedule.input,
    metadata: schedule.metadata,
    updatedAt: schedule.updatedAt,
  };
}

/** `{ws}/schedules`: stored agents run on a cron schedule (extensions §8). */
export function scheduleRoutes(app: FastifyInstance, resources: AppResources): void {
  const { schedules } = resources.engine;

  app.post(
    '/schedules',
    describeRoute({
      ...API_KEYS_ONLY,
      operationId: 'createSchedule',
      summary: 'Create a schedule',
      description:
        'Each scheduled time creates one run of the agent, as `POST {ws}/agent-runs` with `agentId` by this API key would (metered and rate-limited in its `run_start` bucket; `metadata` plus `scheduleId`), or with `sessionId` a message run of that session (`ifBusy: enqueue`). A time that passed while no process could fire it is fired late if less than 60 s late, else skipped.',
      body: createSchema,
      responses: { 201: { description: 'The schedule.', body: scheduleSchema } },
      errors: ['invalid_model', 'forbidden'],
    }),
    async (request, reply) => {
      const body = parseInput(createSchema, request.body);
      const principal = principalOf(request);
      if (principal.kind !== 'api_key') throw new Error('schedule routes take API keys only');
      const schedule = await schedules.create(
        {
          workspaceId: principal.workspace.id,
          apiKeyId: principal.apiKey.id,
          agentAllowlist: principal.apiKey.agentIds,
        },
        {
          agentId: body.agentId,
          cron: body.cron,
          input: inputOf(body) ?? { prompt: '' },
          ...(body.timezone !== undefined && { timezone: body.timezone }),
          ...(body.sessionId !== undefined && { sessionId: body.sessionId }),
          ...(body.metadata !== undefined && { metadata: body.metadata }),
          ...(body.enabled !== undefined && { enabled: body.enabled }),
        },
      );
      return reply.status(201).send(scheduleView(schedule));
    },
  );

  app.get(
    '/schedules',
    describeRoute({
      ...API_KEYS_ONLY,
      bucket: 'transport',
      operationId: 'listSchedules',
      summary: "List the workspace's schedules",
      responses: { 200: { description: 'The schedules.', body: scheduleListSchema } },
    }),
    async (request) => ({
      schedules: (await schedules.list(principalOf(request).workspace.id)).map(scheduleView),
    }),
  );

  app.get<{ Params: { scheduleId: string } }>(
    '/schedules/:scheduleId',
    describeRoute({
      ...API_KEYS_ONLY,
      bucket: 'transport',
      operationId: 'getSchedule',
      summary: 'Read a schedule',
      responses: { 200: { description: 'The schedule.', body: scheduleSchema } },
      errors: ['not_found'],
    }),
    async (request) =>
      scheduleView(await schedules.get(principalOf(request).workspace.id, request.params.scheduleId)),
  );

  app.patch<{ Params: { scheduleId: string } }>(
    '/schedules/:scheduleId',
    describeRoute({
      ...API_KEYS_ONLY,
      operationId: 'updateSchedule',
      summary: 'Change a schedule',
      description:
        'A new `cron`, `timezone` or `enabled` counts the next time from now; disabling clears `nextRunAt`.',
      body: patchSchema,
      responses: { 200: { description: 'The schedule as changed.', body: scheduleSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const body = parseInput(patchSchema, request.body);
      const input = inputOf(body);
      const schedule = await schedules.update(principalOf(request).workspace.id, request.params.scheduleId, {
        ...(body.cron !== undefined && { cron: body.cron }),
        ...(body.timezone !== undefined && { timezone: body.timezone }),
        ...(input !== undefined && { input }),
        ...(body.metadata !== undefined && { metadata: body.metadata }),
        ...(body.enabled !== undefined && { enabled: body.enabled }),
      });
      return scheduleView(schedule);
    },
  );

  app.delete<{ Params: { scheduleId: string } }>(
    '/schedules/:scheduleId',
    describeRoute({
      ...API_KEYS_ONLY,
      operationId: 'deleteSchedule',
      summary: 'Delete a schedule',
      description: 'No run is created for it after this answer.',
      responses: { 204: { description: 'Deleted.' } },
      errors: ['not_found'],
    }),
    async (request, reply) => {
      await schedules.delete(principalOf(request).workspace.id, request.params.scheduleId);
      return reply.status(204).send();
    },
  );

  app.get<{ Params: { scheduleId: string } }>(
    '/schedules/:scheduleId/runs',
    describeRoute({
      ...API_KEYS_ONLY,
      bucket: 'transport',
      operationId: 'listScheduleRuns',
      summary: "A schedule's runs, newest first",
      query: runsQuerySchema,
      responses: { 200: { description: 'A page of runs.', body: scheduleRunListSchema } },
      errors: ['not_found'],
    }),
    async (request) => {
      const query = parseInput(runsQuerySchema, request.query, 'query');
      const page = await schedules.runs(
        principalOf(request).workspace.id,
        request.params.scheduleId,
        query.limit + 1,
        query.cursor,
      );
      const runs = page.slice(0, query.limit);
      return {
        runs,
        nextCursor: page.length > query.limit ? (runs.at(-1)?.scheduledFor ?? null) : null,
      };
    },
  );
}
