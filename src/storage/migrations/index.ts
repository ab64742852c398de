import type { Migration, MigrationProvider } from 'kysely/migration';
import { foundation } from './0001-foundation.ts';
import { toolCalls } from './0002-tool-calls.ts';
import { runCheckpoints } from './0003-run-checkpoints.ts';
import { sessions } from './0004-sessions.ts';
import { runAttempts } from './0005-run-attempts.ts';
import { unfinishedRuns } from './0006-unfinished-runs.ts';
import { runDispatch } from './0007-run-dispatch.ts';
import { serverTools } from './0008-server-tools.ts';
import { oauth } from './0009-oauth.ts';
import { a2aContexts } from './0010-a2a-contexts.ts';
import { oauthCodeReuseAndAppTokens } from './0011-oauth-code-reuse-and-app-tokens.ts';
import { checkpointSchedule } from './0012-checkpoint-schedule.ts';
import { runTraceContext } from './0013-run-trace-context.ts';
import { runsList } from './0014-runs-list.ts';
import { idempotencyKeys } from './0015-idempotency-keys.ts';
import { webhooks } from './0016-webhooks.ts';
import { busySessions } from './0017-busy-sessions.ts';
import { schedules } from './0018-schedules.ts';
import { consoleHandoffs } from './0019-console-handoffs.ts';
import { agentDescriptionAndOutputSchema } from './0020-agent-description-and-output-schema.ts';
import { a2aTasks } from './0021-a2a-tasks.ts';
import { runEventsWithoutForeignKey } from './0022-run-events-without-foreign-key.ts';

/** Every migration in order; names sort lexically, so keep the numeric prefix. */
const MIGRATIONS: Record<string, Migration> = {
  '0001-foundation': foundation,
  '0002-tool-calls': toolCalls,
  '0003-run-checkpoints': runCheckpoints,
  '0004-sessions': sessions,
  '0005-run-attempts': runAttempts,
  '0006-unfinished-runs': unfinishedRuns,
  '0007-run-dispatch': runDispatch,
  '0008-server-tools': serverTools,
  '0009-oauth': oauth,
  '0010-a2a-contexts': a2aContexts,
  '0011-oauth-code-reuse-and-app-tokens': oauthCodeReuseAndAppTokens,
  '0012-checkpoint-schedule': checkpointSchedule,
  '0013-run-trace-context': runTraceContext,
  '0014-runs-list': runsList,
  '0015-idempotency-keys': idempotencyKeys,
  '0016-webhooks': webhooks,
  '0017-busy-sessions': busySessions,
  '0018-schedules': schedules,
  '0019-console-handoffs': consoleHandoffs,
  '0020-agent-description-and-output-schema': agentDescriptionAndOutputSchema,
  '0021-a2a-tasks': a2aTasks,
  '0022-run-events-without-foreign-key': runEventsWithoutForeignKey,
};

export const migrationProvider: MigrationProvider = {
  getMigrations: async () => MIGRATIONS,
};
