export interface WorkspaceFeatures {
  apiKeys: boolean;
  oauthApps: boolean;
}

/** Per-minute maxima of the three metered buckets; absent means the spec's default. */
export interface WorkspaceRateLimits {
  runStart?: number;
  lifecycle?: number;
  otherMutations?: number;
}

export interface Workspace {
  id: string;
  slug: string;
  name: string;
  features: WorkspaceFeatures;
  rateLimits: WorkspaceRateLimits;
  createdAt: string;
  updatedAt: string;
}
