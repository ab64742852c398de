export interface WorkspaceFeatures {
  apiKeys: boolean;
  oauthApps: boolean;
}

/** Per-minute maxima of the three metered buckets; absent means the spec's default. */
export interface WorkspaceRateLimits {
  runStart?: number;
  lifecycle?: number;
  otherMutations?: number;
  /** Reads, status checks, SSE opens and reconnects (a separate, high limit). */
  transport?: number;
}

/** Runs of a workspace executing at once across all workers, unless the operator sets another number. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 100;

export interface Workspace {
  id: string;
  slug: string;
  name: string;
  features: WorkspaceFeatures;
  rateLimits: WorkspaceRateLimits;
  /** Runs executing at once across all workers; the rest wait queued, in order. */
  maxConcurrentRuns: number;
  createdAt: string;
  updatedAt: string;
}
