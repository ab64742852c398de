import { ErrorNotice, PageHeading, TableRegion, formatNumber, html } from './ui.js';

function price(value) {
  return value === null || value === undefined ? '—' : `$${value}`;
}

/** The workspace's model catalog (`GET {ws}/models`), with pricing per million tokens. */
export function ModelsPage({ models }) {
  return html`<${PageHeading}>Models<//>
    <${ErrorNotice} error=${models.error} />
    ${
      models.status === 'loading'
        ? html`<p role="status">Loading the catalog…</p>`
        : models.list.length === 0
          ? html`<p role="status">This workspace has no model.</p>`
          : html`<${TableRegion} label="Models">
              <table>
                <caption class="visually-hidden">
                  The workspace's models; prices in USD per million tokens
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Model id</th>
                    <th scope="col">Label</th>
                    <th scope="col">Provider</th>
                    <th scope="col">Source</th>
                    <th scope="col">Context window</th>
                    <th scope="col">Input per 1M</th>
                    <th scope="col">Output per 1M</th>
                    <th scope="col">Cached input per 1M</th>
                  </tr>
                </thead>
                <tbody>
                  ${models.list.map(
                    (model) =>
                      html`<tr key=${model.id}>
                        <td>
                          <code>${model.id}</code
                          >${model.id === models.defaultModelId ? html` <span class="tag">default</span>` : null}
                        </td>
                        <td>${model.label}</td>
                        <td>${model.provider}</td>
                        <td>${model.source}</td>
                        <td>${formatNumber(model.contextWindowTokens)}</td>
                        <td>${price(model.pricing?.inputPer1MUsd)}</td>
                        <td>${price(model.pricing?.outputPer1MUsd)}</td>
                        <td>${price(model.pricing?.cacheReadPer1MUsd)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            <//>`
    }`;
}
