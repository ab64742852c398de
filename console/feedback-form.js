import { useState } from './preact-htm.js';
import { ErrorNotice, html } from './ui.js';

const LABELS = { UP: 'Helpful', DOWN: 'Not helpful' };

/** `POST {ws}/agent-runs/{runId}/feedback`: a verdict with an optional explanation (a repeat updates it). */
export function FeedbackForm({ api, runId }) {
  const [explanation, setExplanation] = useState('');
  const [saved, setSaved] = useState(null);
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);

  async function send(verdict) {
    setBusy(true);
    setError(null);
    try {
      const body = { verdict, ...(explanation.trim() !== '' && { explanation: explanation.trim() }) };
      await api.post(`/agent-runs/${encodeURIComponent(runId)}/feedback`, body);
      setSaved(verdict);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  }

  return html`<section class="panel" aria-labelledby="feedback-heading">
    <h2 id="feedback-heading">Feedback</h2>
    <label for="feedback-explanation">Explanation (optional)</label>
    <textarea
      id="feedback-explanation"
      rows="2"
      maxlength="8000"
      value=${explanation}
      onInput=${(event) => setExplanation(event.currentTarget.value)}
    ></textarea>
    <div class="actions">
      ${['UP', 'DOWN'].map(
        (verdict) =>
          html`<button
            type="button"
            aria-pressed=${saved === verdict ? 'true' : 'false'}
            disabled=${busy}
            onClick=${() => send(verdict)}
          >
            ${LABELS[verdict]}
          </button>`,
      )}
    </div>
    <${ErrorNotice} error=${error} />
    <p role="status">${saved ? `Feedback saved: ${LABELS[saved]}.` : ''}</p>
  </section>`;
}
