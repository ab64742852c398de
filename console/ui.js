import { html, useLayoutEffect, useRef } from './preact-htm.js';

export { html };

/** The page's heading, focused when the page opens so keyboard and screen-reader users start there. */
export function PageHeading({ children }) {
  const ref = useRef(null);
  useLayoutEffect(() => {
    ref.current?.focus({ preventScroll: true });
  }, []);
  return html`<h1 tabindex="-1" ref=${ref}>${children}</h1>`;
}

export function ErrorNotice({ error }) {
  if (!error) return null;
  const text = error instanceof Error ? error.message : String(error);
  return html`<p class="notice notice-error" role="alert">${text}</p>`;
}

export function StatusBadge({ status }) {
  return html`<span class=${`status status-${status}`}>${status}</span>`;
}

export function formatDate(iso) {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function formatUsd(amount) {
  if (amount === null || amount === undefined) return '—';
  return amount < 0.01 ? `$${amount.toFixed(6)}` : `$${amount.toFixed(4)}`;
}

export function formatNumber(value) {
  return value === null || value === undefined ? '—' : Number(value).toLocaleString();
}

/**
 * A list table in a keyboard-reachable region. Below the narrow breakpoint (console.css) each row is
 * a stacked block and each cell shows its column's name from `data-label`; the explicit table roles
 * keep the header associations for screen readers once CSS changes the rows' display.
 */
export function TableRegion({ label, caption, columns, children }) {
  return html`<div class="table-region" role="region" aria-label=${label} tabindex="0">
    <table class="stacking" role="table">
      <caption class="visually-hidden">
        ${caption}
      </caption>
      <thead role="rowgroup">
        <tr role="row">
          ${columns.map((column) => html`<th scope="col" role="columnheader">${column}</th>`)}
        </tr>
      </thead>
      <tbody role="rowgroup">
        ${children}
      </tbody>
    </table>
  </div>`;
}

/** A row of a TableRegion. */
export function Row({ children }) {
  return html`<tr role="row">
    ${children}
  </tr>`;
}

/** A cell of a TableRegion, labelled with its column's name for the stacked, narrow layout. */
export function Cell({ label, wrap = false, children }) {
  return html`<td role="cell" data-label=${label} class=${wrap ? 'wrap' : undefined}>
    <span class="cell-value">${children}</span>
  </td>`;
}

export const TERMINAL_STATUSES = new Set(['succeeded', 'failed', 'cancelled']);
