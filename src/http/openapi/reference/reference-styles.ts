/** The reference page's styles: the look of the sign-in and consent pages, widened for a long document. */
export const REFERENCE_STYLES = `
:root {
  color-scheme: light dark;
  font-family: system-ui, -apple-system, 'Segoe UI', sans-serif;
  --line: #8886;
  --soft: #8881;
}
body { margin: 0; background: Canvas; color: CanvasText; line-height: 1.45; }
a { color: #1d4ed8; }
@media (prefers-color-scheme: dark) { a { color: #93b4ff; } }
:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
.top { padding: 1.2rem 1.5rem; border-bottom: 1px solid var(--line); }
.top h1 { font-size: 1.5rem; margin: 0 0 0.3rem; }
.top p { margin: 0; }
.layout { display: flex; align-items: flex-start; }
nav { position: sticky; top: 0; flex: 0 0 17rem; max-height: 100vh; overflow-y: auto; box-sizing: border-box;
  padding: 1rem 0.8rem 2rem 1.2rem; border-right: 1px solid var(--line); font-size: 0.88rem; }
nav ul { list-style: none; margin: 0; padding: 0; }
nav > ul > li { margin: 0.5rem 0; font-weight: 600; }
nav li li { font-weight: 400; margin: 0.15rem 0 0.15rem 0.4rem; }
nav a { color: inherit; text-decoration: none; }
nav a:hover { text-decoration: underline; }
main { flex: 1; min-width: 0; max-width: 62rem; padding: 0 1.8rem 4rem; }
h2 { font-size: 1.35rem; margin: 2.5rem 0 0.5rem; padding-top: 0.5rem; border-top: 2px solid var(--line); }
h3 { font-size: 1.08rem; margin: 0 0 0.3rem; overflow-wrap: anywhere; }
h4 { font-size: 0.95rem; margin: 1.2rem 0 0.4rem; }
code { font-size: 0.86em; font-family: ui-monospace, 'SFMono-Regular', Menlo, Consolas, monospace; }
.operation, .schema { border: 1px solid var(--line); border-radius: 10px; padding: 1rem 1.2rem; margin: 1.2rem 0; }
.operation .summary { font-size: 1.02rem; font-weight: 600; margin: 0.2rem 0; }
.method { display: inline-block; min-width: 3.6em; text-align: center; font-size: 0.72rem; font-weight: 700;
  letter-spacing: 0.03em; padding: 0.12rem 0.35rem; border-radius: 5px; color: #fff; vertical-align: 0.08em; }
.method-get { background: #15803d; }
.method-post { background: #1d4ed8; }
.method-put, .method-patch { background: #b45309; }
.method-delete { background: #b91c1c; }
.path { font-size: 0.95rem; }
.facts { display: flex; flex-wrap: wrap; gap: 0.3rem 2rem; margin: 0.6rem 0; }
.facts dt { font-size: 0.8rem; opacity: 0.75; }
.facts dd { margin: 0; }
.scope { background: var(--soft); padding: 0.05rem 0.3rem; border-radius: 4px; }
table { border-collapse: collapse; width: 100%; margin: 0.3rem 0 0.6rem; font-size: 0.9rem; }
th, td { text-align: left; vertical-align: top; border-bottom: 1px solid var(--line); padding: 0.35rem 0.5rem; }
td p, td ul { margin: 0.1rem 0; }
td ul { padding-left: 1.1rem; }
.status { display: inline-block; font-weight: 700; font-size: 0.82rem; padding: 0.05rem 0.4rem; border-radius: 5px;
  border: 1px solid currentColor; }
.status-2 { color: #15803d; }
.status-3 { color: #6d28d9; }
.status-4 { color: #b45309; }
.status-5 { color: #b91c1c; }
.answer { margin: 0.4rem 0 0.8rem; }
.answer > p { margin: 0.3rem 0; }
ul.fields { list-style: none; margin: 0.2rem 0; padding-left: 0; }
ul.fields ul.fields, .variants { margin-left: 1.1rem; padding-left: 0.8rem; border-left: 2px solid var(--line); }
ul.fields > li { padding: 0.25rem 0; }
.name { font-weight: 600; }
.type { opacity: 0.85; margin-left: 0.3rem; }
p > .type:first-child { margin-left: 0; }
.required { font-size: 0.72rem; font-weight: 700; color: #b91c1c; margin-left: 0.3rem; }
@media (prefers-color-scheme: dark) { .required { color: #f87171; } }
.limits { font-size: 0.8rem; opacity: 0.75; margin-left: 0.3rem; }
.desc { font-size: 0.9rem; opacity: 0.9; }
.variants ol { margin: 0.2rem 0; padding-left: 1.2rem; }
.muted { opacity: 0.75; font-size: 0.9rem; }
.schema-name { font-weight: 600; margin: 0.2rem 0; }
details { margin: 0.3rem 0; font-size: 0.9rem; }
summary { cursor: pointer; }
dl.headers dt { margin-top: 0.3rem; }
dl.headers dd { margin-left: 1rem; }
dl.schemes dd { margin: 0 0 0.6rem 1rem; }
@media (max-width: 56rem) {
  .layout { display: block; }
  nav { position: static; max-height: none; border-right: 0; border-bottom: 1px solid var(--line); }
  main { padding: 0 1rem 3rem; }
}
`;
