import { useEffect, useReducer, useRef, useState } from './preact-htm.js';
import { applyEvent, costOf, emptyRunModel, statusFromModel } from './run-model.js';
import { followRunStream } from './run-stream.js';
import { TranscriptItem } from './run-items.js';
import { FeedbackForm } from './feedback-form.js';
import {
  ErrorNotice,
  PageHeading,
  StatusBadge,
  TERMINAL_STATUSES,
  formatDate,
  formatNumber,
  formatUsd,
  html,
} from './ui.js';

/** Items drawn at first and added per "Show earlier" press: the page stays light on a long run. */
const PAGE_OF_ITEMS = 200;
const CONNECTION_TEXT = {
  connecting: 'Connecting to the stream…',
  live: 'Live',
  reconnecting: 'Connection lost; reconnecting…',
  ended: 'Stream ended',
  failed: 'Stream refused',
};

/**
 * Events arrive faster than a screen redraws: they are applied to the model as they come and the
 * page is redrawn at most once per animation frame.
 */
function useRunStream(api, runId) {
  const model = useRef(emptyRunModel());
  const [, redraw] = useReducer((count) => count + 1, 0);
  const [connection, setConnection] = useState('connecting');
  const [error, setError] = useState(null);
  useEffect(() => {
    const controller = new AbortController();
    let frame = 0;
    const schedule = () => {
      if (frame === 0) frame = requestAnimationFrame(() => ((frame = 0), redraw()));
    };
    followRunStream({
      api,
      runId,
      signal: controller.signal,
      onEvent: (event) => {
        applyEvent(model.current, event);
        schedule();
      },
      onConnection: setConnection,
    }).catch((caught) => {
      if (caught.status === 401) api.onUnauthorized();
      setConnection('failed');
      setError(caught);
    });
    return () => {
      controller.abort();
      cancelAnimationFrame(frame);
    };
  }, [api, runId]);
  return { model: model.current, connection, error };
}

function useSnapshot(api, runId) {
  const [snapshot, setSnapshot] = useState(null);
  const [error, setError] = useState(null);
  useEffect(() => {
    const controller = new AbortController();
    api
      .get(`/agent-runs/${encodeURIComponent(runId)}`, { signal: controller.signal })
      .then(setSnapshot, (caught) => {
        if (!controller.signal.aborted) setError(caught);
      });
    return () => controller.abort();
  }, [api, runId]);
  return { snapshot, error };
}

function PlanPanel({ plan }) {
  if (!plan) return null;
  return html`<section class="panel" aria-labelledby="plan-heading">
    <h2 id="plan-heading">Plan</h2>
    ${plan.brief ? html`<p>${plan.brief}</p>` : null}
    <ol class="plan">
      ${plan.steps.map((step) => html`<li><${StatusBadge} status=${step.status} /> ${step.title}</li>`)}
    </ol>
  </section>`;
}

function UsagePanel({ terminal, models }) {
  const data = terminal?.data;
  if (!data || !data.tokens) return null;
  const entry = models.list.find((model) => model.id === data.model?.id);
  const cost = costOf(data.tokens, entry?.pricing ?? null);
  return html`<section class="panel" aria-labelledby="usage-heading">
    <h2 id="usage-heading">Usage</h2>
    <dl class="facts">
      <dt>Model</dt>
      <dd>${data.model?.id || data.model?.vendorModelId || '—'}</dd>
      <dt>Turns</dt>
      <dd>${formatNumber(data.turns)}</dd>
      <dt>Input tokens</dt>
      <dd>${formatNumber(data.tokens.inputTokens)}</dd>
      <dt>Cached tokens</dt>
      <dd>${formatNumber(data.tokens.cachedTokens)}</dd>
      <dt>Output tokens</dt>
      <dd>${formatNumber(data.tokens.outputTokens)}</dd>
      <dt>Reasoning tokens</dt>
      <dd>${formatNumber(data.tokens.reasoningTokens)}</dd>
      <dt>Cost</dt>
      <dd>${entry?.pricing ? formatUsd(cost) : 'no pricing in the catalog'}</dd>
    </dl>
  </section>`;
}

