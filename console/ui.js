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

/** A wide table in a region that scrolls sideways on a narrow screen, reachable by keyboard. */
export function TableRegion({ label, children }) {
  return html`<div class="table-region" role="region" aria-label=${label} tabindex="0">${children}</div>`;
}

export const TERMINAL_STATUSES = new Set(['succeeded', 'failed', 'cancelled']);
