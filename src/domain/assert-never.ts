/** Exhaustiveness check for discriminated unions: a new case that is not handled fails to compile. */
export function assertNever(value: never): never {
  throw new Error(`unexpected value ${JSON.stringify(value)}`);
}
