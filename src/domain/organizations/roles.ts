// Who may buy and manage an organisation's subscription: a caller whose token gives one of the
// manager roles, compared case-insensitively with a leading `org:` ignored (Clerk's session token
// v1 wrote `org:admin`). The role is read from each token, never stored.
import { DomainError } from '../errors.ts';

const normalized = (role: string) => role.toLowerCase().replace(/^org:/, '');

export function canManage(
  role: string | readonly string[] | null,
  managerRoles: readonly string[],
): boolean {
  if (role === null) return false;
  const managers = new Set(managerRoles.map(normalized));
  return [role].flat().some((each) => managers.has(normalized(each)));
}

/** The 403 for a caller whose token gives none of the manager roles; returns when it gives one. */
export function requireManager(
  role: string | readonly string[] | null,
  managerRoles: readonly string[],
  what = "Managing your organisation's billing",
): void {
  if (canManage(role, managerRoles)) return;
  const given = role === null || role.length === 0 ? 'none' : [role].flat().join(', ');
  throw new DomainError(
    'manager_role_required',
    `${what} needs one of the roles ${managerRoles.join(', ')}; your token gives ${given}`,
  );
}
