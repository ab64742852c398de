/**
 * Compiles only when every `Value` (what the server builds: a domain type, a presenter's result) fits
 * `Schema` (a response schema's output type): the documented shape cannot fall behind the code.
 */
export type Admits<Schema, _Value extends Schema> = true;
