/**
 * The public names of the service's types: aliases of the schemas of its OpenAPI document, generated
 * into `generated/openapi.ts` (the same zod schemas the server validates and answers with).
 */
import type { components } from './generated/openapi.ts';

type Schemas = components['schemas'];

// Run events: `{ seq, type, data }`, `type` discriminating `data`.

/** One event of a run's stream. */
export type RunEvent = Schemas['RunEvent'];
export type RunEventType = RunEvent['type'];
export type RunEventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;
/** The `data` of each event type. */
export type RunEventDataByType = { [T in RunEventType]: RunEventOf<T>['data'] };

export type AssistantDeltaEvent = Schemas['AssistantDeltaEvent'];
export type ThinkingDeltaEvent = Schemas['ThinkingDeltaEvent'];
export type AssistantMessageEvent = Schemas['AssistantMessageEvent'];
export type ToolCallEvent = Schemas['ToolCallEvent'];
export type ToolResultEvent = Schemas['ToolResultEvent'];
export type ToolFilesEvent = Schemas['ToolFilesEvent'];
export type LocalToolCallEvent = Schemas['LocalToolCallEvent'];
export type LocalToolResultInEvent = Schemas['LocalToolResultInEvent'];
export type LoopDetectedEvent = Schemas['LoopDetectedEvent'];
export type ToolBudgetExceededEvent = Schemas['ToolBudgetExceededEvent'];
export type SupervisorEvent = Schemas['SupervisorEvent'];
export type TaskPlanEvent = Schemas['TaskPlanEvent'];
export type ResultEvent = Schemas['ResultEvent'];
export type RunErrorEvent = Schemas['RunErrorEvent'];
export type CancelledEvent = Schemas['CancelledEvent'];

export type AssistantDeltaData = Schemas['AssistantDeltaData'];
export type ThinkingDeltaData = Schemas['ThinkingDeltaData'];
export type AssistantMessageData = Schemas['AssistantMessageData'];
export type ToolCallData = Schemas['ToolCallData'];
export type ToolResultData = Schemas['ToolResultData'];
export type ToolFilesData = Schemas['ToolFilesData'];
export type LocalToolCallData = Schemas['LocalToolCallData'];
export type LocalToolResultInData = Schemas['LocalToolResultInData'];
export type LoopDetectedData = Schemas['LoopDetectedData'];
export type ToolBudgetExceededData = Schemas['ToolBudgetExceededData'];
export type SupervisorData = Schemas['SupervisorData'];
export type TaskPlanData = Schemas['TaskPlanData'];
export type PlanSnapshot = Schemas['PlanSnapshot'];
export type ResultData = Schemas['ResultData'];
export type ErrorData = Schemas['ErrorData'];
export type CancelledData = Schemas['CancelledData'];

export type TokenUsage = Schemas['TokenUsage'];
export type ModelInfo = Schemas['ModelInfo'];
export type StructuredOutputReport = Schemas['StructuredOutputReport'];

export const TERMINAL_EVENT_TYPES = [
  'result',
  'error',
  'cancelled',
] as const satisfies readonly RunEventType[];
export type TerminalEventType = (typeof TERMINAL_EVENT_TYPES)[number];
export type TerminalRunEvent = RunEventOf<TerminalEventType>;

export function isTerminalEvent(event: RunEvent): event is TerminalRunEvent {
  return event.type === 'result' || event.type === 'error' || event.type === 'cancelled';
}

// Runs

