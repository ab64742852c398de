import type { Kysely } from 'kysely';
import type { Database } from '../schema.ts';
import { A2aContextRepository } from './a2a-context-repository.ts';
import { A2aTaskRepository } from './a2a-task-repository.ts';
import { AgentRepository } from './agent-repository.ts';
import { ConsoleHandoffRepository } from './console-handoff-repository.ts';
import { ApiKeyRepository } from './api-key-repository.ts';
import { FeedbackRepository } from './feedback-repository.ts';
import { IdempotencyKeyRepository } from './idempotency-key-repository.ts';
import { OauthAppRepository } from './oauth-app-repository.ts';
import { OAuthFlowRepository } from './oauth-flow-repository.ts';
import { OAuthRepository } from './oauth-repository.ts';
import { OfferingRepository } from './offering-repository.ts';
import { RunCheckpointRepository } from './run-checkpoint-repository.ts';
import { RunDispatchRepository } from './run-dispatch-repository.ts';
import { RunEventRepository } from './run-event-repository.ts';
import { RunRepository } from './run-repository.ts';
import { ServerCallRepository } from './server-call-repository.ts';
import { SessionRepository } from './session-repository.ts';
import { StoredFileRepository } from './stored-file-repository.ts';
import { PluginRecordRepository } from './plugin-record-repository.ts';
import { ToolCallRepository } from './tool-call-repository.ts';
import { UserRepository } from './user-repository.ts';
import { WorkspaceProviderRepository } from './workspace-provider-repository.ts';
import { WorkspaceRepository } from './workspace-repository.ts';
import { WorkspaceToolRepository } from './workspace-tool-repository.ts';
import { WebhookDeliveryRepository } from './webhook-delivery-repository.ts';
import { WebhookEndpointRepository } from './webhook-endpoint-repository.ts';
import { ScheduleRepository } from './schedule-repository.ts';

export interface Repositories {
  workspaces: WorkspaceRepository;
  apiKeys: ApiKeyRepository;
  offerings: OfferingRepository;
  workspaceProviders: WorkspaceProviderRepository;
  agents: AgentRepository;
  workspaceTools: WorkspaceToolRepository;
  users: UserRepository;
  oauthApps: OauthAppRepository;
  oauth: OAuthRepository;
  oauthFlow: OAuthFlowRepository;
  runs: RunRepository;
  dispatch: RunDispatchRepository;
  runEvents: RunEventRepository;
  feedback: FeedbackRepository;
  toolCalls: ToolCallRepository;
  checkpoints: RunCheckpointRepository;
  sessions: SessionRepository;
  serverCalls: ServerCallRepository;
  files: StoredFileRepository;
  pluginRecords: PluginRecordRepository;
  a2aContexts: A2aContextRepository;
  a2aTasks: A2aTaskRepository;
  idempotencyKeys: IdempotencyKeyRepository;
  webhookEndpoints: WebhookEndpointRepository;
  webhookDeliveries: WebhookDeliveryRepository;
  consoleHandoffs: ConsoleHandoffRepository;
  schedules: ScheduleRepository;
}

export function createRepositories(db: Kysely<Database>): Repositories {
  return {
    workspaces: new WorkspaceRepository(db),
    apiKeys: new ApiKeyRepository(db),
    offerings: new OfferingRepository(db),
    workspaceProviders: new WorkspaceProviderRepository(db),
    agents: new AgentRepository(db),
    workspaceTools: new WorkspaceToolRepository(db),
    users: new UserRepository(db),
    oauthApps: new OauthAppRepository(db),
    oauth: new OAuthRepository(db),
    oauthFlow: new OAuthFlowRepository(db),
    runs: new RunRepository(db),
    dispatch: new RunDispatchRepository(db),
    runEvents: new RunEventRepository(db),
    feedback: new FeedbackRepository(db),
    toolCalls: new ToolCallRepository(db),
    checkpoints: new RunCheckpointRepository(db),
    sessions: new SessionRepository(db),
    serverCalls: new ServerCallRepository(db),
    files: new StoredFileRepository(db),
    pluginRecords: new PluginRecordRepository(db),
    a2aContexts: new A2aContextRepository(db),
    a2aTasks: new A2aTaskRepository(db),
    idempotencyKeys: new IdempotencyKeyRepository(db),
    webhookEndpoints: new WebhookEndpointRepository(db),
    webhookDeliveries: new WebhookDeliveryRepository(db),
    consoleHandoffs: new ConsoleHandoffRepository(db),
    schedules: new ScheduleRepository(db),
  };
}
