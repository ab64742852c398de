import type { Generated } from 'kysely';

/**
 * Row shapes as stored. JSON columns are text (one query codebase for SQLite
 * and PostgreSQL); booleans are integers 0/1; timestamps are ISO 8601 text.
 */
export interface WorkspacesTable {
  id: string;
  slug: string;
  name: string;
  features: string;
  rate_limits: string;
  max_concurrent_runs: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  name: string;
  key_hash: string;
  key_prefix: string;
  usage: string;
  agent_ids: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface OfferingsTable {
  id: string;
  provider: string;
  api: string;
  base_url: string | null;
  api_key_enc: string | null;
  vendor_model_id: string;
  label: string;
  context_window_tokens: number;
  pricing: string | null;
  is_default: number;
  created_at: string;
}

export interface WorkspaceProvidersTable {
  id: string;
  workspace_id: string;
  provider: string;
  api: string;
  base_url: string | null;
  api_key_enc: string | null;
  default_model: string;
  is_default: number;
  created_at: string;
}

export interface ProviderModelsTable {
  provider_id: string;
  workspace_id: string;
  provider: string;
  vendor_model_id: string;
  label: string;
  context_window_tokens: number;
  pricing: string | null;
  position: number;
}

export interface AgentsTable {
  id: string;
  workspace_id: string;
  slug: string;
  name: string;
  system_prompt: string;
  model_id: string | null;
  use_workspace_default_model: number;
  reasoning_level: string | null;
  tools: string;
  is_system: number;
  /** Null on agents stored before migration 0020 and on agents created without one. */
  description: string | null;
  /** JSON `OutputSchemaSetting`, or null. */
  output_schema: string | null;
  created_at: string;
  updated_at: string;
}

export interface WorkspaceToolsTable {
  id: string;
  workspace_id: string;
  name: string;
  description: string;
  parameters: string;
  http: string;
  created_at: string;
}

export interface UsersTable {
  id: string;
  workspace_id: string;
  email: string;
  password_hash: string;
  name: string | null;
  created_at: string;
}

export interface OauthAppsTable {
  id: string;
  workspace_id: string;
  name: string;
  client_secret_hash: string;
  redirect_uris: string;
  created_at: string;
}

/** A console sign-in's access token waiting (at most 60 s) for its browser tab to redeem it. */
export interface ConsoleHandoffsTable {
  id_hash: string;
  workspace_id: string;
  browser_binding_hash: string;
  sealed_token: string;
  token_expires_at: string;
  created_at: string;
  expires_at: string;
}

export interface OauthBrowserSessionsTable {
  id_hash: string;
  workspace_id: string;
  user_id: string | null;
  csrf_secret: string;
  created_at: string;
  expires_at: string;
}

export interface OauthAuthorizationRequestsTable {
  id: string;
  workspace_id: string;
  app_id: string;
  redirect_uri: string;
  /** Space-separated, as in the `scope` parameter. */
  scopes: string;
  state: string | null;
  code_challenge: string;
  created_at: string;
  expires_at: string;
}

export interface OauthAuthorizationCodesTable {
  code_hash: string;
  workspace_id: string;
  app_id: string;
  user_id: string;
  redirect_uri: string;
  scopes: string;
  agent_ids: string;
  code_challenge: string;
  code_challenge_method: string;
  created_at: string;
  expires_at: string;
  /** Set when the code is exchanged; the row stays, so that a second use can be told from an unknown code. */
  used_at: string | null;
  /** The grant the exchange created: what a second use of the code revokes. */
  grant_id: string | null;
}

export interface OauthGrantsTable {
  id: string;
  workspace_id: string;
  app_id: string;
  user_id: string;
  scopes: string;
  agent_ids: string;
  refresh_token_hash: string;
  created_at: string;
  revoked_at: string | null;
}

export interface OauthAccessTokensTable {
  token_hash: string;
  grant_id: string;
  scopes: string;
  created_at: string;
  expires_at: string;
}

/** Client-credentials access tokens: the app acting for itself, with no end user and no grant. */
export interface OauthAppAccessTokensTable {
  token_hash: string;
  workspace_id: string;
  app_id: string;
  scopes: string;
  created_at: string;
  expires_at: string;
}

export interface RunsTable {
  id: string;
  workspace_id: string;
  agent_id: string | null;
  session_id: string | null;
  api_key_id: string | null;
  status: string;
  spec: string;
  metadata: string;
  final_text: string | null;
  error: string | null;
  failure_reason: string | null;
  tokens: string | null;
  turns: number | null;
  model: string | null;
  cancel_requested_at: string | null;
  attempt: Generated<number>;
  /**
   * `waiting`, `admitted` or `parked` while unfinished (see migration 0007), or `session` while a
   * message run waits for its busy session (0017); null once ended.
   */
  dispatch: string | null;
  /** `interrupt` or `rollback`: a later message cancelled this session run (migration 0017). */
  session_cut: string | null;
  wake_at: string | null;
  admission: Generated<number>;
  /** The run's `RunTraceContext` as JSON; null on runs stored before migration 0013. */
  trace_context: string | null;
  created_at: string;
  updated_at: string;
  ended_at: string | null;
}

export interface RunEventsTable {
  run_id: string;
  seq: number;
  type: string;
  data: string;
  created_at: string;
}

export interface RunFeedbackTable {
  id: string;
  workspace_id: string;
  run_id: string;
  verdict: string;
  explanation: string | null;
  content_snapshot: string | null;
  author_api_key_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ToolCallsTable {
  run_id: string;
  tool_use_id: string;
  name: string;
  kind: string;
  status: string;
  result: string | null;
  created_at: string;
  answered_at: string | null;
}

export interface ServerToolCallsTable {
  run_id: string;
  tool_use_id: string;
  name: string;
  kind: string;
  outcome: string | null;
  created_at: string;
  finished_at: string | null;
}

export interface StoredFilesTable {
  storage_key: string;
  workspace_id: string;
  run_id: string;
  filename: string;
  mime_type: string;
  size_bytes: number;
  data: string;
  created_at: string;
}

export interface PluginRecordsTable {
  workspace_id: string;
  agent_id: string;
  namespace: string;
  key: string;
  value: string;
  updated_at: string;
}

export interface RunCheckpointsTable {
  run_id: string;
  seq: number;
  state: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  workspace_id: string;
  api_key_id: string | null;
  status: string;
  spec: string;
  metadata: string;
  summary: string;
  message_count: number;
  active_run_id: string | null;
  created_at: string;
  last_interaction_at: string;
}

export interface SessionMetadataTable {
  session_id: string;
  workspace_id: string;
  key: string;
  value: string;
}

/** A run's metadata as rows (migration 0014), stamped with the run's creation time for the list's order. */
export interface RunMetadataTable {
  run_id: string;
  workspace_id: string;
  key: string;
  value: string;
  created_at: string;
}

export interface SessionMessagesTable {
  session_id: string;
  position: number;
  seq: number | null;
  role: string;
  content: string;
  attachments: string | null;
  tool: string | null;
  run_id: string | null;
  created_at: string;
}

export interface A2aContextsTable {
  workspace_id: string;
  agent_id: string;
  context_id: string;
  session_id: string;
  created_at: string;
}

export interface A2aTasksTable {
  workspace_id: string;
  agent_id: string;
  task_id: string;
  context_id: string;
  run_id: string | null;
  /** The task as A2A 1.0 JSON. */
  task: string;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  workspace_id: string;
  route: string;
  key: string;
  body_hash: string;
  state: 'in_progress' | 'completed';
  claim_token: string;
  resource_id: string;
  response_status: number | null;
  response_body: string | null;
  claimed_at: string;
  expires_at: string;
}

export interface Database {
  workspaces: WorkspacesTable;
  api_keys: ApiKeysTable;
  offerings: OfferingsTable;
  workspace_providers: WorkspaceProvidersTable;
  provider_models: ProviderModelsTable;
  agents: AgentsTable;
  workspace_tools: WorkspaceToolsTable;
  users: UsersTable;
  oauth_apps: OauthAppsTable;
  oauth_browser_sessions: OauthBrowserSessionsTable;
  oauth_authorization_requests: OauthAuthorizationRequestsTable;
  oauth_authorization_codes: OauthAuthorizationCodesTable;
  oauth_grants: OauthGrantsTable;
  oauth_access_tokens: OauthAccessTokensTable;
  oauth_app_access_tokens: OauthAppAccessTokensTable;
  console_handoffs: ConsoleHandoffsTable;
  runs: RunsTable;
  run_events: RunEventsTable;
  run_metadata: RunMetadataTable;
  run_feedback: RunFeedbackTable;
  tool_calls: ToolCallsTable;
  server_tool_calls: ServerToolCallsTable;
  stored_files: StoredFilesTable;
  plugin_records: PluginRecordsTable;
  run_checkpoints: RunCheckpointsTable;
  sessions: SessionsTable;
  session_metadata: SessionMetadataTable;
  session_messages: SessionMessagesTable;
  a2a_contexts: A2aContextsTable;
  a2a_tasks: A2aTasksTable;
  idempotency_keys: IdempotencyKeysTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  schedules: SchedulesTable;
  schedule_fires: ScheduleFiresTable;
}

export interface WebhookEndpointsTable {
  id: string;
  workspace_id: string;
  url: string;
  /** JSON array of event names. */
  events: string;
  description: string | null;
  enabled: number;
  secret_sealed: string;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveriesTable {
  id: string;
  endpoint_id: string;
  run_id: string;
  event: string;
  period: number;
  status: string;
  attempts: number;
  last_status_code: number | null;
  last_error: string | null;
  next_attempt_at: string | null;
  lease_until: string | null;
  payload: string | null;
  created_at: string;
}

export interface SchedulesTable {
  id: string;
  workspace_id: string;
  api_key_id: string;
  agent_id: string;
  cron: string;
  timezone: string;
  /** JSON `{ prompt }` or `{ messages }`. */
  input: string;
  session_id: string | null;
  /** JSON object of strings. */
  metadata: string;
  enabled: number;
  next_run_at: string | null;
  last_run_at: string | null;
  last_run_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface ScheduleFiresTable {
  schedule_id: string;
  scheduled_for: string;
  run_id: string;
  status: string;
  error: string | null;
  lease_until: string;
  created_at: string;
}
