export type FeedbackVerdict = 'UP' | 'DOWN';

/** One verdict per (workspace, run); a repeat call updates it. */
export interface RunFeedback {
  id: string;
  workspaceId: string;
  runId: string;
  verdict: FeedbackVerdict;
  explanation: string | null;
  contentSnapshot: string | null;
  /** The API key that gave the verdict; null for OAuth tokens. */
  authorApiKeyId: string | null;
  createdAt: string;
  updatedAt: string;
}
