/** Figures as the bench prints them: fixed decimals, 'n/a' for what was not measured. */
export const f1 = (value: number) => (Number.isFinite(value) ? value.toFixed(1) : 'n/a');
export const f2 = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : 'n/a');
export const f3 = (value: number) => (Number.isFinite(value) ? value.toFixed(3) : 'n/a');
export const int = (value: number) => (Number.isFinite(value) ? String(Math.round(value)) : 'n/a');
export const signed = (value: number) =>
  Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(1)}` : 'n/a';
