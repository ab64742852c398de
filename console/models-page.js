import { Cell, ErrorNotice, PageHeading, Row, TableRegion, formatNumber, html } from './ui.js';

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
          : html`<${TableRegion}
              label="Models"
              caption="The workspace's models; prices in USD per million tokens"
              columns=${[
                'Model id',
                'Label',
                'Provider',
                'Source',
                'Context window',
                'Input per 1M',
                'Output per 1M',
                'Cached input per 1M',
              ]}
            >
              ${models.list.map(
                (model) =>
                  html`<${Row} key=${model.id}>
                    <${Cell} label="Model id"
                      ><code>${model.id}</code
                      >${model.id === models.defaultModelId ? html` <span class="tag">default</span>` : null}<//
                    >
                    <${Cell} label="Label">${model.label}<//>
                    <${Cell} label="Provider">${model.provider}<//>
                    <${Cell} label="Source">${model.source}<//>
                    <${Cell} label="Context window">${formatNumber(model.contextWindowTokens)}<//>
                    <${Cell} label="Input per 1M">${price(model.pricing?.inputPer1MUsd)}<//>
                    <${Cell} label="Output per 1M">${price(model.pricing?.outputPer1MUsd)}<//>
                    <${Cell} label="Cached input per 1M">${price(model.pricing?.cacheReadPer1MUsd)}<//>
                  <//>`,
              )}
            <//>`
    }`;
}
