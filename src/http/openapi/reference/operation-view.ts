import { html, type SafeHtml } from '../../pages/html.ts';
import type { JsonSchema } from './json-schema.ts';
import { inline, prose } from './prose.ts';
import { constraints, schemaView, typeLabel } from './schema-view.ts';

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  description?: string;
  schema?: JsonSchema;
}

interface Content {
  schema?: JsonSchema;
}

interface Response {
  description: string;
  headers?: Record<string, { description?: string }>;
  content?: Record<string, Content>;
}

/** The parts of an OpenAPI operation the page shows. */
export interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Array<Record<string, string[]>>;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, Content> };
  responses: Record<string, Response>;
}

type Components = Readonly<Record<string, JsonSchema>>;

/** The anchor of an operation's section. */
export function operationAnchor(method: string, path: string, operation: Operation): string {
  return `op-${operation.operationId ?? `${method}-${path}`.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

export function operationView(
  method: string,
  path: string,
  operation: Operation,
  components: Components,
): SafeHtml {
  const anchor = operationAnchor(method, path, operation);
  const statuses = Object.keys(operation.responses);
  const answers = statuses.filter((status) => !isError(status));
  const errors = statuses.filter(isError);
  return html`<section class="operation" id="${anchor}" aria-labelledby="${anchor}-title">
    <h3 id="${anchor}-title">
      <span class="method method-${method}">${method.toUpperCase()}</span> <code class="path">${path}</code>
    </h3>
    <p class="summary">${operation.summary ?? ''}</p>
    ${prose(operation.description)}
    <dl class="facts">
      <div>
        <dt>Auth</dt>
        <dd>${authOf(operation.security ?? [])}</dd>
      </div>
      ${
        operation.operationId
          ? html`<div>
              <dt>Operation id</dt>
              <dd><code>${operation.operationId}</code></dd>
            </div>`
          : ''
      }
    </dl>
    ${parametersView(operation.parameters ?? [])} ${requestBodyView(operation.requestBody, components)}
    <h4>Responses</h4>
    ${answers.map((status) => answerView(status, operation.responses[status] as Response, components))}
    ${errors.length > 0 ? errorsView(errors, operation.responses) : ''}
  </section>`;
}

function authOf(security: ReadonlyArray<Record<string, string[]>>): SafeHtml {
  const schemes = new Map(security.flatMap((requirement) => Object.entries(requirement)));
  if (schemes.has('adminToken')) return html`Admin token (<code>AGENT_RUNS_ADMIN_TOKEN</code>)`;
  if (schemes.has('oauthClient')) return html`OAuth client id and secret`;
  if (schemes.has('bearerAuth')) {
    const scopes = schemes.get('oauth2') ?? [];
    return scopes.length > 0
      ? html`Workspace API key, or OAuth access token with
        ${scopes.map((scope, index) => html`${index > 0 ? ' and ' : ''}<code class="scope">${scope}</code>`)}`
      : html`Workspace API key (OAuth access tokens are refused)`;
  }
  return html`None`;
}

function parametersView(parameters: readonly Parameter[]): SafeHtml | string {
  if (parameters.length === 0) return '';
  return html`<h4>Parameters</h4>
    <table>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">In</th>
          <th scope="col">Type</th>
          <th scope="col">Description</th>
        </tr>
      </thead>
      <tbody>
        ${parameters.map(
          (parameter) =>
            html`<tr>
              <td>
                <code class="name">${parameter.name}</code
                >${parameter.required ? html` <span class="required">required</span>` : ''}
              </td>
              <td>${parameter.in}</td>
              <td>
                ${parameter.schema ? html`${typeLabel(parameter.schema)} ${constraints(parameter.schema)}` : ''}
              </td>
              <td>${inline(parameter.description ?? parameter.schema?.description ?? '')}</td>
            </tr>`,
        )}
      </tbody>
    </table>`;
}

function requestBodyView(body: Operation['requestBody'], components: Components): SafeHtml | string {
  if (!body) return '';
  return html`<h4>Request body</h4>
    ${Object.entries(body.content).map(
      ([type, content]) =>
        html`<p class="muted"><code>${type}</code>${body.required ? ', required' : ', optional'}</p>
          ${content.schema ? schemaView(content.schema, components, { expand: true }) : ''}`,
    )}`;
}

function answerView(status: string, response: Response, components: Components): SafeHtml {
  const headers = Object.entries(response.headers ?? {});
  return html`<div class="answer">
    <p><span class="status status-${status[0] ?? ''}">${status}</span> ${inline(response.description)}</p>
    ${bodiesBySchema(response.content ?? {}).map(
      ({ types, schema }) =>
        html`<p class="muted">
            ${types.map((type, index) => html`${index > 0 ? ', ' : ''}<code>${type}</code>`)}
          </p>
          ${schema && !types.includes('text/html') ? schemaView(schema, components, { expand: true }) : ''}`,
    )}
    ${
      headers.length > 0
        ? html`<details>
            <summary>Headers</summary>
            <dl class="headers">
              ${headers.map(
                ([name, header]) =>
                  html`<dt><code>${name}</code></dt>
                    <dd>${inline(header.description ?? '')}</dd>`,
              )}
            </dl>
          </details>`
        : ''
    }
  </div>`;
}

/** The content types of an answer, those sharing one schema together (the schema shown once). */
function bodiesBySchema(content: Readonly<Record<string, Content>>) {
  const groups = new Map<string, { types: string[]; schema: JsonSchema | undefined }>();
  for (const [type, { schema }] of Object.entries(content)) {
    const key = JSON.stringify(schema ?? null);
    const group = groups.get(key) ?? { types: [], schema };
    group.types.push(type);
    groups.set(key, group);
  }
  return [...groups.values()];
}

function errorsView(statuses: readonly string[], responses: Readonly<Record<string, Response>>): SafeHtml {
  return html`<h4>Errors</h4>
    <table class="errors">
      <thead>
        <tr>
          <th scope="col">Status</th>
          <th scope="col">Body</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        ${statuses.map((status) => {
          const response = responses[status] as Response;
          const schema = Object.values(response.content ?? {})[0]?.schema;
          const headers = Object.keys(response.headers ?? {});
          return html`<tr>
            <td><span class="status status-${status[0] ?? ''}">${status}</span></td>
            <td>${schema ? typeLabel(schema) : ''}</td>
            <td>
              ${prose(response.description)}
              ${headers.length > 0 ? html`<p class="muted">Headers: ${headers.map((name, index) => html`${index > 0 ? ', ' : ''}<code>${name}</code>`)}</p>` : ''}
            </td>
          </tr>`;
        })}
      </tbody>
    </table>`;
}

function isError(status: string): boolean {
  return /^[45]/.test(status);
}
