import { apiKeyAuthorizer, type Authorizer, type Credential, type OAuthTokens } from './credentials.ts';
import { HttpTransport } from './http-transport.ts';
import { OAuthAuthorizer } from './oauth-authorizer.ts';
import { DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS } from './retry-policy.ts';
import { HostedAgentsResource } from './resources/hosted-agents.ts';
import { IdentityResource } from './resources/identity.ts';
import { ModelsResource } from './resources/models.ts';
import { ReplyFeedbackResource } from './resources/reply-feedback.ts';
import { RunsResource } from './resources/runs.ts';
import { SessionsResource } from './resources/sessions.ts';
import { WebhooksResource } from './resources/webhooks.ts';
import { SchedulesResource } from './resources/schedules.ts';
import { segment } from './resources/workspace-context.ts';

export interface AgentRunsClientOptions {
  /** The service's base address, e.g. `https://agents.example.com`. */
  baseUrl: string | URL;
  /** The workspace slug (`/api/v1/workspaces/{slug}`). */
  workspace: string;
  /** A workspace API key (`svc_…`) or an OAuth credential, refreshed as needed. */
  credential: Credential;
  /** The fetch to use (the global one by default). */
  fetch?: typeof fetch;
  /**
   * Further attempts of a call after a connection error, a timeout, 408, 429 or 5xx (default 2);
   * never for a call that starts a run without an `idempotencyKey`. Per call: `RequestOptions`.
   */
  maxRetries?: number;
  /**
   * Milliseconds one attempt of a call may take, to the last byte of its answer (default 10
   * minutes). A run's stream is not bound by it: its `reconnect` options govern it.
   */
  timeout?: number;
}

/** The agent-runs service for one workspace and credential: a method for every public route. */
export class AgentRunsClient {
  readonly baseUrl: URL;
  readonly workspace: string;
  readonly models: ModelsResource;
  readonly runs: RunsResource;
  readonly sessions: SessionsResource;
  readonly replyFeedback: ReplyFeedbackResource;
  readonly identity: IdentityResource;
  readonly hostedAgents: HostedAgentsResource;
  /** Webhook endpoints and their deliveries (API keys only). */
  readonly webhooks: WebhooksResource;
  /** Stored agents run on a cron schedule (API keys only). */
  readonly schedules: SchedulesResource;
  readonly #authorizer: Authorizer;

  constructor(options: AgentRunsClientOptions) {
    this.baseUrl = new URL(options.baseUrl);
    this.workspace = options.workspace;
    const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
    this.#authorizer =
      typeof options.credential === 'string'
        ? apiKeyAuthorizer(options.credential)
        : new OAuthAuthorizer({ credential: options.credential, baseUrl: this.baseUrl, fetch: fetchImpl });
    const context = {
      transport: new HttpTransport({
        baseUrl: this.baseUrl,
        authorizer: this.#authorizer,
        fetch: fetchImpl,
        maxRetries: options.maxRetries ?? DEFAULT_MAX_RETRIES,
        timeout: options.timeout ?? DEFAULT_TIMEOUT_MS,
      }),
      workspace: options.workspace,
      workspacePath: `/api/v1/workspaces/${segment(options.workspace)}`,
    };
    this.models = new ModelsResource(context);
    this.runs = new RunsResource(context);
    this.sessions = new SessionsResource(context, this.runs);
    this.replyFeedback = new ReplyFeedbackResource(context);
    this.identity = new IdentityResource(context);
    this.hostedAgents = new HostedAgentsResource(context);
    this.webhooks = new WebhooksResource(context);
    this.schedules = new SchedulesResource(context);
  }

  /** The OAuth tokens currently in use (after any refresh); undefined for an API key. */
  get oauthTokens(): OAuthTokens | undefined {
    return this.#authorizer instanceof OAuthAuthorizer ? this.#authorizer.tokens : undefined;
  }
}
