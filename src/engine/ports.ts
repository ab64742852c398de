/**
 * The engine's ports: everything it needs from storage, transport, model
 * providers and tool kinds. Adapters implement these and import only `domain/`
 * and this file; the engine reaches no adapter except through them.
 */
export type * from './ports/runs.ts';
export type * from './ports/event-log.ts';
export type * from './ports/sessions.ts';
export type * from './ports/tool-records.ts';
export type * from './ports/workspace-config.ts';
export type * from './ports/a2a.ts';
export type * from './ports/transport.ts';
export type * from './ports/tools.ts';
export type * from './ports/judge.ts';
export type * from './ports/planner.ts';
export type * from './ports/identity.ts';
export type {
  CompletedTurn,
  ModelCall,
  ModelPort,
  ModelResolver,
  ModelToolChoice,
  ModelToolDefinition,
  ModelTurnOutput,
  ProviderErrorClass,
  ProviderFailure,
  ResponseFormat,
  ToolCallRequest,
} from './ports/model.ts';
export { ModelTurnError, modelErrorClass } from './ports/model.ts';
export type * from './ports/workspace-admin.ts';
export type * from './ports/metrics.ts';
export type * from './ports/tracing.ts';
export type * from './ports/idempotency.ts';
export type * from './ports/webhooks.ts';
export type * from './ports/schedules.ts';
