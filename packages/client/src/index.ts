export { AgentRunsClient, type AgentRunsClientOptions } from './client.ts';
export type { Credential, OAuthCredential, OAuthTokens } from './credentials.ts';
export {
  A2aJsonRpcError,
  AgentRunsError,
  ApiKeysPlanError,
  ConflictError,
  ConnectionError,
  ForbiddenError,
  InsufficientScopeError,
  InternalServerError,
  InvalidModelError,
  InvalidRequestError,
  NotFoundError,
  OAuthAppsPlanError,
  OAuthRefreshError,
  PayloadTooLargeError,
  RateLimitError,
  RunStreamError,
  RunTerminalError,
  SessionBusyError,
  IdempotencyKeyInUseError,
  IdempotencyKeyReusedError,
  SessionEndedError,
  StorageUnavailableError,
  TimeoutError,
  UnauthorizedError,
  UnknownToolUseError,
  UnsupportedMediaTypeError,
  type AgentRunsErrorInit,
} from './errors.ts';
export { errorCodeOf, errorFor } from './error-from-response.ts';
export { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes.ts';
export type { FollowedRuns, FollowRunOptions, RunOutcome, RunTools, RunToolsSession } from './follow-run.ts';
export type { RequestOptions } from './http-transport.ts';
export type { ReconnectOptions } from './reconnect-policy.ts';
export type { RunStreamOptions } from './run-stream.ts';
export type {
  HostedAgentMessage,
  HostedAgentReply,
  HostedAgentsResource,
} from './resources/hosted-agents.ts';
export type { IdentityResource } from './resources/identity.ts';
export type { ModelsResource } from './resources/models.ts';
export type { ReplyFeedbackResource } from './resources/reply-feedback.ts';
export type { RunListQuery, RunsResource } from './resources/runs.ts';
export type {
  SessionEventsQuery,
  SessionListQuery,
  SessionSendOptions,
  SessionsResource,
} from './resources/sessions.ts';
export type { WebhooksResource } from './resources/webhooks.ts';
export type { SchedulesResource } from './resources/schedules.ts';
export * from './types.ts';
export type { components, operations, paths } from './generated/openapi.ts';

// ── Local tools and bridges (tools/, bridges/) ────────────────────────────────
export {
  LocalToolDispatcher,
  type AttachResult,
  type DispatcherClient,
  type LocalToolDispatcherOptions,
  type LocalToolHandler,
  type LocalToolOptions,
  type OpenOptions,
  type RunEventSource,
} from './tools/local-tool-dispatcher.ts';
export {
  RunToolSession,
  type CallExecutor,
  type CallOutcome,
  type CallReport,
  type RunToolSessionOptions,
} from './tools/run-tool-session.ts';
export type { LocalToolContext, ToolBridge } from './tools/tool-bridge.ts';
export type { ClientToolKind, LocalToolCall, RunEventLike } from './tools/local-tool-call.ts';
export {
  withFiles,
  ToolResultWithFiles,
  ERROR_MAX_BYTES,
  RESULT_MAX_BYTES,
  type ToolAnswer,
  type ToolResultFile,
} from './tools/tool-answer.ts';
export type { PostOutcome, ToolResultPoster } from './tools/post-tool-answer.ts';
export type { PendingCallsReader } from './tools/pending-calls.ts';
export type {
  A2aLocalToolRef,
  ClientToolRef,
  LocalToolRef,
  McpLocalToolEntry,
  McpLocalToolRef,
} from './tools/tool-refs.ts';
export {
  McpLocalBridge,
  type McpLocalBridgeOptions,
  type McpStdioBridgeOptions,
} from './bridges/mcp-local-bridge.ts';
export { A2aLocalBridge, type A2aLocalBridgeOptions } from './bridges/a2a-local-bridge.ts';
