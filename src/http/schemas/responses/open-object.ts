import { z } from 'zod';

/**
 * An object documented as open to fields beyond those listed (`additionalProperties: {}`): for values
 * that echo what a client sent or that pass unknown fields through. Other response objects are
 * documented with their fields only.
 */
export function openObject<Shape extends z.ZodRawShape>(shape: Shape) {
  return z.object(shape).meta({ additionalProperties: {} });
}
