const SHORT_OPENER_CHARS = 24;
const SUMMARY_MAX_CHARS = 120;

/**
 * A best-effort label from the first user prompt: a very short opener ("hi")
 * is extended with the following messages until it says something.
 */
export function sessionSummary(messages: ReadonlyArray<{ role: string; content: string }>): string {
  const firstUser = messages.findIndex((message) => message.role === 'user' && message.content.trim() !== '');
  if (firstUser === -1) return '';
  let summary = collapse(messages[firstUser]?.content ?? '');
  for (const message of messages.slice(firstUser + 1)) {
    if (summary.length >= SHORT_OPENER_CHARS) break;
    if (message.role === 'system' || message.content.trim() === '') continue;
    summary = `${summary} / ${collapse(message.content)}`;
  }
  return summary.length > SUMMARY_MAX_CHARS ? `${summary.slice(0, SUMMARY_MAX_CHARS - 1)}…` : summary;
}

/** The summary after a run appended `messages`: a summary still too short keeps growing with later runs. */
export function extendSessionSummary(
  current: string,
  messages: ReadonlyArray<{ role: string; content: string }>,
): string {
  if (current === '') return sessionSummary(messages);
  if (current.length >= SHORT_OPENER_CHARS) return current;
  let summary = current;
  for (const message of messages) {
    if (summary.length >= SHORT_OPENER_CHARS) break;
    if (message.role === 'system' || message.content.trim() === '') continue;
    summary = `${summary} / ${collapse(message.content)}`;
  }
  return summary.length > SUMMARY_MAX_CHARS ? `${summary.slice(0, SUMMARY_MAX_CHARS - 1)}…` : summary;
}

function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
