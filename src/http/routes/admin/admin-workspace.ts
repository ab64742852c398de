import { NotFoundError } from '../../../domain/errors.ts';
import type { Workspace } from '../../../domain/workspace.ts';
import type { WorkspaceStore } from '../../../engine/ports.ts';

/** The workspace named by an admin route's `{slug}`, or 404 not_found. */
export async function workspaceBySlug(
  workspaces: Pick<WorkspaceStore, 'findBySlug'>,
  slug: string,
): Promise<Workspace> {
  const workspace = await workspaces.findBySlug(slug);
  if (!workspace) throw new NotFoundError(`workspace '${slug}' not found`);
  return workspace;
}

export function notFoundUnless(deleted: boolean, what: string): void {
  if (!deleted) throw new NotFoundError(`${what} not found`);
}
