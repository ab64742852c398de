import { useEffect, useState } from './preact-htm.js';
import { queryString } from './api.js';
import {
  Cell,
  ErrorNotice,
  PageHeading,
  Row,
  StatusBadge,
  TableRegion,
  TERMINAL_STATUSES,
  formatDate,
  formatNumber,
  html,
} from './ui.js';

const STATUSES = ['queued', 'running', 'waiting', 'succeeded', 'failed', 'cancelled'];
/** How often the page asks again while a run on it is still going, and otherwise. */
const LIVE_REFRESH_MS = 2000;
const IDLE_REFRESH_MS = 15000;

function filtersFrom(query) {
  return {
    status: query.get('status') ?? '',
    agentId: query.get('agentId') ?? '',
    sessionId: query.get('sessionId') ?? '',
    metadata: query.getAll('metadata').join(' '),
  };
}

/** `GET {ws}/agent-runs` (extensions §4), newest first, a page at a time, refreshed while runs are live. */
export function RunsPage({ api, query }) {
  const [draft, setDraft] = useState(() => filtersFrom(query));
  const [filters, setFilters] = useState(() => filtersFrom(query));
  // Cursors of the pages before this one: "Newer" goes back by popping.
  const [cursors, setCursors] = useState([]);
  const [cursor, setCursor] = useState(null);
  const [page, setPage] = useState({ runs: null, nextCursor: null });
  const [error, setError] = useState(null);
  const [refreshTick, setRefreshTick] = useState(0);

  useEffect(() => {
    const controller = new AbortController();
    const path = `/agent-runs${queryString({
      status: filters.status,
      agentId: filters.agentId.trim(),
      sessionId: filters.sessionId.trim(),
      metadata: filters.metadata.split(/\s+/).filter(Boolean),
      limit: 25,
      cursor,
    })}`;
    let timer;
    api.get(path, { signal: controller.signal }).then(
      (body) => {
        setPage({ runs: body.runs ?? [], nextCursor: body.nextCursor ?? null });
        setError(null);
        const live = (body.runs ?? []).some((run) => !TERMINAL_STATUSES.has(run.status));
        timer = setTimeout(
          () => setRefreshTick((tick) => tick + 1),
          live ? LIVE_REFRESH_MS : IDLE_REFRESH_MS,
        );
      },
      (caught) => {
        if (controller.signal.aborted) return;
        setError(caught);
        setPage((current) => ({ ...current, runs: current.runs ?? [] }));
      },
    );
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [api, filters, cursor, refreshTick]);

  function apply(event) {
    event.preventDefault();
    setCursors([]);
    setCursor(null);
    setFilters({ ...draft });
  }
  const field = (name) => ({
    value: draft[name],
    onInput: (event) => setDraft({ ...draft, [name]: event.currentTarget.value }),
  });

  return html`<${PageHeading}>Runs<//>
    <form class="filters" onSubmit=${apply} aria-label="Filter runs">
      <div class="field">
        <label for="filter-status">Status</label>
        <select
          id="filter-status"
          ...${field('status')}
          onChange=${(event) => setDraft({ ...draft, status: event.currentTarget.value })}
        >
          <option value="">Any status</option>
          ${STATUSES.map((status) => html`<option value=${status}>${status}</option>`)}
        </select>
      </div>
      <div class="field">
        <label for="filter-agent">Agent id</label><input id="filter-agent" ...${field('agentId')} />
      </div>
      <div class="field">
        <label for="filter-session">Session id</label><input id="filter-session" ...${field('sessionId')} />
      </div>
      <div class="field">
        <label for="filter-metadata">Metadata</label>
        <input
          id="filter-metadata"
          placeholder="key:value"
          aria-describedby="filter-metadata-hint"
          ...${field('metadata')}
        />
        <span id="filter-metadata-hint" class="hint">key:value pairs, separated by spaces</span>
      </div>
      <div class="field actions"><button type="submit">Apply filters</button></div>
    </form>
    <${ErrorNotice} error=${error} />
    ${
      page.runs === null
        ? html`<p role="status">Loading runs…</p>`
        : page.runs.length === 0
          ? html`<p role="status">No runs match.</p>`
          : html`<${TableRegion}
              label="Runs"
              caption="Runs, newest first"
              columns=${['Run', 'Status', 'Agent', 'Model', 'Created', 'Tokens', 'Turns']}
            >
              ${page.runs.map(
                (run) =>
                  html`<${Row} key=${run.runId}>
                    <${Cell} label="Run"
                      ><a href=${`#/runs/${encodeURIComponent(run.runId)}`}>${run.runId}</a><//
                    >
                    <${Cell} label="Status"><${StatusBadge} status=${run.status} /><//>
                    <${Cell} label="Agent">${run.agentId ?? 'ephemeral'}<//>
                    <${Cell} label="Model">${run.model?.id || run.model?.vendorModelId || '—'}<//>
                    <${Cell} label="Created">${formatDate(run.createdAt)}<//>
                    <${Cell} label="Tokens"
                      >${run.tokens ? formatNumber(run.tokens.inputTokens + run.tokens.outputTokens) : '—'}<//
                    >
                    <${Cell} label="Turns">${formatNumber(run.turns)}<//>
                  <//>`,
              )}
            <//>`
    }
    <div class="pager">
      <button
        type="button"
        disabled=${cursors.length === 0}
        onClick=${() => {
          setCursor(cursors.at(-1) ?? null);
          setCursors(cursors.slice(0, -1));
        }}
      >
        Newer
      </button>
      <button
        type="button"
        disabled=${!page.nextCursor}
        onClick=${() => {
          setCursors([...cursors, cursor]);
          setCursor(page.nextCursor);
        }}
      >
        Older
      </button>
    </div>`;
}
