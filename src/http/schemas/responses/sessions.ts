/** Answers of the session routes. */
import { z } from 'zod';
import type { Session } from '../../../domain/session.ts';
import type { AttachmentMetadata } from '../../../domain/session-history.ts';
import { openObject } from './open-object.ts';
import type { Admits } from './schema-agreement.ts';

const isoDate = z.string().describe('ISO 8601 date-time.');
const sessionStatusSchema = z.enum(['active', 'ended']).meta({ id: 'SessionStatus' });

export const sessionCreatedSchema = z.object({ sessionId: z.string() }).meta({ id: 'SessionCreated' });

export const sessionListEntrySchema = z
  .object({
    sessionId: z.string(),
    creationDate: isoDate,
    lastInteractionDate: isoDate.describe('The last message run (the creation date before the first).'),
    summary: z.string().describe('A best-effort label derived from the first user prompt.'),
    metadata: z.record(z.string(), z.string()),
    status: sessionStatusSchema,
  })
  .meta({ id: 'SessionListEntry' });

export const sessionListSchema = z
  .object({
    total: z.number().int().min(0).describe('Sessions matching the filters, all pages together.'),
    limit: z.number().int(),
    offset: z.number().int(),
    sessions: z.array(sessionListEntrySchema).describe('Most recently used first.'),
  })
  .meta({ id: 'SessionList' });

export const sessionDetailSchema = sessionListEntrySchema
  .extend({
    messageCount: z.number().int().min(0),
    activeRunId: z.string().nullable().describe('The run in progress, if any.'),
    spec: openObject({}).describe(
      'The agent spec the session was created with: its defaults for every message run.',
    ),
  })
  .meta({ id: 'SessionDetail' });

const attachmentMetadataSchema = z
  .discriminatedUnion('type', [
    z.object({
      type: z.literal('input_file'),
      mimeType: z.string(),
      filename: z.string(),
      size: z.number().int().min(0).describe('Bytes.'),
    }),
    z.object({
      type: z.literal('input_file_url'),
      url: z.string(),
      mimeType: z.string().optional(),
      filename: z.string().optional(),
    }),
  ])
  .meta({ id: 'AttachmentMetadata', description: 'An attachment of a stored turn: metadata only.' });

const seq = z.number().int().min(0).describe("The message's position in the whole conversation.");

export const sessionReplayFrameSchema = z
  .discriminatedUnion('type', [
    z
      .object({
        seq,
        type: z.literal('user_message'),
        text: z.string(),
        attachments: z.array(attachmentMetadataSchema).optional(),
      })
      .meta({ id: 'UserMessageFrame' }),
    z
      .object({ seq, type: z.literal('assistant_message'), text: z.string() })
      .meta({ id: 'AssistantMessageFrame' }),
    z
      .object({ seq, type: z.literal('message'), role: z.string(), text: z.string() })
      .meta({ id: 'OtherMessageFrame' }),
  ])
  .meta({
    id: 'SessionReplayFrame',
    description: 'One stored message of a session; tool calls are not replayed.',
  });

export const sessionReplaySchema = z
  .object({
    sessionId: z.string(),
    total: z.number().int().min(0).describe('Messages of the whole session, not of this page.'),
    events: z.array(sessionReplayFrameSchema),
  })
  .meta({ id: 'SessionReplay' });

export const sessionEndedSchema = z
  .object({ sessionId: z.string(), status: sessionStatusSchema })
  .meta({ id: 'SessionEnded', description: 'The session is ended; a run in progress is cancelled.' });

export type _SessionAnswersAgreeWithDomain = [
  Admits<z.output<typeof sessionStatusSchema>, Session['status']>,
  Admits<z.output<typeof attachmentMetadataSchema>, AttachmentMetadata>,
];