function metadataText(metadata) {
  const entries = Object.entries(metadata ?? {});
  return entries.length === 0 ? '—' : entries.map(([key, value]) => `${key}: ${value}`).join(', ');
}

/** A run's live view: its snapshot, then its stream from the first event (replayed, then live). */
export function RunPage({ api, runId, models }) {
  const { snapshot, error: snapshotError } = useSnapshot(api, runId);
  const { model, connection, error: streamError } = useRunStream(api, runId);
  const [shown, setShown] = useState(PAGE_OF_ITEMS);
  const [cancel, setCancel] = useState({ busy: false, error: null, requested: false });
  const status = statusFromModel(model, snapshot?.status ?? 'unknown');
  const active = !TERMINAL_STATUSES.has(status) && model.terminal === null;
  const hidden = Math.max(0, model.items.length - shown);
  const items = hidden > 0 ? model.items.slice(hidden) : model.items;

  async function requestCancel() {
    setCancel({ busy: true, error: null, requested: false });
    try {
      await api.post(`/agent-runs/${encodeURIComponent(runId)}/cancel`, undefined);
      setCancel({ busy: false, error: null, requested: true });
    } catch (error) {
      setCancel({ busy: false, error, requested: false });
    }
  }

  return html`<${PageHeading}>Run <code>${runId}</code><//>
    <${ErrorNotice} error=${snapshotError ?? streamError} />
    <section class="panel run-head" aria-label="Run details">
      <dl class="facts">
        <dt>Status</dt>
        <dd aria-live="polite"><${StatusBadge} status=${status} /></dd>
        <dt>Stream</dt>
        <dd>${CONNECTION_TEXT[connection]}</dd>
        <dt>Agent</dt>
        <dd>${snapshot ? (snapshot.agentId ?? 'ephemeral spec') : '…'}</dd>
        <dt>Session</dt>
        <dd>
          ${snapshot?.sessionId ? html`<a href=${`#/sessions/${encodeURIComponent(snapshot.sessionId)}`}>${snapshot.sessionId}</a>` : '—'}
        </dd>
        <dt>Model</dt>
        <dd>${snapshot ? snapshot.model?.id || snapshot.spec?.modelId || 'workspace default' : '…'}</dd>
        <dt>Created</dt>
        <dd>${formatDate(snapshot?.createdAt)}</dd>
        <dt>Metadata</dt>
        <dd>${metadataText(snapshot?.metadata)}</dd>
        <dt>Events</dt>
        <dd>${formatNumber(model.eventCount)}</dd>
      </dl>
      ${
        active &&
        html`<div class="actions">
          <button
            type="button"
            class="danger"
            disabled=${cancel.busy || cancel.requested}
            onClick=${requestCancel}
          >
            ${cancel.requested ? 'Cancel requested' : 'Cancel run'}
          </button>
        </div>`
      }
      <${ErrorNotice} error=${cancel.error} />
    </section>
    <${PlanPanel} plan=${model.plan} />
    <section class="panel" aria-labelledby="transcript-heading">
      <h2 id="transcript-heading">Transcript</h2>
      ${
        hidden > 0 &&
        html`<button type="button" onClick=${() => setShown(shown + PAGE_OF_ITEMS)}>
          Show earlier items (${formatNumber(hidden)} hidden)
        </button>`
      }
      ${items.length === 0 && html`<p class="muted">${active ? 'Waiting for the first event…' : 'No events.'}</p>`}
      <ol class="transcript">
        ${items.map((item) => html`<${TranscriptItem} key=${item.key} item=${item} api=${api} runId=${runId} active=${active} />`)}
      </ol>
    </section>
    <${UsagePanel} terminal=${model.terminal} models=${models} />
    ${!active && html`<${FeedbackForm} api=${api} runId=${runId} />`}`;
}
