import { useEffect, useState } from './preact-htm.js';
import { queryString } from './api.js';
import { Cell, ErrorNotice, PageHeading, Row, StatusBadge, TableRegion, formatDate, html } from './ui.js';

const PAGE_SIZE = 25;

/** `GET {ws}/agent-sessions`: most recently used first, paged by offset. */
export function SessionsPage({ api }) {
  const [status, setStatus] = useState('');
  const [metadataDraft, setMetadataDraft] = useState('');
  const [metadata, setMetadata] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState(null);
  const [error, setError] = useState(null);

  useEffect(() => {
    const controller = new AbortController();
    api
      .get(
        `/agent-sessions${queryString({ status, metadata: metadata.split(/\s+/).filter(Boolean), limit: PAGE_SIZE, offset })}`,
        {
          signal: controller.signal,
        },
      )
      .then(
        (body) => {
          setPage(body);
          setError(null);
        },
        (caught) => controller.signal.aborted || setError(caught),
      );
    return () => controller.abort();
  }, [api, status, metadata, offset]);

  return html`<${PageHeading}>Sessions<//>
    <form
      class="filters"
      aria-label="Filter sessions"
      onSubmit=${(event) => {
        event.preventDefault();
        setOffset(0);
        setMetadata(metadataDraft);
      }}
    >
      <div class="field">
        <label for="session-status">Status</label>
        <select
          id="session-status"
          value=${status}
          onChange=${(event) => {
            setOffset(0);
            setStatus(event.currentTarget.value);
          }}
        >
          <option value="">Any status</option>
          <option value="active">active</option>
          <option value="ended">ended</option>
        </select>
      </div>
      <div class="field">
        <label for="session-metadata">Metadata</label>
        <input
          id="session-metadata"
          placeholder="key:value"
          aria-describedby="session-metadata-hint"
          value=${metadataDraft}
          onInput=${(event) => setMetadataDraft(event.currentTarget.value)}
        />
        <span id="session-metadata-hint" class="hint">key:value pairs, separated by spaces</span>
      </div>
      <div class="field actions"><button type="submit">Apply filters</button></div>
    </form>
    <${ErrorNotice} error=${error} />
    ${
      page === null
        ? html`<p role="status">Loading sessions…</p>`
        : page.sessions.length === 0
          ? html`<p role="status">No sessions.</p>`
          : html`<${TableRegion}
              label="Sessions"
              caption="Sessions, most recently used first"
              columns=${['Session', 'Summary', 'Status', 'Last interaction', 'Created']}
            >
              ${page.sessions.map(
                (session) =>
                  html`<${Row} key=${session.sessionId}>
                    <${Cell} label="Session">
                      <a href=${`#/sessions/${encodeURIComponent(session.sessionId)}`}
                        >${session.sessionId}</a
                      >
                    <//>
                    <${Cell} label="Summary" wrap>${session.summary || '—'}<//>
                    <${Cell} label="Status"><${StatusBadge} status=${session.status} /><//>
                    <${Cell} label="Last interaction">${formatDate(session.lastInteractionDate)}<//>
                    <${Cell} label="Created">${formatDate(session.creationDate)}<//>
                  <//>`,
              )}
            <//>`
    }
    ${
      page &&
      html`<div class="pager">
        <span
          >${page.total === 0 ? '' : `${offset + 1}–${Math.min(offset + PAGE_SIZE, page.total)} of ${page.total}`}</span
        >
        <button
          type="button"
          disabled=${offset === 0}
          onClick=${() => setOffset(Math.max(0, offset - PAGE_SIZE))}
        >
          Newer
        </button>
        <button
          type="button"
          disabled=${offset + PAGE_SIZE >= page.total}
          onClick=${() => setOffset(offset + PAGE_SIZE)}
        >
          Older
        </button>
      </div>`
    }`;
}
