import type { ConsoleSignIn } from '../auth/console/console-sign-in.ts';
import type { AuthorizationPagesFlow } from '../auth/oauth/authorization-pages-flow.ts';
import type { AuthorizationServer } from '../auth/oauth/authorization-server.ts';
import type { WorkspaceCredentials } from '../auth/workspace-credentials.ts';
import type { Config } from '../config.ts';
import type {
  A2aTaskStore,
  AgentAdminStore,
  ApiKeyAdminStore,
  EventStore,
  FeedbackStore,
  IdempotencyKeyStore,
  MetricsExposition,
  OAuthAppStore,
  OAuthGrantAdminStore,
  OAuthStore,
  OfferingStore,
  RateCounters,
  RunEventBus,
  RunEventLookup,
  RunStore,
  SecretSealer,
  SessionStore,
  StorageHealth,
  UserStore,
  WorkspaceProviderStore,
  WorkspaceStore,
  WorkspaceToolAdminStore,
  WebhookDeliveryStore,
  WebhookEndpointStore,
} from '../engine/ports.ts';
import type { RunService } from '../engine/lifecycle/run-service.ts';
import type { AgentThreads } from '../engine/lifecycle/agent-threads.ts';
import type { ScheduleService } from '../engine/schedules/schedule-service.ts';
import type { HostedAgents } from '../engine/lifecycle/hosted-agents.ts';
import type { SessionService } from '../engine/lifecycle/session-service.ts';
import type { ModelCatalog } from '../providers/model-catalog.ts';

/** The stores route handlers read and write: storage's repositories, seen through the engine's ports. */
export interface AppStores {
  workspaces: WorkspaceStore;
  apiKeys: ApiKeyAdminStore;
  agents: AgentAdminStore;
  workspaceTools: WorkspaceToolAdminStore;
  users: UserStore;
  oauthApps: OAuthAppStore;
  oauth: OAuthStore & OAuthGrantAdminStore;
  runs: RunStore;
  offerings: OfferingStore;
  workspaceProviders: WorkspaceProviderStore;
  feedback: FeedbackStore;
  idempotencyKeys: IdempotencyKeyStore;
  /** Read by an idempotent session creation that takes over a crashed one's key. */
  sessions: Pick<SessionStore, 'findById'>;
  webhookEndpoints: WebhookEndpointStore;
  webhookDeliveries: WebhookDeliveryStore;
  a2aTasks: A2aTaskStore;
}

/** Everything route handlers use, built once by the composition root and injected into the app. */
export interface AppResources {
  config: Config;
  /** Pinged by readiness. */
  storage: StorageHealth;
  repos: AppStores;
  catalog: ModelCatalog;
  /** Creates API keys, users and OAuth apps, with their secrets generated and stored hashed. */
  credentials: WorkspaceCredentials;
  /** The OAuth authorization server (codes, tokens, revocation) and its sign-in and consent flow. */
  oauth: { server: AuthorizationServer; pages: AuthorizationPagesFlow };
  /** The console's OAuth sign-in: the service runs the flow for the console and hands the tab its token. */
  consoleSignIn: ConsoleSignIn;
  /** Seals provider keys before they are stored. */
  secretBox: SecretSealer;
  /** The service secret (`AGENT_RUNS_SECRET` or the generated one): keys for signing are derived from it. */
  serviceSecret: string;
  engine: {
    runs: RunService;
    sessions: SessionService;
    schedules: ScheduleService;
    /** Workspace agents served to A2A peers (the hosted A2A endpoint). */
    hostedAgents: HostedAgents;
    /** Workspace agents served to AG-UI front ends (the AG-UI endpoint). */
    agentThreads: AgentThreads;
    events: EventStore & RunEventLookup;
    bus: RunEventBus;
    /** Idle SSE connections get a comment line this often. */
    heartbeatMs: number;
    /** This process's webhook deliverer looks at the outbox now (absent where none runs: the API role). */
    wakeWebhooks?: () => void;
  };
  /** Rate-limit counters (memory when embedded, Redis in scale-out). */
  rateCounters: RateCounters;
  /** Scale-out only: the Redis connection, for readiness. */
  redis?: { ping(): Promise<void> };
  /**
   * Aborted when the process begins to stop (SIGTERM): readiness answers `503 stopping` while
   * in-flight work drains, open streams end (their clients resume on another replica) and new ones
   * are refused with `503 unavailable`.
   */
  stopping: AbortSignal;
  /** This process's metrics: counted by the app's hooks and routes, exposed by `GET /metrics`. */
  metrics: MetricsExposition;
  /** Admin token that the in-process CLI uses when the operator set none. */
  adminToken: string | undefined;
}
