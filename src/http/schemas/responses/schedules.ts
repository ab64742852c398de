/** Answers of the schedule routes (extensions §8). */
import { z } from 'zod';

const isoDate = z.string().describe('ISO 8601 date-time.');

export const scheduleSchema = z
  .object({
    id: z.string(),
    agentId: z.string(),
    cron: z.string().describe('5 fields, or 6 with seconds first.'),
    timezone: z.string().describe('IANA time zone name the cron expression is read in.'),
    sessionId: z.string().nullable(),
    enabled: z.boolean(),
    nextRunAt: isoDate.nullable().describe('The next scheduled time; null while disabled.'),
    lastRunAt: isoDate.nullable(),
    lastRunId: z.string().nullable(),
    createdAt: isoDate,
    prompt: z.string().optional().describe('The input of each run (or `messages`).'),
    messages: z.array(z.looseObject({ role: z.string() })).optional(),
    metadata: z.record(z.string(), z.string()).describe('Given to each run, with `scheduleId`.'),
    updatedAt: isoDate,
  })
  .meta({ id: 'Schedule' });

export const scheduleListSchema = z
  .object({ schedules: z.array(scheduleSchema) })
  .meta({ id: 'ScheduleList' });

export const scheduleRunListSchema = z
  .object({
    runs: z.array(
      z.object({
        runId: z.string(),
        scheduledFor: isoDate.describe('The scheduled time this run was created for.'),
        createdAt: isoDate,
      }),
    ),
    nextCursor: z.string().nullable().describe('Pass as `cursor` for the next page; null on the last.'),
  })
  .meta({ id: 'ScheduleRunList' });
