import assert from 'node:assert/strict';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the document is arbitrary JSON
export type OpenApiJson = Record<string, any>;

const DOCUMENT_ID = 'https://agent-runs.test/openapi.json';

/** An answer as a test got it (a TestResponse, a token-endpoint answer, …). */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Headers;
}

/**
 * Checks real answers against the served OpenAPI document with Ajv (draft 2020-12). Objects the
 * document lists fields for are held to those fields (`unevaluatedProperties: false`) unless it says
 * they are open: a field the server sends and the document does not name fails, as does a missing
 * required one or a wrong type.
 */
export class DocumentConformance {
  readonly document: OpenApiJson;
  readonly #ajv: Ajv2020;
  readonly #validators = new Map<string, ValidateFunction>();

  constructor(document: OpenApiJson) {
    this.document = document;
    this.#ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats.default(this.#ajv);
    this.#ajv.addSchema({ ...closedObjects(structuredClone(document)), $id: DOCUMENT_ID });
  }

  /** The operation of `method path` (the document's path template), or a failure naming it. */
  operation(method: string, path: string): OpenApiJson {
    const operation = this.document.paths?.[path]?.[method.toLowerCase()];
    assert.ok(operation, `the document has no ${method.toUpperCase()} ${path}`);
    return operation;
  }

  /** Asserts that the answer's status is documented for the operation and its body fits the schema. */
  assertAnswer(method: string, path: string, response: Answer, contentType = 'application/json'): void {
    const documented = this.operation(method, path).responses?.[String(response.status)];
    assert.ok(
      documented,
      `${method} ${path} answered ${response.status}, which the document does not list: ${JSON.stringify(response.body)}`,
    );
    if (response.body === undefined) {
      assert.equal(
        documented.content,
        undefined,
        `${method} ${path} ${response.status}: the document promises a body`,
      );
      return;
    }
    this.assertFits(
      `#/paths/${pointer(path)}/${method.toLowerCase()}/responses/${response.status}/content/${pointer(contentType)}/schema`,
      response.body,
      `${method} ${path} ${response.status}`,
    );
    if (response.status < 300 && response.headers) {
      for (const header of Object.keys(documented.headers ?? {})) {
        assert.ok(
          response.headers?.has(header),
          `${method} ${path} ${response.status}: header ${header} is documented`,
        );
      }
    }
  }

  /** Asserts that `value` fits the schema at this pointer into the document. */
  assertFits(pointerInDocument: string, value: unknown, what: string): void {
    let validate = this.#validators.get(pointerInDocument);
    if (!validate) {
      validate = this.#ajv.compile({ $ref: `${DOCUMENT_ID}${pointerInDocument}` });
      this.#validators.set(pointerInDocument, validate);
    }
    assert.ok(
      validate(value),
      `${what} does not fit the document: ${this.#ajv.errorsText(validate.errors)}\n${JSON.stringify(value, null, 1).slice(0, 3000)}`,
    );
  }

  /** Asserts that `value` fits the named component (`#/components/schemas/<name>`). */
  assertComponent(name: string, value: unknown): void {
    this.assertFits(`#/components/schemas/${pointer(name)}`, value, name);
  }
}

/** A JSON Pointer segment (RFC 6901), URI-encoded for use in a fragment. */
function pointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

/** Every schema object that lists properties and says nothing of others accepts no others. */
function closedObjects<T>(node: T): T {
  if (Array.isArray(node)) {
    for (const item of node) closedObjects(item);
  } else if (typeof node === 'object' && node !== null) {
    const record = node as Record<string, unknown>;
    const listsFields = typeof record.properties === 'object' && record.properties !== null;
    if (
      listsFields &&
      record.additionalProperties === undefined &&
      record.unevaluatedProperties === undefined
    ) {
      record.unevaluatedProperties = false;
    }
    for (const value of Object.values(record)) closedObjects(value);
  }
  return node;
}
