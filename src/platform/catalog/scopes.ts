/**
 * Every scope an API key can carry (spec section 5). Code refers to these constants, never to
 * the strings. A write scope includes its read scope; `int:*` grants everything.
 */
export const Scope = {
  FilesDocumentsRead: 'int:files.documents:read',
  FinBillsRead: 'int:fin.bills:read',
  FinInvoicesRead: 'int:fin.invoices:read',
  FinInvoicesWrite: 'int:fin.invoices:write',
  FinPaymentsRead: 'int:fin.payments:read',
  FinPurchaseOrdersRead: 'int:fin.purchase_orders:read',
  FmFuelLogsRead: 'int:fm.fuel_logs:read',
  FmVehiclesRead: 'int:fm.vehicles:read',
  FmWorkOrdersRead: 'int:fm.work_orders:read',
  HrEmployeesRead: 'int:hr.employees:read',
  HrLeaveRequestsRead: 'int:hr.leave_requests:read',
  HrTimesheetsRead: 'int:hr.timesheets:read',
  SupportTicketsRead: 'int:support.tickets:read',
  WebhooksManage: 'int:webhooks:manage',
  IdentityUsersRead: 'int:identity.users:read',
  MessagingMessagesRead: 'int:messaging.messages:read',
  All: 'int:*',
} as const;

export type Scope = (typeof Scope)[keyof typeof Scope];

const ALL_SCOPES: readonly Scope[] = Object.values(Scope);

export function isScope(value: string): value is Scope {
  return (ALL_SCOPES as readonly string[]).includes(value);
}

/** `int:fin.invoices:write` → `int:fin.invoices:read`; other scopes imply nothing. */
function impliedRead(scope: Scope): Scope | undefined {
  if (!scope.endsWith(':write')) return undefined;
  const read = `${scope.slice(0, -':write'.length)}:read`;
  return isScope(read) ? read : undefined;
}

export function grants(held: readonly string[], required: Scope): boolean {
  if (held.includes(Scope.All)) return true;
  return held.some((scope) => scope === required || (isScope(scope) && impliedRead(scope) === required));
}

/** User permissions are the scopes without the `int:` prefix (operations.md). */
export function permissionForScope(scope: Scope): string {
  return scope.slice('int:'.length);
}
