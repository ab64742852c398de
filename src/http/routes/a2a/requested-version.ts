import { VersionNotSupportedError } from '@a2a-js/sdk/errors';
import type { InterfaceVersion } from './agent-card.ts';

/**
 * The A2A version a request asks for in its `A2A-Version` header (`Major.Minor`, a patch part
 * ignored): none (or empty) is 0.3, as before 1.0 existed; 0.3 and 1.0 are spoken; any other is
 * refused with A2A's `VersionNotSupportedError` (-32009).
 */
export function requestedVersionOf(header: string | string[] | undefined): InterfaceVersion {
  const value = (Array.isArray(header) ? header[0] : header)?.trim() ?? '';
  if (value === '') return '0.3';
  const match = /^(\d+)\.(\d+)(?:\.\d+)?$/.exec(value);
  const version = match ? `${Number(match[1])}.${Number(match[2])}` : value;
  if (version === '1.0' || version === '0.3') return version;
  throw new VersionNotSupportedError(
    `A2A-Version '${value}' is not supported: this endpoint speaks 1.0 (A2A-Version: 1.0) and 0.3 (no header)`,
  );
}
