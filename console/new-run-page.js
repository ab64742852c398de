import { useState } from './preact-htm.js';
import { ErrorNotice, PageHeading, html } from './ui.js';

const EXAMPLE_SPEC = JSON.stringify({ systemPrompt: 'You are a helpful assistant.' }, null, 2);

/** The body of `POST {ws}/agent-runs` from the form, or a message saying what to fix. */
function runBody({ source, agentId, spec, modelId, prompt }) {
  let body;
  if (source === 'agent') {
    if (agentId.trim() === '') return { problem: 'Enter the id of a stored agent (agt_…).' };
    body = { agentId: agentId.trim() };
  } else {
    try {
      body = JSON.parse(spec);
    } catch (error) {
      return { problem: `The spec is not valid JSON: ${error.message}` };
    }
    if (!body || typeof body !== 'object' || Array.isArray(body))
      return { problem: 'The spec must be a JSON object.' };
  }
  if (prompt.trim() === '') return { problem: 'Enter a prompt.' };
  return { body: { ...body, ...(modelId !== '' && { modelId }), prompt } };
}

/** Starts a run of a stored agent or of an ephemeral spec, then opens its live view. */
export function NewRunPage({ api, models }) {
  const [form, setForm] = useState({
    source: 'agent',
    agentId: '',
    spec: EXAMPLE_SPEC,
    modelId: '',
    prompt: '',
  });
  const [error, setError] = useState(null);
  const [busy, setBusy] = useState(false);
  const set = (name) => (event) => setForm({ ...form, [name]: event.currentTarget.value });

  async function submit(event) {
    event.preventDefault();
    const { body, problem } = runBody(form);
    if (problem) {
      setError(problem);
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const created = await api.post('/agent-runs', body);
      location.hash = `#/runs/${encodeURIComponent(created.runId)}`;
    } catch (caught) {
      setError(caught);
      setBusy(false);
    }
  }

  return html`<${PageHeading}>New run<//>
    <form class="stack" onSubmit=${submit} novalidate>
      <fieldset>
        <legend>Run</legend>
        <label class="inline"
          ><input
            type="radio"
            name="source"
            value="agent"
            checked=${form.source === 'agent'}
            onChange=${set('source')}
          />
          A stored agent</label
        >
        <label class="inline"
          ><input
            type="radio"
            name="source"
            value="spec"
            checked=${form.source === 'spec'}
            onChange=${set('source')}
          />
          An ephemeral spec (JSON)</label
        >
      </fieldset>
      ${
        form.source === 'agent'
          ? html`<label for="run-agent">Agent id</label
              ><input id="run-agent" placeholder="agt_…" value=${form.agentId} onInput=${set('agentId')} />`
          : html`<label for="run-spec">Agent spec (JSON)</label
              ><textarea
                id="run-spec"
                rows="8"
                spellcheck="false"
                value=${form.spec}
                onInput=${set('spec')}
              ></textarea>`
      }
      <label for="run-model">Model</label>
      <select id="run-model" value=${form.modelId} onChange=${set('modelId')}>
        <option value="">The agent's or workspace's default</option>
        ${models.list.map((model) => html`<option value=${model.id}>${model.label} (${model.id})</option>`)}
      </select>
      <label for="run-prompt">Prompt</label>
      <textarea id="run-prompt" rows="4" value=${form.prompt} onInput=${set('prompt')}></textarea>
      <${ErrorNotice} error=${error} />
      <div class="actions"><button type="submit" class="primary" disabled=${busy}>Start run</button></div>
    </form>`;
}
