// Who may buy and manage an organisation's subscription: a caller whose token gives one of the
// manager roles, compared case-insensitively with a leading `org:` ignored (Clerk's session token
// v1 wrote `org:admin`). The role is read from each token, never stored.
const normalized = (role: string) => role.toLowerCase().replace(/^org:/, '');

export function canManage(
  role: string | readonly string[] | null,
  managerRoles: readonly string[],
): boolean {
  if (role === null) return false;
  const managers = new Set(managerRoles.map(normalized));
  return [role].flat().some((each) => managers.has(normalized(each)));
}
