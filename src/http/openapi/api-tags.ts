/** The groups of the API reference, in the order it shows them. */
export const API_TAGS = {
  runs: 'Start runs, follow their event streams, answer client-resolved tool calls, cancel them.',
  sessions: 'Conversations whose message runs inherit the history and defaults of the session.',
  models: 'The models a workspace can run.',
  feedback: 'Thumbs up or down on runs.',
  webhooks: 'Signed notifications of run events to your endpoints (API keys only).',
  schedules: 'Stored agents run on a cron schedule (API keys only).',
  identity: 'Who a credential belongs to.',
  a2a: 'Workspace agents served over the Agent-to-Agent protocol (A2A v0.3).',
  mcp: 'Workspace agents served as the tools of an MCP server (Streamable HTTP).',
  'ag-ui': 'Workspace agents served to AG-UI 1.0 front ends.',
  oauth: 'The OAuth 2.0 authorization server: discovery, sign-in and consent pages, tokens, revocation.',
  health: 'Liveness and readiness probes.',
  reference: 'This document and its readable page.',
  console: 'The web console: its page, its static files and its OAuth sign-in.',
  admin: 'The operator API under /admin/v1 (enabled by AGENT_RUNS_ADMIN_TOKEN).',
} as const;

export type ApiTag = keyof typeof API_TAGS;
