import type { TenantScope } from '../platform/tenancy/tenant-data.js';
import { type FinanceActor, FinanceAuditEntry } from './finance-audit-entry.entity.js';

export interface AuditRecord {
  entityType: FinanceAuditEntry['entityType'];
  entityId: string;
  action: string;
  reason?: string | null;
  actor: FinanceActor;
}

/** Appends to the finance audit trail inside the transaction that makes the change. */
export async function recordAudit(scope: TenantScope, record: AuditRecord): Promise<void> {
  await scope.repository(FinanceAuditEntry).insert({
    entityType: record.entityType,
    entityId: record.entityId,
    action: record.action,
    reason: record.reason ?? null,
    actor: record.actor.kind,
    apiKeyId: record.actor.kind === 'api_key' ? record.actor.apiKeyId : null,
  });
}
