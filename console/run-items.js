import { Component, useState } from './preact-htm.js';
import { ErrorNotice, html } from './ui.js';

function json(value) {
  if (value === undefined) return '';
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

function FileList({ files }) {
  if (!files || files.length === 0) return null;
  return html`<ul class="files" aria-label="Files">
    ${files.map(
      (file) =>
        html`<li>
          ${file.filename}
          <span class="muted"
            >(${file.mimeType}${file.sizeBytes !== undefined ? `, ${file.sizeBytes} bytes` : ''})</span
          >
        </li>`,
    )}
  </ul>`;
}

/** The form that answers a pending client tool call by hand (`POST .../tool-results`). */
function ToolAnswer({ api, runId, item }) {
  const [text, setText] = useState('');
  const [asError, setAsError] = useState(false);
  const [state, setState] = useState({ busy: false, error: null, sent: false });
  const id = `answer-${item.toolUseId}`;
  async function submit(event) {
    event.preventDefault();
    setState({ busy: true, error: null, sent: false });
    try {
      await api.post(`/agent-runs/${encodeURIComponent(runId)}/tool-results`, {
        toolUseId: item.toolUseId,
        ...(asError ? { error: text } : { result: text }),
      });
      setState({ busy: false, error: null, sent: true });
    } catch (error) {
      setState({ busy: false, error, sent: false });
    }
  }
  if (state.sent) return html`<p role="status">Result sent; waiting for the run to continue.</p>`;
  return html`<form class="tool-answer" onSubmit=${submit}>
    <label for=${id}>Result for ${item.name}</label>
    <textarea
      id=${id}
      rows="3"
      value=${text}
      onInput=${(event) => setText(event.currentTarget.value)}
    ></textarea>
    <label class="inline"
      ><input
        type="checkbox"
        checked=${asError}
        onChange=${(event) => setAsError(event.currentTarget.checked)}
      />
      Send as an error</label
    >
    <${ErrorNotice} error=${state.error} />
    <div class="actions">
      <button type="submit" class="primary" disabled=${state.busy}>Send result</button>
    </div>
  </form>`;
}

function ToolItem({ item, api, runId, active }) {
  const kind = item.client
    ? `client tool${item.toolKind && item.toolKind !== 'local' ? ` (${item.toolKind})` : ''}`
    : 'server tool';
  return html`<article class="item item-tool" aria-label=${`Tool call ${item.name}`}>
    <h3>Tool call <code>${item.name}</code> <span class="muted">${kind}</span></h3>
    ${
      item.input !== undefined &&
      html`<details open>
        <summary>Input</summary>
        <pre>${json(item.input)}</pre>
      </details>`
    }
    <${FileList} files=${item.files} />
    ${
      item.outcome
        ? html`<div class=${item.outcome.ok ? 'outcome' : 'outcome outcome-error'}>
            <h4>${item.outcome.ok ? 'Result' : 'Error result'}</h4>
            <pre>${item.outcome.text}</pre>
            <${FileList} files=${item.outcome.files} />
          </div>`
        : item.pending && active
          ? item.client
            ? html`<p class="muted">Waiting for a client to answer this call.</p>
                <${ToolAnswer} api=${api} runId=${runId} item=${item} />`
            : html`<p class="muted">Running…</p>`
          : html`<p class="muted">No result recorded.</p>`
    }
  </article>`;
}

function Item({ item, api, runId, active }) {
  switch (item.kind) {
    case 'text':
      return html`<article class="item item-text" aria-label="Assistant">
        <h3 class="visually-hidden">Assistant</h3>
        <div class="text">${item.text}</div>
        ${item.finishReason && item.finishReason !== 'end_turn' && item.finishReason !== 'tool_use' ? html`<p class="muted">Stopped: ${item.finishReason}</p>` : null}
      </article>`;
    case 'thinking':
      return html`<details class="item item-thinking">
        <summary>Thinking</summary>
        <div class="text">${item.text}</div>
      </details>`;
    case 'tool':
      return html`<${ToolItem} item=${item} api=${api} runId=${runId} active=${active} />`;
    case 'files':
      return html`<article class="item">
        <h3>Files from <code>${item.name}</code></h3>
        <${FileList} files=${item.files} />
      </article>`;
    case 'supervisor':
      return html`<article class="item item-note">
        <h3>Supervisor: ${item.action}</h3>
        <p>${item.reason}</p>
        ${item.redirect ? html`<p>Redirect: ${item.redirect}</p>` : null}
      </article>`;
    case 'loop':
      return html`<article class="item item-note">
        <h3>Loop detected ${item.hardCutoff ? '(finalising)' : '(nudge)'}</h3>
        <p>${item.consecutiveCount} consecutive calls of ${item.tools.join(', ')}</p>
      </article>`;
    case 'budget':
      return html`<article class="item item-note">
        <h3>Tool budget exceeded</h3>
        <p><code>${item.tool}</code>: call ${item.callIndex} of at most ${item.maxCalls}</p>
      </article>`;
    case 'error':
      return html`<article class="item item-error" role="alert">
        <h3>Run failed${item.data.errorClass ? ` (${item.data.errorClass})` : ''}</h3>
        <p>${item.data.error}</p>
        ${
          item.data.partialText
            ? html`<details>
                <summary>Partial text</summary>
                <pre>${item.data.partialText}</pre>
              </details>`
            : null
        }
      </article>`;
    case 'cancelled':
      return html`<article class="item item-note">
        <h3>Run cancelled</h3>
        ${item.data.reason ? html`<p>${item.data.reason}</p>` : null}
      </article>`;
    default:
      return html`<article class="item item-note">
        <h3>Event <code>${item.type}</code></h3>
        <pre>${json(item.data)}</pre>
      </article>`;
  }
}

/** One transcript item, redrawn only when it was replaced (items are never changed in place). */
export class TranscriptItem extends Component {
  shouldComponentUpdate(next) {
    return next.item !== this.props.item || next.active !== this.props.active;
  }
  render(props) {
    return html`<li><${Item} ...${props} /></li>`;
  }
}
