import { html, SafeHtml } from '../../pages/html.ts';
import type { OpenApiDocument } from '../build-document.ts';
import { schemaAnchor, type JsonSchema } from './json-schema.ts';
import { operationAnchor, operationView, type Operation } from './operation-view.ts';
import { inline, prose } from './prose.ts';
import { REFERENCE_STYLES } from './reference-styles.ts';
import { schemaView } from './schema-view.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Listed {
  method: string;
  path: string;
  operation: Operation;
}

interface SecurityScheme {
  type: string;
  description?: string;
  flows?: {
    authorizationCode?: { authorizationUrl: string; tokenUrl: string; scopes: Record<string, string> };
  };
}

/**
 * The document as one readable HTML page: operations grouped by tag (method, path, auth and scope,
 * parameters, bodies, answers and errors), then every named schema. Plain HTML and inline styles:
 * no script, nothing loaded from elsewhere. Runs of white space are one space (the page has no `pre`).
 */
export function referencePage(document: OpenApiDocument): string {
  const components = (document.components?.schemas ?? {}) as Record<string, JsonSchema>;
  const groups = groupByTag(document);
  const title = `${document.info.title} API reference`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <style>
          ${new SafeHtml(REFERENCE_STYLES)}
        </style>
      </head>
      <body>
        <header class="top">
          <h1>${title}</h1>
          <p class="muted">
            Version ${document.info.version} · OpenAPI ${document.openapi} ·
            <a href="openapi.json">openapi.json</a>
          </p>
        </header>
        <div class="layout">
          <nav aria-label="Operations">${navigation(groups)}</nav>
          <main>
            <section id="overview" aria-label="Overview">${prose(document.info.description)}</section>
            ${authentication(document)}
            ${groups.map(
              ({ tag, description, operations }) =>
                html`<section class="tag" id="tag-${tag}" aria-labelledby="tag-${tag}-title">
                  <h2 id="tag-${tag}-title">${tag}</h2>
                  ${prose(description)}
                  ${operations.map(({ method, path, operation }) => operationView(method, path, operation, components))}
                </section>`,
            )}
            <section id="schemas" aria-labelledby="schemas-title">
              <h2 id="schemas-title">Schemas</h2>
              ${Object.entries(components)
                .sort(([a], [b]) => a.localeCompare(b))
                .map(
                  ([name, schema]) =>
                    html`<section class="schema" id="${schemaAnchor(name)}">
                      <h3>${name}</h3>
                      ${schema.description ? html`<p>${inline(schema.description)}</p>` : ''}
                      ${schemaView(schema, components)}
                    </section>`,
                )}
            </section>
          </main>
        </div>
      </body>
    </html>`.value.replace(/\s+/g, ' ');
}

function groupByTag(document: OpenApiDocument) {
  const listed: Listed[] = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = (item as Record<string, Operation | undefined>)[method];
      return operation ? [{ method, path, operation }] : [];
    }),
  );
  const tags: Array<{ name: string; description?: string }> = [
    ...(document.tags ?? []),
    { name: 'other', description: 'Routes registered without a description.' },
  ];
  return tags
    .map(({ name, description }) => ({
      tag: name,
      description,
      operations: listed.filter(({ operation }) => (operation.tags?.[0] ?? 'other') === name),
    }))
    .filter((group) => group.operations.length > 0);
}

function navigation(groups: ReturnType<typeof groupByTag>): SafeHtml {
  return html`<ul>
    <li><a href="#overview">Overview</a></li>
    <li><a href="#authentication">Authentication</a></li>
    ${groups.map(
      ({ tag, operations }) =>
        html`<li>
          <a href="#tag-${tag}">${tag}</a>
          <ul>
            ${operations.map(
              ({ method, path, operation }) =>
                html`<li>
                  <a href="#${operationAnchor(method, path, operation)}"
                    ><span class="method method-${method}">${method.toUpperCase()}</span>
                    ${operation.summary ?? path}</a
                  >
                </li>`,
            )}
          </ul>
        </li>`,
    )}
    <li><a href="#schemas">Schemas</a></li>
  </ul>`;
}

function authentication(document: OpenApiDocument): SafeHtml {
  const schemes = (document.components?.securitySchemes ?? {}) as Record<string, SecurityScheme>;
  const flow = Object.values(schemes).find((scheme) => scheme.flows)?.flows?.authorizationCode;
  return html`<section id="authentication" aria-labelledby="authentication-title">
    <h2 id="authentication-title">Authentication</h2>
    <dl class="schemes">
      ${Object.entries(schemes).map(
        ([name, scheme]) =>
          html`<dt><code>${name}</code> (${scheme.type})</dt>
            <dd>${inline(scheme.description ?? '')}</dd>`,
      )}
    </dl>
    ${
      flow
        ? html`<p>
              Authorization URL <code>${flow.authorizationUrl}</code>, token URL
              <code>${flow.tokenUrl}</code>.
            </p>
            <table>
              <thead>
                <tr>
                  <th scope="col">Scope</th>
                  <th scope="col">Lets an app</th>
                </tr>
              </thead>
              <tbody>
                ${Object.entries(flow.scopes).map(
                  ([scope, words]) =>
                    html`<tr>
                      <td><code class="scope">${scope}</code></td>
                      <td>${words}</td>
                    </tr>`,
                )}
              </tbody>
            </table>`
        : ''
    }
  </section>`;
}