export type RunCreateRequest = Schemas['RunCreateRequest'];
export type RunCreated = Schemas['RunCreated'];
export type RunSnapshot = Schemas['RunSnapshot'];
export type RunStructuredOutput = Schemas['RunStructuredOutput'];
export type RunSpec = Schemas['RunSpec'];
export type RunStatus = Schemas['RunStatus'];
export type RunCancelled = Schemas['RunCancelled'];
export type ToolRef = Schemas['ToolRef'];
export type InputMessage = Schemas['InputMessage'];
export type Attachment = Schemas['Attachment'];
export type ToolResultBody = Schemas['ToolResultBody'];
export type ToolResultAccepted = Schemas['ToolResultAccepted'];
export type FeedbackRequest = Schemas['FeedbackRequest'];
export type Feedback = Schemas['Feedback'];
export type FeedbackEntry = Schemas['FeedbackEntry'];
export type FeedbackList = Schemas['FeedbackList'];

// Schedules

export type CreateSchedule = Schemas['CreateSchedule'];
export type UpdateSchedule = Schemas['UpdateSchedule'];
export type Schedule = Schemas['Schedule'];
export type ScheduleList = Schemas['ScheduleList'];
export type ScheduleRunList = Schemas['ScheduleRunList'];

// Webhooks

export type WebhookEvent = Schemas['WebhookEvent'];
export type CreateWebhookEndpoint = Schemas['CreateWebhookEndpoint'];
export type UpdateWebhookEndpoint = Schemas['UpdateWebhookEndpoint'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type CreatedWebhookEndpoint = Schemas['CreatedWebhookEndpoint'];
export type WebhookEndpointList = Schemas['WebhookEndpointList'];
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryList = Schemas['WebhookDeliveryList'];

// Models and identity

export type ModelList = Schemas['ModelList'];
export type ModelCatalogEntry = Schemas['ModelCatalogEntry'];
export type Pricing = Schemas['Pricing'];
export type UserInfo = Schemas['UserInfo'];

// Runs list

export type RunList = Schemas['RunList'];
export type RunListEntry = Schemas['RunListEntry'];

// Sessions

export type SessionCreateRequest = Schemas['SessionCreateRequest'];
export type SessionCreated = Schemas['SessionCreated'];
export type SessionMessageRequest = Schemas['SessionMessageRequest'];
/** What a message to a busy session does: `reject` (the default), `enqueue`, `interrupt`, `rollback`. */
export type IfBusy = NonNullable<SessionMessageRequest['ifBusy']>;
export type SessionStatus = Schemas['SessionStatus'];
export type SessionListEntry = Schemas['SessionListEntry'];
export type SessionList = Schemas['SessionList'];
export type SessionDetail = Schemas['SessionDetail'];
export type SessionReplay = Schemas['SessionReplay'];
export type SessionReplayFrame = Schemas['SessionReplayFrame'];
export type UserMessageFrame = Schemas['UserMessageFrame'];
export type AssistantMessageFrame = Schemas['AssistantMessageFrame'];
export type OtherMessageFrame = Schemas['OtherMessageFrame'];
export type AttachmentMetadata = Schemas['AttachmentMetadata'];
export type SessionEnded = Schemas['SessionEnded'];

// Error bodies

export type ErrorBody = Schemas['ErrorBody'];
export type ModelCandidate = Schemas['ModelCandidate'];
export type InsufficientScopeErrorBody = Schemas['InsufficientScopeError'];
export type CredentialErrorBody = Schemas['CredentialError'];
export type OAuthErrorBody = Schemas['OAuthError'];

// OAuth

export type TokenResponse = Schemas['TokenResponse'];
export type AuthorizationServerMetadata = Schemas['AuthorizationServerMetadata'];

// Hosted A2A agents

/** The v0.3 card `hostedAgents.card()` reads (it sends no `A2A-Version`); it lists the 1.0 interface too. */
export type A2aAgentCard = Schemas['A2aAgentCardV03'];
/** The A2A 1.0 card, served to a GET with `A2A-Version: 1.0` (what the official 1.0 SDK client reads). */
export type A2aAgentCardV1 = Schemas['A2aAgentCardV1'];
export type A2aJsonRpcResponse = Schemas['A2aJsonRpcResponse'];
export type A2aUsage = Schemas['A2aUsage'];
