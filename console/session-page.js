import { useEffect, useState } from './preact-htm.js';
import { ErrorNotice, PageHeading, html } from './ui.js';

const ROLE_LABELS = { user_message: 'User', assistant_message: 'Assistant' };

function Attachments({ attachments }) {
  if (!attachments || attachments.length === 0) return null;
  return html`<ul class="files" aria-label="Attachments">
    ${attachments.map((file) => html`<li>${file.filename ?? file.url ?? 'file'} <span class="muted">(${file.mimeType ?? 'unknown type'})</span></li>`)}
  </ul>`;
}

/** A session's replay (`GET {ws}/agent-sessions/{id}/events`): its conversation, message by message. */
export function SessionPage({ api, sessionId }) {
  const [replay, setReplay] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const controller = new AbortController();
    api
      .get(`/agent-sessions/${encodeURIComponent(sessionId)}/events`, { signal: controller.signal })
      .then(setReplay, (caught) => {
        if (!controller.signal.aborted) setError(caught);
      });
    return () => controller.abort();
  }, [api, sessionId]);

  return html`<${PageHeading}>Session <code>${sessionId}</code><//>
    <p><a href=${`#/runs?sessionId=${encodeURIComponent(sessionId)}`}>Runs of this session</a></p>
    <${ErrorNotice} error=${error} />
    ${
      replay === null && !error
        ? html`<p role="status">Loading the conversation…</p>`
        : replay &&
          html`<section class="panel" aria-labelledby="replay-heading">
            <h2 id="replay-heading">Conversation (${replay.total} messages)</h2>
            ${replay.events.length === 0 && html`<p class="muted">No messages yet.</p>`}
            <ol class="transcript replay">
              ${replay.events.map(
                (frame) =>
                  html`<li key=${frame.seq}>
                    <article
                      class=${`item message message-${frame.type}`}
                      aria-label=${ROLE_LABELS[frame.type] ?? frame.role ?? 'Message'}
                    >
                      <h3>${ROLE_LABELS[frame.type] ?? frame.role ?? 'Message'}</h3>
                      <div class="text">
                        ${typeof frame.text === 'string' ? frame.text : JSON.stringify(frame.content ?? frame)}
                      </div>
                      <${Attachments} attachments=${frame.attachments} />
                    </article>
                  </li>`,
              )}
            </ol>
          </section>`
    }`;
}
