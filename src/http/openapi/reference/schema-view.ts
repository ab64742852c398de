import { html, type SafeHtml } from '../../pages/html.ts';
import { refName, schemaAnchor, type JsonSchema } from './json-schema.ts';
import { inline } from './prose.ts';

/** Nesting deeper than this is shown as a type only (the schemas section has the rest). */
const MAX_DEPTH = 6;

/**
 * A JSON Schema as readable HTML: a body's fields with their types, whether they are required, their
 * limits and descriptions, nested objects inline and named components as links. `expand` shows the
 * fields of a top-level `$ref` too (request and response bodies).
 */
export function schemaView(
  schema: JsonSchema,
  components: Readonly<Record<string, JsonSchema>>,
  options: { expand?: boolean } = {},
): SafeHtml {
  const target = options.expand && schema.$ref ? components[refName(schema.$ref)] : undefined;
  if (schema.$ref && target) {
    return html`<p class="schema-name">${typeLabel(schema)}</p>
      ${target.description ? html`<p class="muted">${inline(target.description)}</p>` : ''}
      ${shapeOf(target, 0)}`;
  }
  return shapeOf(schema, 0);
}

/** The body of a schema: its fields, its variants, or its type with limits. */
function shapeOf(schema: JsonSchema, depth: number): SafeHtml {
  const inner = nested(schema, depth);
  if (inner) return inner;
  return html`<p><span class="type">${typeLabel(schema)}</span> ${constraints(schema)}</p>`;
}

function fields(schema: JsonSchema, depth: number): SafeHtml {
  const required = new Set(schema.required ?? []);
  return html`<ul class="fields">
    ${Object.entries(schema.properties ?? {}).map(
      ([name, property]) =>
        html`<li>
          <code class="name">${name}</code>
          <span class="type">${typeLabel(property)}</span>
          ${required.has(name) ? html`<span class="required">required</span>` : ''} ${constraints(property)}
          ${property.description ? html`<div class="desc">${inline(property.description)}</div>` : ''}
          ${nested(property, depth + 1) ?? ''}
        </li>`,
    )}
  </ul>`;
}

/** What is worth showing inside a field: an inline object's fields, its items' or values', its variants. */
function nested(schema: JsonSchema, depth: number): SafeHtml | undefined {
  if (depth > MAX_DEPTH) return undefined;
  const shape = withoutNull(schema);
  if (shape.properties && Object.keys(shape.properties).length > 0) return fields(shape, depth);
  if (shape.items && isInlineObject(shape.items)) return fields(shape.items, depth);
  if (typeof shape.additionalProperties === 'object' && isInlineObject(shape.additionalProperties)) {
    return html`<div class="muted">each value:</div>
      ${fields(shape.additionalProperties, depth)}`;
  }
  const variants = variantsOf(shape);
  if (variants.some(isInlineObject)) {
    return html`<div class="variants">
      one of:
      <ol>
        ${variants.map(
          (variant) =>
            html`<li>
              ${isInlineObject(variant) ? fields(variant, depth) : html`<span class="type">${typeLabel(variant)}</span>`}
            </li>`,
        )}
      </ol>
    </div>`;
  }
  return undefined;
}

/** A schema's type in words, components as links to their section. */
export function typeLabel(schema: JsonSchema): SafeHtml {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return html`<a href="#${schemaAnchor(name)}">${name}</a>`;
  }
  if (schema.not) return html`not allowed`;
  if (schema.const !== undefined) return html`<code>${JSON.stringify(schema.const)}</code>`;
  if (schema.enum) return joined(schema.enum.map((value) => html`<code>${JSON.stringify(value)}</code>`));
  const variants = variantsOf(schema);
  if (variants.length > 0) return joined(variants.map(typeLabel));
  const types = [schema.type ?? []].flat();
  if (types.length === 0) return html`any`;
  return joined(types.map((type) => singleType(type, schema)));
}

function singleType(type: string, schema: JsonSchema): SafeHtml {
  if (type === 'array') {
    const items = schema.items;
    return html`array of ${items ? (isInlineObject(items) ? 'objects' : typeLabel(items)) : 'any'}`;
  }
  if (type === 'object' && !schema.properties && typeof schema.additionalProperties === 'object') {
    return html`map of ${typeLabel(schema.additionalProperties)}`;
  }
  return html`${type}${schema.format ? ` (${schema.format})` : ''}`;
}

/** A schema's limits in words: ranges, lengths, item counts, pattern, default. */
export function constraints(schema: JsonSchema): SafeHtml | string {
  const notes: SafeHtml[] = [];
  const range = (min: number | undefined, max: number | undefined, unit = '') => {
    if (min !== undefined && max !== undefined) notes.push(html`${min} to ${max}${unit}`);
    else if (min !== undefined) notes.push(html`at least ${min}${unit}`);
    else if (max !== undefined) notes.push(html`at most ${max}${unit}`);
  };
  range(schema.minimum, schema.maximum);
  range(schema.minLength, schema.maxLength, ' characters');
  range(schema.minItems, schema.maxItems, ' items');
  if (schema.pattern) notes.push(html`matches <code>${schema.pattern}</code>`);
  if (schema.default !== undefined) notes.push(html`default <code>${JSON.stringify(schema.default)}</code>`);
  if (notes.length === 0) return '';
  return html`<span class="limits">${joined(notes, ', ')}</span>`;
}

function variantsOf(schema: JsonSchema): JsonSchema[] {
  return schema.oneOf ?? schema.anyOf ?? [];
}

/** A nullable schema's non-null part (`anyOf: [X, { type: null }]` → X). */
function withoutNull(schema: JsonSchema): JsonSchema {
  const variants = variantsOf(schema).filter((variant) => variant.type !== 'null');
  return variants.length === 1 && variants.length < variantsOf(schema).length
    ? (variants[0] as JsonSchema)
    : schema;
}

function isInlineObject(schema: JsonSchema): boolean {
  return !schema.$ref && schema.properties !== undefined && Object.keys(schema.properties).length > 0;
}

function joined(parts: readonly SafeHtml[], separator = ' | '): SafeHtml {
  return html`${parts.flatMap((part, index) => (index === 0 ? [part] : [separator, part]))}`;
}
